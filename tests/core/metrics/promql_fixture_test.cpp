// Verifies the hand-computed promtool unit-test fixtures in tests/data/promql/: promtool accepts
// each file, and limitscope's evaluator gives exactly the expected samples of every
// promql_expr_test (the files are read with the shared promtool test-file parser).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/metrics/promql.h"
#include "core/metrics/promtool_test_file.h"

namespace limitscope::metrics {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> fixture_files() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(fs::path(LIMITSCOPE_TEST_DATA_DIR) / "promql")) {
    if (entry.path().extension() == ".yml") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string describe(std::vector<ExpectedSample> v) {
  std::sort(v.begin(), v.end(),
            [](const ExpectedSample& a, const ExpectedSample& b) { return a.labels < b.labels; });
  std::string out;
  for (const ExpectedSample& s : v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", s.value);
    out += (s.labels.empty() ? std::string("{}") : s.labels.to_string()) + " " + buf + "; ";
  }
  return out;
}

TEST(PromqlFixtureTest, FixturesExist) {
  EXPECT_GE(fixture_files().size(), 3u);
}

TEST(PromqlFixtureTest, EvaluatorGivesTheExpectedSamples) {
  for (const std::string& path : fixture_files()) {
    auto file = load_rule_test_file(path);
    ASSERT_TRUE(file.ok()) << file.error();
    for (const RuleTestGroup& group : file->tests) {
      std::int64_t step = group.interval_ms > 0 ? group.interval_ms : file->evaluation_interval_ms;
      SeriesStore store;
      for (const InputSeries& in : group.input_series) {
        for (std::size_t i = 0; i < in.values.size(); ++i) {
          if (!in.values[i]) continue;
          std::int64_t t = static_cast<std::int64_t>(i) * step;
          auto r = is_stale_marker(*in.values[i]) ? store.append_stale(in.labels, t)
                                                  : store.append(in.labels, {t, *in.values[i]});
          ASSERT_TRUE(r.ok()) << path << ": " << r.reason;
        }
      }
      for (const PromqlTestCase& tc : group.promql_tests) {
        auto expr = parse_promql(tc.expr);
        ASSERT_TRUE(expr.ok()) << path << ": " << tc.expr << ": " << expr.error();
        auto got = evaluate(**expr, store, tc.eval_time_ms);
        ASSERT_TRUE(got.ok()) << path << ": " << tc.expr << ": " << got.error();
        std::vector<ExpectedSample> got_samples;
        if (got->kind == QueryValue::Kind::scalar) {
          got_samples.push_back({Labels{}, got->scalar});
        } else {
          for (const InstantSample& s : got->vector) got_samples.push_back({s.labels, s.value});
        }
        EXPECT_EQ(describe(got_samples), describe(tc.exp_samples))
            << path << ": " << tc.expr << " at " << tc.eval_time_text;
      }
    }
  }
}

TEST(PromqlFixtureTest, PromtoolAcceptsEveryFixture) {
  ASSERT_TRUE(fs::exists("/usr/bin/promtool"))
      << "/usr/bin/promtool is missing: install Debian package prometheus (scripts/test does)";
  for (const std::string& path : fixture_files()) {
    std::string cmd = "/usr/bin/promtool test rules " + path + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    EXPECT_EQ(pclose(p), 0) << path << ":\n" << out;
  }
}

}  // namespace
}  // namespace limitscope::metrics
