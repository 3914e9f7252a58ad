// limitscope-cli audit retry-after: from a rule's decision stream, per key, the refusals whose
// client came back early (impatient) and those refused again after waiting at least the
// promised Retry-After (lies). Exit 0 no lie, 1 any lie, 2 bad usage or an unreadable Redis.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/audit_options.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/audit/retry_after_audit.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "audit retry-after";

nlohmann::json examples_json(const std::vector<audit::RetryExample>& xs) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : xs) {
    a.push_back({{"t", static_cast<double>(x.t_us) / 1e6},
                 {"promised_s", static_cast<double>(x.promised_us) / 1e6},
                 {"waited_s", static_cast<double>(x.waited_us) / 1e6}});
  }
  return a;
}

nlohmann::json to_json(const audit::RetryAfterAudit& a, const audit::DecisionRead& read,
                       const std::string& rule) {
  nlohmann::json j{{"rule", rule},
                   {"entries", read.entries},
                   {"decisions", read.decisions.size()},
                   {"refusals", a.refusals},
                   {"impatient", a.impatient},
                   {"lies", a.lies},
                   {"honoured", a.honoured},
                   {"unanswered", a.unanswered},
                   {"refusals_without_retry", read.refusals_without_retry},
                   {"errors", read.errors}};
  j["keys"] = nlohmann::json::array();
  for (const auto& k : a.keys) {
    j["keys"].push_back({{"key", k.key},
                         {"name", json_or_null(k.name)},
                         {"refusals", k.refusals},
                         {"impatient", k.impatient},
                         {"lies", k.lies},
                         {"honoured", k.honoured},
                         {"unanswered", k.unanswered},
                         {"impatient_examples", examples_json(k.impatient_examples)},
                         {"lie_examples", examples_json(k.lie_examples)}});
  }
  return j;
}

void print_text(const audit::RetryAfterAudit& a, const audit::DecisionRead& read) {
  std::cout << read.decisions.size() << " decisions, " << a.refusals
            << " refusals with a promised wait: " << a.honoured << " honoured, " << a.impatient
            << " impatient clients, " << a.lies << " lies, " << a.unanswered << " not retried\n";
  for (const auto& k : a.keys) {
    if (k.lies == 0 && k.impatient == 0) continue;
    std::cout << "  " << (k.name.empty() ? k.key : k.name + " (" + k.key + ")") << ": " << k.lies
              << " lies, " << k.impatient << " impatient\n";
    for (const auto& x : k.lie_examples) {
      std::cout << "    lie: promised " << static_cast<double>(x.promised_us) / 1e6 << " s, waited "
                << static_cast<double>(x.waited_us) / 1e6 << " s, refused again\n";
    }
    for (const auto& x : k.impatient_examples) {
      std::cout << "    impatient: promised " << static_cast<double>(x.promised_us) / 1e6
                << " s, came back after " << static_cast<double>(x.waited_us) / 1e6 << " s\n";
    }
  }
  if (read.refusals_without_retry > 0) {
    std::cout << "note: " << read.refusals_without_retry
              << " refusals carry no retry_us (never admissible, or logged by an older script)\n";
  }
  for (const auto& e : read.errors) std::cout << "error: " << e << "\n";
}

}  // namespace

int run_audit_retry_after(const CommandArgs& argv) {
  auto specs = redis_option_specs();
  specs.push_back(
      {"max-entries", "N", "read at most N stream entries, oldest first (default 1000000)"});
  specs.push_back({"examples", "N", "examples per key and kind (default 3)"});
  specs.push_back(
      {"policy", "FILE", "the gateways' policy: its key names (and its raw keys never shown)"});
  specs.push_back(key_names_spec());
  specs.push_back({"json", "", "print the result as JSON"});
  const Expected<Args> command_line =
      Args::parse(kName, "Retry-After honesty from a rule's decision stream", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  auto options = parse_redis_options(args);
  if (!options) return usage_error(kName, options.error());
  if (options->rule.empty()) return usage_error(kName, "--rule R is required");
  auto max_entries = integer_option(args, "max-entries", 1'000'000, 1, 100'000'000);
  if (!max_entries) return usage_error(kName, max_entries.error());
  auto examples = integer_option(args, "examples", 3, 0, 1000);
  if (!examples) return usage_error(kName, examples.error());
  auto policy = audit_policy(args);
  if (!policy) return usage_error(kName, policy.error());
  auto names = audit_key_names(args, *policy);
  if (!names) return usage_error(kName, names.error());
  auto read =
      audit::read_rule_decisions(options->url, options->connect, options->schema, options->rule,
                                 static_cast<std::size_t>(*max_entries), SteadyClock::instance());
  if (!read) return usage_error(kName, "--redis: " + read.error().message);
  auto a = audit::audit_retry_after(read->decisions, static_cast<std::size_t>(*examples));
  audit::name_keys(a, *names, &*policy);
  if (args.has("json")) {
    std::cout << json_text(to_json(a, *read, options->rule)) << "\n";
  } else {
    print_text(a, *read);
  }
  return a.lies > 0 ? 1 : 0;
}

}  // namespace limitscope::cli
