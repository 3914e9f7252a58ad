// limitscope-cli audit SUBJECT: the audits no limiter offers (docs/audits.md). Each subject
// is its own file; this one only lists them.

#include "app/cli/commands.h"
#include "app/cli/subcommands.h"

namespace limitscope::cli {

int run_audit(const CommandArgs& args) {
  static constexpr Subcommand kSubjects[] = {
      {"replicas", "effective vs configured limits summed over gateway replicas (leaks)",
       run_audit_replicas},
      {"clock", "gateway clocks against Redis TIME and this workstation (skew)", run_audit_clock},
      {"retry-after", "Retry-After honesty from a rule's decision stream (lies, impatient clients)",
       run_audit_retry_after},
  };
  return run_subcommand("audit",
                        "exit: 0 nothing found, 1 the audit found a problem, 2 bad usage or input",
                        kSubjects, args);
}

}  // namespace limitscope::cli
