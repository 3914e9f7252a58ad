// Verifies `limitscope-cli parse-metrics` and `bench-parse` end to end: exit codes 0/1/2,
// the documented JSON keys, line-numbered errors, and --help.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope {
namespace {

using Result = test::ProcessResult;
using test::quoted;
using test::read_file;
using test::temp_path;
using test::write_temp;

// Runs limitscope-cli with the given arguments (shell words, quoted by the caller).
Result cli(const std::string& args) {
  return test::run_cli(args);
}

TEST(ParseMetricsCli, CleanFileExitsZeroWithEveryJsonKey) {
  const Result r =
      cli("parse-metrics --json " + quoted(test::data_path("metrics/valid/gateway.prom")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"file", "format", "bytes", "lines", "families", "series", "samples",
                          "error_count", "errors", "parse_ms", "mb_per_s"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["format"], "prometheus");
  EXPECT_EQ(j["samples"], 20);
  EXPECT_EQ(j["series"], 20);
  EXPECT_EQ(j["families"], 7);
  EXPECT_EQ(j["error_count"], 0);
  EXPECT_TRUE(j["errors"].empty());
}

TEST(ParseMetricsCli, OpenMetricsIsDetected) {
  const Result r =
      cli("parse-metrics --json " + quoted(test::data_path("metrics/valid/gateway.om.txt")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["format"], "openmetrics");
}

TEST(ParseMetricsCli, ErrorsExitOneWithLineNumbers) {
  const std::string path = write_temp("bad.prom", "a 1\nb{x=\"1\" 2\nc three\nd 4\n");
  Result r = cli("parse-metrics --json " + quoted(path));
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["error_count"], 2);
  EXPECT_EQ(j["samples"], 2);
  ASSERT_EQ(j["errors"].size(), 2u);
  EXPECT_EQ(j["errors"][0]["line"], 2);
  EXPECT_EQ(j["errors"][1]["line"], 3);
  EXPECT_NE(j["errors"][1]["message"].get<std::string>().find("three"), std::string::npos);

  r = cli("parse-metrics " + quoted(path));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("line 3: "), std::string::npos) << r.out;
}

TEST(ParseMetricsCli, FormatOptionForcesTheFormat) {
  const std::string path = write_temp("no_eof.txt", "a 1\n");
  EXPECT_EQ(cli("parse-metrics --format prometheus " + quoted(path)).exit_code, 0);
  const Result r = cli("parse-metrics --json --format openmetrics " + quoted(path));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("missing \\\"# EOF\\\""), std::string::npos) << r.out;
}

struct UsageRow {
  const char* args;
  const char* in_error;
};

class ParseMetricsUsage : public ::testing::TestWithParam<UsageRow> {};

TEST_P(ParseMetricsUsage, ExitsTwoWithOneLineNamingTheInput) {
  const Result r = cli(GetParam().args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(GetParam().in_error), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, ParseMetricsUsage,
    ::testing::Values(UsageRow{"parse-metrics /nonexistent/x.prom", "/nonexistent/x.prom"},
                      UsageRow{"parse-metrics /", "is a directory"},
                      UsageRow{"parse-metrics", "exactly one FILE"},
                      UsageRow{"parse-metrics a b", "exactly one FILE"},
                      UsageRow{"parse-metrics --format xml f", "--format \"xml\""},
                      UsageRow{"parse-metrics --bogus f", "--bogus"},
                      UsageRow{"bench-parse --series 3", "--series"},
                      UsageRow{"bench-parse --runs 0", "--runs"}),
    [](const auto& row) { return std::to_string(row.index); });

TEST(ParseMetricsCli, HelpExitsZero) {
  for (const char* cmd : {"parse-metrics --help", "bench-parse --help"}) {
    const Result r = cli(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("usage:"), std::string::npos) << cmd;
  }
}

TEST(BenchParseCli, SmallRunReportsOursAndPromtoolOrItsAbsence) {
  const std::string kept = temp_path("bench.prom");
  const Result r = cli("bench-parse --series 300 --runs 1 --json --keep " + quoted(kept));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["series"], 300);
  for (const char* key : {"tool", "runs_s", "best_s", "median_s", "best_cpu_s", "mb_per_s",
                          "samples_per_s", "exit_code"}) {
    EXPECT_TRUE(j["ours"].contains(key)) << key;
  }
  EXPECT_EQ(j["ours"]["exit_code"], 0);
  EXPECT_TRUE(j.contains("promtool"));
  EXPECT_TRUE(j.contains("ratio"));
  EXPECT_TRUE(j.contains("cpu_ratio"));
  // The kept file is the one that was timed: it parses clean.
  EXPECT_EQ(cli("parse-metrics " + quoted(kept)).exit_code, 0);
}

// Bytes that are not UTF-8, in the file's name, a label name and a label value: the JSON is
// still written (invalid bytes as U+FFFD) where it used to abort, and the value is an error.
TEST(ParseMetricsCli, JsonSurvivesBytesThatAreNotUtf8) {
  const std::string path = temp_path("caf\xe9.prom");
  {
    std::ofstream out(path, std::ios::binary);
    out << "ok 1\nm{caf\xe9=\"x\"} 2\nn{k=\"\xff\xfe\"} 3\n";
  }
  const Result r = cli("parse-metrics --json " + quoted(path));
  ASSERT_EQ(r.exit_code, 1) << "parsed with errors, no crash: " << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["samples"], 1);
  ASSERT_EQ(j["error_count"], 2);
  EXPECT_NE(j["errors"][1]["message"].get<std::string>().find("not valid UTF-8"), std::string::npos)
      << r.out;
  EXPECT_NE(j["file"].get<std::string>().find("\xef\xbf\xbd"), std::string::npos) << r.out;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace limitscope
