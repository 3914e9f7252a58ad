#pragma once
// The command-line layer of limitscope-cli's subcommands and of limitscope-gateway, on CLI11
// (libcli11-dev): `--name value`, `--name=value` and boolean `--flag`. Both programs parse,
// print help and report bad usage the same way: --help/-h prints the usage (exit 0); an
// unknown option, a missing value, a value on a flag or an option given twice is a usage error
// whose message names the flag (exit 2, docs/cli.md).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"

namespace limitscope::cli {

struct OptionSpec {
  std::string name;        // without the leading "--"
  std::string value_name;  // empty for a boolean flag
  std::string help;
  bool repeatable = false;
};

class Args {
 public:
  /// Parses argv after the subcommand name.
  /// @param command the subcommand ("simulate"), or "" for a program without subcommands
  /// @param program the program, printed in the usage line before `command`
  /// @return the options read (help_requested() when --help was given), or the usage error,
  ///         naming the flag
  static Expected<Args> parse(std::string_view command, std::string_view summary,
                              std::vector<OptionSpec> specs, const std::vector<std::string>& argv,
                              bool allow_positional = false,
                              std::string_view program = "limitscope-cli");

  bool help_requested() const { return help_; }
  const std::string& usage() const { return usage_; }

  bool has(std::string_view name) const;
  std::optional<std::string> get(std::string_view name) const;
  std::vector<std::string> all(std::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  Args() = default;

  std::multimap<std::string, std::string, std::less<>> values_;
  std::vector<std::string> positional_;
  std::string usage_;
  bool help_ = false;
};

/// What every command does first with what Args::parse() returned: on --help prints the usage
/// (exit 0); on a usage error prints it as `command`'s (exit 2).
/// @return the exit code when the command is done, nullopt when it should run (then `parsed`
///         holds the options)
std::optional<int> early_exit(const Expected<Args>& parsed, std::string_view command);

/// A command that is done before it ran: its help or a usage error was printed; exit with
/// `code` (0 after --help, 2 after a usage error).
struct Exit {
  int code = 0;
};

/// Prints "limitscope-cli CMD: MESSAGE" on stderr and returns 2 (bad usage or input).
int usage_error(std::string_view command, std::string_view message);

}  // namespace limitscope::cli
