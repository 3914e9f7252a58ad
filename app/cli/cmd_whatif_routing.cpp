// limitscope-cli whatif routing: a priced trace replayed as it was and with "requests
// estimated under N tokens go to model M" (docs/tuner.md); spend and 429s compared. Exit 0 on
// success, 2 on bad usage, an unreadable trace, a model the policy lacks or bad parameters.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "app/cli/tuner_options.h"
#include "core/tuner/routing_whatif.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "whatif routing";

}  // namespace

int run_whatif_routing(const CommandArgs& argv) {
  auto specs = replay_option_specs();
  specs.push_back({"under", "N", "route requests estimated under N tokens"});
  specs.push_back({"to", "MODEL", "to this model (from the policy)"});
  specs.push_back({"json", "", "print the result as JSON"});
  const Expected<Args> command_line = Args::parse(
      kName, "route small requests to another model; spend and 429s against the trace as it was",
      specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  if (!args.has("under") || !args.has("to"))
    return usage_error(kName, "--under N and --to MODEL are required");
  auto under = integer_option(args, "under", 0, 1, 100'000'000);
  if (!under) return usage_error(kName, under.error());
  ReplayInputs in;
  if (Status why = replay_inputs_from(args, in); !why.ok()) return usage_error(kName, why.error());
  const tuner::RoutingRule rule{static_cast<std::uint32_t>(*under), *args.get("to")};
  auto w = tuner::whatif_routing(in.trace, in.params, rule, in.pricing.options);
  if (!w) return usage_error(kName, w.error());
  if (args.has("json")) {
    nlohmann::json j{{"params", w->params.describe()},
                     {"under_tokens", rule.under_tokens},
                     {"to_model", rule.to_model},
                     {"priced", w->priced},
                     {"as_was", counts_json(w->as_was)},
                     {"routed", counts_json(w->routed)},
                     {"requests_routed", w->requests_routed},
                     {"requests_without_tokens", w->without_tokens},
                     {"spend_saved_usd", w->spend_saved},
                     {"extra_429s", w->extra_429s}};
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << w->requests_routed << " requests under " << rule.under_tokens
              << " tokens routed to " << rule.to_model << " (" << w->without_tokens
              << " without a token estimate)\n"
              << "as it was: " << w->as_was.admitted << " admitted, " << w->as_was.rejected
              << " 429s, $" << w->as_was.admitted_spend << "\n"
              << "routed:    " << w->routed.admitted << " admitted, " << w->routed.rejected
              << " 429s, $" << w->routed.admitted_spend << "\n"
              << "spend saved $" << w->spend_saved << ", 429s " << (w->extra_429s >= 0 ? "+" : "")
              << w->extra_429s << "\n";
  }
  return 0;
}

}  // namespace limitscope::cli
