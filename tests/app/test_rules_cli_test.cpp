// Verifies `limitscope-cli test-rules` end to end and against promtool: for every rule
// unit-test file under tests/data/rules both tools must reach the same verdict, and for the
// deliberately failing files print the same differences.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope {
namespace {

constexpr const char* kPromtool = "/usr/bin/promtool";

using Result = test::ProcessResult;
using test::quoted;
using test::read_file;

Result run(const std::string& program, const std::string& args) {
  return test::run_process(program, args);
}

Result cli(const std::string& args) {
  return test::run_cli("test-rules " + args);
}

std::vector<std::string> test_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::data_path("rules"))) {
    const std::string p = e.path().string();
    if (e.is_regular_file() && p.size() > 9 && p.compare(p.size() - 9, 9, "_test.yml") == 0) {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool under_malformed(const std::string& path) {
  return path.find("/rules/malformed/") != std::string::npos;
}
bool deliberately_failing(const std::string& path) {
  return std::filesystem::path(path).filename().string().rfind("failing_", 0) == 0;
}

std::string without_blank_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (!line.empty()) out += line + "\n";
  }
  return out;
}

TEST(TestRulesCli, SameVerdictAsPromtoolForEveryDataFile) {
  ASSERT_TRUE(std::filesystem::exists(kPromtool))
      << kPromtool << " is missing: install the Debian package `prometheus` (scripts/test does) "
      << "so limitscope's rule tests can be checked against promtool";
  const auto files = test_files();
  ASSERT_GE(files.size(), 10u) << "tests/data/rules lost its test files";
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const Result ours = cli(quoted(f));
    const Result theirs = run(kPromtool, "test rules " + quoted(f));
    if (under_malformed(f)) {
      // promtool reports every unusable input as a failed test (exit 1); limitscope-cli
      // says "bad input" (exit 2), per the CLI contract. Both refuse the file.
      EXPECT_EQ(theirs.exit_code, 1) << theirs.err;
      EXPECT_EQ(ours.exit_code, 2) << ours.err;
      EXPECT_NE(ours.err.find("limitscope-cli test-rules: "), std::string::npos) << ours.err;
      continue;
    }
    EXPECT_EQ(ours.exit_code, theirs.exit_code) << "ours:\n"
                                                << ours.err << "\npromtool:\n"
                                                << theirs.err;
    EXPECT_EQ(ours.exit_code, deliberately_failing(f) ? 1 : 0) << ours.err;
    if (deliberately_failing(f)) {
      EXPECT_EQ(without_blank_lines(ours.err), without_blank_lines(theirs.err));
    }
  }
}

TEST(TestRulesCli, PrintsPromtoolStyleSuccessAndFailure) {
  const std::string pass = test::data_path("rules/pending_firing_test.yml");
  const Result ok = cli(quoted(pass));
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "Unit Testing:  " + pass + "\n  SUCCESS\n\n");

  const Result bad = cli(quoted(test::data_path("rules/failing_pending_listed_test.yml")));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("  FAILED:\n    alertname: BucketLow, time: 3m, \n        exp:[\n"),
            std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("got:[]"), std::string::npos) << bad.err;
}

TEST(TestRulesCli, ExitCodeIsTheWorstOfAllFiles) {
  const std::string pass = quoted(test::data_path("rules/recording_test.yml"));
  const std::string fail = quoted(test::data_path("rules/failing_eval_error_test.yml"));
  const std::string malformed = quoted(test::data_path("rules/malformed/bad_series_test.yml"));
  EXPECT_EQ(cli(pass + " " + pass).exit_code, 0);
  EXPECT_EQ(cli(pass + " " + fail).exit_code, 1);
  EXPECT_EQ(cli(fail + " " + malformed + " " + pass).exit_code, 2);
}

TEST(TestRulesCli, UsageAndUnreadableInput) {
  const Result help = cli("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("test-rules"), std::string::npos);
  const Result none = cli("");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("expects at least one FILE"), std::string::npos);
  const Result missing = cli("/nonexistent/rules_test.yml");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/rules_test.yml: cannot read test file"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(cli("--bogus x.yml").exit_code, 2);
}

// Hostile input is refused with an error naming it, never read or run without end: a test or
// rule file that never ends (/dev/zero), an eval_time of years.
TEST(TestRulesCli, EndlessFilesAndEvalTimesAreInputErrors) {
  const Result zero = cli("/dev/zero");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("/dev/zero: test file larger than"), std::string::npos) << zero.err;

  const std::string rules_zero = test::write_temp("rules_dev_zero_test.yml",
                                                  "rule_files: [/dev/zero]\n"
                                                  "tests:\n"
                                                  "  - input_series: []\n");
  const Result rule_zero = cli(quoted(rules_zero));
  EXPECT_EQ(rule_zero.exit_code, 2);
  EXPECT_NE(rule_zero.err.find("/dev/zero: rule file larger than"), std::string::npos)
      << rule_zero.err;

  const std::string forever = test::write_temp("eval_time_forever_test.yml",
                                               "evaluation_interval: 1m\n"
                                               "tests:\n"
                                               "  - interval: 1m\n"
                                               "    input_series:\n"
                                               "      - series: 'up'\n"
                                               "        values: '1'\n"
                                               "    promql_expr_test:\n"
                                               "      - expr: up\n"
                                               "        eval_time: 100000d\n"
                                               "        exp_samples: []\n");
  const Result years = cli(quoted(forever));
  EXPECT_EQ(years.exit_code, 2);
  EXPECT_NE(years.err.find("evaluation steps of evaluation_interval 1m; at most 1000000"),
            std::string::npos)
      << years.err;
}

TEST(TestRulesCli, JsonReportHasDocumentedKeys) {
  const std::string pass = test::data_path("rules/keep_firing_for_test.yml");
  const std::string fail = test::data_path("rules/failing_promql_test.yml");
  const Result r = cli("--json " + quoted(pass) + " " + quoted(fail));
  EXPECT_EQ(r.exit_code, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("total"), 2);
  EXPECT_EQ(j.at("passed"), 1);
  ASSERT_EQ(j.at("files").size(), 2u);
  EXPECT_EQ(j["files"][0].at("file"), pass);
  EXPECT_EQ(j["files"][0].at("verdict"), "passed");
  EXPECT_TRUE(j["files"][0].at("failures").empty());
  EXPECT_EQ(j["files"][1].at("verdict"), "failed");
  EXPECT_EQ(j["files"][1].at("failures").size(), 3u);
  EXPECT_EQ(j["files"][1].at("error"), "");
}

}  // namespace
}  // namespace limitscope
