// limitscope-cli whatif SCENARIO: what-ifs over a trace beyond one setting's replay
// (docs/tuner.md). Each scenario is its own file; this one only lists them.

#include "app/cli/commands.h"
#include "app/cli/subcommands.h"

namespace limitscope::cli {

int run_whatif(const CommandArgs& args) {
  static constexpr Subcommand kScenarios[] = {
      {"outage", "a Redis outage window under fail-open, fail-closed and a local fallback limiter",
       run_whatif_outage},
      {"routing", "requests estimated under N tokens go to model M: spend and 429s",
       run_whatif_routing},
  };
  return run_subcommand("whatif", "", kScenarios, args);
}

}  // namespace limitscope::cli
