#pragma once
// Commands with subjects of their own (`audit replicas`, `whatif outage`): a table of
// subjects, help listing them, and the 0/1/2 contract kept by each subject's run().

#include <iosfwd>
#include <span>
#include <string_view>

#include "app/cli/commands.h"

namespace limitscope::cli {

struct Subcommand {
  std::string_view name;
  std::string_view summary;
  int (*run)(const CommandArgs&);
};

/// Runs the subject named by args[0] with the rest; `--help` lists the subjects (exit 0), a
/// missing or unknown subject is exit 2 with the list on stderr.
/// @param command e.g. "audit"; @param note a line printed under the usage, or empty
int run_subcommand(std::string_view command, std::string_view note,
                   std::span<const Subcommand> subjects, const CommandArgs& args);

}  // namespace limitscope::cli
