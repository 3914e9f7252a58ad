#pragma once
// A small, strict option parser for limitscope-cli subcommands: `--name value`, `--name=value`
// and boolean `--flag`. Unknown options and missing values are usage errors (exit 2).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace limitscope::cli {

struct OptionSpec {
  std::string name;         // without the leading "--"
  std::string value_name;   // empty for a boolean flag
  std::string help;
  bool repeatable = false;
};

class Args {
 public:
  /// Parses argv after the subcommand name. On failure error() is set and ok() is false.
  Args(std::string_view command, std::string_view summary, std::vector<OptionSpec> specs,
       const std::vector<std::string>& argv, bool allow_positional = false);

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool help_requested() const { return help_; }
  std::string usage() const;

  bool has(std::string_view name) const;
  std::optional<std::string> get(std::string_view name) const;
  std::vector<std::string> all(std::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::string command_;
  std::string summary_;
  std::vector<OptionSpec> specs_;
  std::multimap<std::string, std::string, std::less<>> values_;
  std::vector<std::string> positional_;
  std::string error_;
  bool help_ = false;
};

/// Prints "limitscope-cli CMD: MESSAGE" on stderr and returns 2 (bad usage or input).
int usage_error(std::string_view command, std::string_view message);

}  // namespace limitscope::cli
