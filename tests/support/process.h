#pragma once
// Runs a built program (or promtool) the way an operator's shell would, for end-to-end CLI
// tests. Temp files are per process: ctest runs each test as its own process, several at once.

#include <string>

namespace limitscope::test {

struct ProcessResult {
  int exit_code = -1;  // -1 when the program did not exit normally
  std::string out;
  std::string err;
};

/// Runs `program` with `args` (shell words, quoted by the caller) and collects its stdout,
/// stderr and exit code.
ProcessResult run_process(const std::string& program, const std::string& args);
/// Runs the built limitscope-cli with `args`.
ProcessResult run_cli(const std::string& args);

/// A path in the test temp directory, unique to this process.
std::string temp_path(const std::string& name);
/// Writes `text` to temp_path(name) and returns the path.
std::string write_temp(const std::string& name, const std::string& text);
std::string read_file(const std::string& path);
/// 'path' quoted for the shell (paths here never contain a quote).
std::string quoted(const std::string& s);

}  // namespace limitscope::test
