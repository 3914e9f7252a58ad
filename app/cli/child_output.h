#pragma once
// Runs another program the safe way: an argv vector (no shell, so no argument is ever parsed as
// shell syntax), secrets passed through the environment (never on the command line, where `ps`
// shows them), stdout and stderr captured together.

#include <string>
#include <utility>
#include <vector>

#include "core/common/expected.h"

namespace limitscope::cli {

struct ChildOutput {
  int exit_code = -1;  // -1 when it died of a signal
  std::string output;  // stdout and stderr, interleaved as written
};

/// Runs argv[0] (looked up in PATH) with argv, this process's environment plus `env` (NAME,
/// value; replacing a variable of the same name), and waits for it.
/// @return its exit code and output, or why it could not be started
Expected<ChildOutput> run_and_capture(const std::vector<std::string>& argv,
                                      const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace limitscope::cli
