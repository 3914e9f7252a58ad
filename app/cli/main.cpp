// limitscope-cli: the headless face of limitscope. Subcommands arrive with the issues that
// need them; each is documented in docs/cli.md.

#include <iostream>
#include <string_view>

#include "app/cli/cmd_rollout.h"
#include "app/cli/commands.h"
#include "app/options/args.h"
#include "core/common/version.h"

namespace {

int run_version(const limitscope::cli::CommandArgs& argv) {
  const auto parsed = limitscope::cli::Args::parse("version", "Prints the version.", {}, argv);
  if (const auto exit = limitscope::cli::early_exit(parsed, "version")) return *exit;
  std::cout << "limitscope-cli " << limitscope::version() << "\n";
  return 0;
}

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const limitscope::cli::CommandArgs&);
};

constexpr Command kCommands[] = {
    {"version", "print the version", run_version},
    // one row per subcommand, added with its cmd_*.cpp
    {"simulate", "run a traffic scenario through the keyed limiter on simulated time",
     limitscope::cli::run_simulate},
    {"parse-metrics", "parse a Prometheus/OpenMetrics exposition, report errors and speed",
     limitscope::cli::run_parse_metrics},
    {"bench-parse", "time parse-metrics against promtool on a generated exposition",
     limitscope::cli::run_bench_parse},
    {"test-rules", "run Prometheus rule unit-test files (promtool test rules format)",
     limitscope::cli::run_test_rules},
    {"loadgen", "play a traffic scenario against a gateway, open loop; statuses and latency",
     limitscope::cli::run_loadgen},
    {"decide", "one rate-limit decision made in Redis by the rule's script",
     limitscope::cli::run_decide},
    {"hammer", "many threads deciding on one key in Redis; counts admitted and rejected",
     limitscope::cli::run_hammer},
    {"bench-redis",
     "decisions/s and server time of the Redis scripts, beside INCR and a reference script",
     limitscope::cli::run_bench_redis},
    {"probe", "read limiter keys in a Redis (ours and other gateways' schemas) at server time",
     limitscope::cli::run_probe},
    {"bench-probe",
     "time the live refresh of N keys beside a plain reader; dashboard CPU, emptied-key latency",
     limitscope::cli::run_bench_probe},
    {"bench-session", "a long live session on an injected clock: resident memory, recording size",
     limitscope::cli::run_bench_session},
    {"replay", "replay a trace through one limiter setting", limitscope::cli::run_replay},
    {"sweep", "replay a trace against a grid of settings and recommend one",
     limitscope::cli::run_sweep},
    {"bench-sweep", "time a sweep against plain replays per setting",
     limitscope::cli::run_bench_sweep},
    {"compare", "the five algorithms on one trace at the same nominal limit",
     limitscope::cli::run_compare},
    {"config", "show and change a rule's live config in Redis, with audit and undo",
     limitscope::cli::run_config},
    {"shadow",
     "a candidate config beside a rule's live one, evaluated on every decision, never enforced",
     limitscope::cli::run_shadow},
    {"rollout", "enforce a rule's shadow config for a growing share of keys, with a guard",
     limitscope::cli::run_rollout},
    {"audit", "replica leaks, clock skew, Retry-After honesty (audit SUBJECT --help)",
     limitscope::cli::run_audit},
    {"whatif", "what-ifs over a trace: Redis outage, cost-aware routing (whatif SCENARIO --help)",
     limitscope::cli::run_whatif},
    {"key-names", "the key-names CSV of a policy's named keys, for limitscope --key-names",
     limitscope::cli::run_key_names},
};

void print_help(std::ostream& out) {
  out << "usage: limitscope-cli COMMAND [options]   (COMMAND --help for its options)\n"
         "       limitscope-cli --version\n\ncommands:\n";
  for (const auto& c : kCommands) {
    out << "  " << c.name << std::string(16 - c.name.size(), ' ') << c.summary << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help(std::cerr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_help(std::cout);
    return 0;
  }
  if (name == "--version") return run_version({});
  limitscope::cli::CommandArgs args(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (c.name == name) return c.run(args);
  }
  std::cerr << "limitscope-cli: unknown command \"" << name << "\"\n";
  print_help(std::cerr);
  return 2;
}
