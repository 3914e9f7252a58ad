// limitscope-cli decide: one rate-limit decision made in Redis by the rule's script, through
// the failure policy a gateway would use. Exit 0 admitted, 1 refused, 2 bad usage or input
// (including a rule whose config is missing or invalid in Redis).

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/redis/guarded_limiter.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "decide";

nlohmann::json ms_or_null(const std::optional<Nanos>& d) {
  if (!d) return nullptr;
  return static_cast<double>(d->count()) / 1e6;
}

}  // namespace

int run_decide(const CommandArgs& argv) {
  auto specs = redis_option_specs();
  specs.push_back({"key", "KEY", "the limited key (API key, key:model, ...)"});
  specs.push_back({"cost", "N", "cost of the request (default 1)"});
  specs.push_back({"json", "", "print the decision as JSON"});
  const Expected<Args> command_line =
      Args::parse(kName, "one decision by the rule's script in Redis", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  auto parsed = parse_rule_key_options(args);
  if (!parsed) return usage_error(kName, parsed.error());
  const RedisOptions& options = parsed->redis;

  RedisRuleClient client(options, 1);
  const auto result = client.limiter.decide(options.rule, parsed->key, parsed->cost);
  const Decision& d = result.guarded.decision;

  const bool store_refused =
      d.reason == DenyReason::backend_error || d.reason == DenyReason::backend_forbidden;
  if (store_refused) {
    std::cerr << "limitscope-cli decide: rule '" << options.rule << "': " << result.guarded.error
              << "\n";
  } else if (result.guarded.degraded) {
    std::cerr << "limitscope-cli decide: degraded (" << redis::to_string(options.failure.mode)
              << "): " << result.guarded.error << "\n";
  }
  if (args.has("json")) {
    nlohmann::json j{{"allowed", d.allowed},
                     {"remaining", d.remaining},
                     {"limit", d.limit},
                     {"retry_after_ms", ms_or_null(d.retry_after)},
                     {"reset_after_ms", static_cast<double>(d.reset_after.count()) / 1e6},
                     {"reason", std::string(to_string(d.reason))},
                     {"degraded", result.guarded.degraded},
                     {"config_version", result.config_version}};
    j["error"] = json_or_null(result.guarded.error);
    std::cout << json_text(j) << "\n";
  } else if (d.allowed) {
    std::cout << "allowed" << (result.guarded.degraded ? " (degraded)" : "") << ": remaining "
              << d.remaining << " of " << d.limit << "\n";
  } else {
    std::cout << "refused: " << to_string(d.reason);
    if (d.retry_after) {
      std::cout << ", retry after " << static_cast<double>(d.retry_after->count()) / 1e6 << " ms";
    }
    std::cout << "\n";
  }
  if (store_refused) return 2;
  return d.allowed ? 0 : 1;
}

}  // namespace limitscope::cli
