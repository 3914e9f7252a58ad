// The usage contract of both programs (docs/cli.md, docs/gateway.md), on the built binaries:
// every subcommand and subject of limitscope-cli, and limitscope-gateway, print their usage on
// --help (exit 0) and refuse an unknown option, a missing value or an option given twice
// with exit 2 and a message naming the flag. The shared Redis options read the same in both.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_usage.h"
#include "support/process.h"

namespace limitscope {
namespace {

using test::ProcessResult;

test::ProcessResult run_gateway(const std::string& args) {
  return test::run_process(std::string(LIMITSCOPE_BINARY_DIR) + "/app/limitscope-gateway", args);
}

/// The names listed under `header` ("commands:", "subjects:") in a help text.
std::vector<std::string> listed(const std::string& help, const std::string& header) {
  std::vector<std::string> names;
  std::istringstream in(help.substr(help.find(header) + header.size()));
  std::string line;
  std::getline(in, line);  // the rest of the header line
  while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  return names;
}

/// The line of a help text that lists `flag`.
std::string help_line(const std::string& help, const std::string& flag) {
  const auto at = help.find("  " + flag + " ");
  if (at == std::string::npos) return "";
  return help.substr(at, help.find('\n', at) - at);
}

/// `r` is a usage error (exit 2) of one line that names `names`.
void expect_usage_error(const ProcessResult& r, const std::string& args, const std::string& names) {
  EXPECT_EQ(r.exit_code, 2) << args;
  EXPECT_NE(r.err.find(names), std::string::npos) << args << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
}

/// Every command line that takes options: "simulate", "audit replicas", ...
std::vector<std::string> every_command() {
  const ProcessResult top = test::run_cli("--help");
  EXPECT_EQ(top.exit_code, 0);
  std::vector<std::string> out;
  for (const auto& name : listed(top.out, "commands:")) {
    const ProcessResult help = test::run_cli(name + " --help");
    if (help.out.find("subjects:") == std::string::npos) {
      out.push_back(name);
      continue;
    }
    for (const auto& subject : listed(help.out, "subjects:")) out.push_back(name + " " + subject);
  }
  return out;
}

TEST(UsageCli, EveryCommandHasHelpAndRefusesUnknownOptionsNamingThem) {
  const auto commands = every_command();
  ASSERT_GT(commands.size(), 25u);  // 22 commands, config/shadow/rollout/audit/whatif subjects
  for (const auto& command : commands) {
    const ProcessResult help = test::run_cli(command + " --help");
    EXPECT_EQ(help.exit_code, 0) << command << help.err;
    EXPECT_EQ(help.out.rfind("usage: limitscope-cli " + command, 0), 0u)
        << command << ": " << help.out;

    const ProcessResult unknown = test::run_cli(command + " --no-such-flag");
    expect_usage_error(unknown, command, "--no-such-flag");
    EXPECT_EQ(unknown.err.rfind("limitscope-cli " + command + ": ", 0), 0u)
        << command << ": " << unknown.err;
  }
}

TEST(UsageCli, MissingValuesRepeatsAndValuesOnFlagsAreUsageErrorsNamingTheFlag) {
  test::expect_usage_errors_of(
      test::run_cli,
      {
          {"decide --redis redis://127.0.0.1:1 --rule pro --key k --cost", "--cost"},
          {"decide --rule a --rule b", "--rule"},
          {"decide --json=false", "--json"},
          {"config get --redis redis://127.0.0.1:1 --rule pro --timeout", "--timeout"},
          {"simulate --scenario steady --seed", "--seed"},
          {"simulate --scenario steady extra", "extra"},
          {"probe -x", "-x"},
      },
      /*one_line=*/true);
}

TEST(UsageCli, ConfigTakesTheSharedRedisOptionsAndTheirOlderSpellings) {
  const ProcessResult help = test::run_cli("config get --help");
  const ProcessResult decide = test::run_cli("decide --help");
  for (const char* flag : {"--redis-timeout", "--redis-prefix", "--redis-password-file"}) {
    EXPECT_NE(help_line(help.out, flag), "") << flag << " in\n" << help.out;
    EXPECT_EQ(help_line(help.out, flag), help_line(decide.out, flag)) << flag;
  }
  EXPECT_NE(help_line(help.out, "--redis-timeout").find("default 500ms"), std::string::npos);
  EXPECT_EQ(help_line(help.out, "--redis-failure-mode"), "") << "config makes no decisions";
  // Both spellings of one option are refused; the errors name the flag as typed.
  const ProcessResult both = test::run_cli(
      "config get --redis redis://127.0.0.1:1 --rule pro --timeout 1s --redis-timeout 2s");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("give one of --redis-timeout and --timeout"), std::string::npos)
      << both.err;
  const ProcessResult bad =
      test::run_cli("shadow show --redis redis://127.0.0.1:1 --rule pro --timeout 2h");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--timeout '2h': must be between 1ms and 1m"), std::string::npos)
      << bad.err;
  const ProcessResult bad_new =
      test::run_cli("rollout status --redis redis://127.0.0.1:1 --rule pro --redis-prefix 'a{b'");
  EXPECT_EQ(bad_new.exit_code, 2);
  EXPECT_NE(bad_new.err.find("--redis-prefix"), std::string::npos) << bad_new.err;
}

TEST(UsageGateway, HelpAndUsageErrorsAsTheCli) {
  const ProcessResult help = run_gateway("--help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out.rfind("usage: limitscope-gateway [options]\n", 0), 0u) << help.out;
  const ProcessResult decide = test::run_cli("decide --help");
  for (const char* flag : {"--redis", "--redis-password-file", "--redis-prefix", "--redis-timeout",
                           "--redis-failure-mode"}) {
    EXPECT_NE(help_line(help.out, flag), "") << flag << " in\n" << help.out;
    EXPECT_EQ(help_line(help.out, flag), help_line(decide.out, flag)) << flag;
  }
  EXPECT_EQ(help_line(help.out, "--timeout"), "") << "the CLI's older spellings are the CLI's";

  const struct {
    std::string args;
    std::string names;
  } rows[] = {
      {"--listen 127.0.0.1:0 --mock-upstream --no-such-flag", "--no-such-flag"},
      {"--listen 127.0.0.1:0 --mock-upstream --redis-timeout", "--redis-timeout"},
      {"--listen 127.0.0.1:0 --listen 127.0.0.1:1 --mock-upstream", "--listen"},
      {"--listen 127.0.0.1:0 --mock-upstream=yes", "--mock-upstream"},
      {"--listen 127.0.0.1:0 --mock-upstream --timeout 1s", "--timeout"},
  };
  for (const auto& row : rows) {
    const ProcessResult r = run_gateway(row.args);
    expect_usage_error(r, row.args, row.names);
    EXPECT_EQ(r.err.rfind("limitscope-gateway: ", 0), 0u) << row.args << ": " << r.err;
  }
}

}  // namespace
}  // namespace limitscope
