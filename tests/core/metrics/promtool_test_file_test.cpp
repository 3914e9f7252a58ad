// Verifies promtool test-file parsing: the expanding series notation, series identities,
// Go duration strings, and refusals of malformed files.

#include "core/metrics/promtool_test_file.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/metrics/series_store.h"

namespace limitscope::metrics {
namespace {

using Values = std::vector<std::optional<double>>;

TEST(PromtoolTestFile, ExpandsSeriesNotation) {
  const struct {
    const char* text;
    Values expected;
  } rows[] = {
      {"1 2 3", {1, 2, 3}},
      {"0+10x3", {0, 10, 20, 30}},
      {"1-2x3", {1, -1, -3, -5}},
      {"-1+1x2", {-1, 0, 1}},
      {"5x3", {5, 5, 5, 5}},
      {"1 _x3 2", {1, std::nullopt, std::nullopt, std::nullopt, 2}},
      {"_ 1 _", {std::nullopt, 1, std::nullopt}},
      {"1e3+1e3x1", {1000, 2000}},
      {"", {}},
  };
  for (const auto& r : rows) {
    auto v = expand_series_values(r.text);
    ASSERT_TRUE(v.ok()) << r.text << ": " << v.error();
    EXPECT_EQ(*v, r.expected) << r.text;
  }
  auto special = expand_series_values("stale Inf -Inf NaN");
  ASSERT_TRUE(special.ok());
  ASSERT_EQ(special->size(), 4u);
  EXPECT_TRUE(is_stale_marker(*(*special)[0]));
  EXPECT_TRUE(std::isinf(*(*special)[1]) && *(*special)[1] > 0);
  EXPECT_TRUE(std::isinf(*(*special)[2]) && *(*special)[2] < 0);
  EXPECT_TRUE(std::isnan(*(*special)[3]) && !is_stale_marker(*(*special)[3]));
}

TEST(PromtoolTestFile, RefusesBadSeriesValues) {
  for (const char* text : {"two", "1+x3", "1+2x", "_x", "stalex3", "1 +", "0+10x99999999"}) {
    EXPECT_FALSE(expand_series_values(text).ok()) << text;
  }
  EXPECT_EQ(expand_series_values("0 1 two").error(),
            "bad series value \"two\": invalid value \"two\"");
}

TEST(PromtoolTestFile, ParsesSeriesIdentities) {
  EXPECT_EQ(*parse_metric("up"), (Labels{{"__name__", "up"}}));
  EXPECT_EQ(*parse_metric("x{a=\"1\", b=\"q\\\"\"}"),
            (Labels{{"__name__", "x"}, {"a", "1"}, {"b", "q\""}}));
  EXPECT_EQ(*parse_metric("{}"), Labels{});
  EXPECT_EQ(*parse_metric("{a=\"1\",}"), (Labels{{"a", "1"}}));
  EXPECT_EQ(*parse_metric("tier:hits:rate5m{tier=\"free\"}"),
            (Labels{{"__name__", "tier:hits:rate5m"}, {"tier", "free"}}));
  for (const char* bad : {"", "x{a=1}", "x{a=\"1\"", "x{a=\"1\",a=\"2\"}", "x y", "{9=\"a\"}"}) {
    EXPECT_FALSE(parse_metric(bad).ok()) << bad;
  }
}

TEST(PromtoolTestFile, GoDurationStrings) {
  const struct {
    std::int64_t ms;
    const char* text;
  } rows[] = {{0, "0s"},         {500, "500ms"},        {1500, "1.5s"},           {60'000, "1m0s"},
              {90'000, "1m30s"}, {3'600'000, "1h0m0s"}, {3'661'001, "1h1m1.001s"}};
  for (const auto& r : rows) EXPECT_EQ(go_duration_string(r.ms), r.text);
}

TEST(PromtoolTestFile, ParsesAWholeFile) {
  const char* text = R"(rule_files: [a.yml, /abs/b.yml]
evaluation_interval: 30s
group_eval_order: [g1, g2]
tests:
  - name: t
    interval: 15s
    external_labels: {region: eu}
    external_url: http://x
    input_series:
      - series: 'up{job="a"}'
        values: '1 0'
    alert_rule_test:
      - eval_time: 1m
        alertname: Down
        exp_alerts:
          - exp_labels: {job: a}
            exp_annotations: {summary: s}
    promql_expr_test:
      - expr: up
        eval_time: 90s
        exp_samples:
          - labels: 'up{job="a"}'
            value: 0
)";
  auto f = parse_rule_test_file(text, "/nowhere/t_test.yml");
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_TRUE(f->rule_files.empty());  // neither glob matches a file: dropped as promtool does
  EXPECT_EQ(f->evaluation_interval_ms, 30'000);
  EXPECT_EQ(f->group_eval_order, (std::vector<std::string>{"g1", "g2"}));
  ASSERT_EQ(f->tests.size(), 1u);
  const auto& t = f->tests[0];
  EXPECT_EQ(t.name, "t");
  EXPECT_EQ(t.interval_ms, 15'000);
  EXPECT_EQ(t.external_labels.get("region"), "eu");
  ASSERT_EQ(t.input_series.size(), 1u);
  EXPECT_EQ(t.input_series[0].values, (Values{1, 0}));
  ASSERT_EQ(t.alert_tests.size(), 1u);
  EXPECT_EQ(t.alert_tests[0].eval_time_text, "1m");
  EXPECT_EQ(t.alert_tests[0].exp_alerts.at(0).labels,
            (Labels{{"alertname", "Down"}, {"job", "a"}}));
  ASSERT_EQ(t.promql_tests.size(), 1u);
  EXPECT_EQ(t.promql_tests[0].eval_time_text, "1m30s");
  EXPECT_EQ(t.promql_tests[0].exp_samples.at(0).labels, (Labels{{"__name__", "up"}, {"job", "a"}}));
}

TEST(PromtoolTestFile, DefaultsAndRefusals) {
  auto f = parse_rule_test_file("tests: []\n", "t.yml");
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(f->evaluation_interval_ms, 60'000);
  const struct {
    const char* text;
    const char* error;
  } rows[] = {
      {"bogus: 1\n", "t.yml:1: field bogus not found in main.unitTestFile"},
      {"evaluation_interval: 5\n",
       "t.yml:1: evaluation_interval: not a valid duration string: \"5\""},
      {"tests:\n- input_series:\n  - series: 'x'\n    values: 'a'\n",
       "t.yml:4: bad series value \"a\": invalid value \"a\""},
      {"tests:\n- alert_rule_test:\n  - eval_time: 1m\n",
       "t.yml:3: an item under alert_rule_test misses required attribute alertname at eval_time "
       "1m"},
      {"tests:\n- input_series:\n  - series: '{a=\"b\"}'\n    values: '1'\n",
       "t.yml:3: series \"{a=\"b\"}\" has no metric name"},
      {"tests:\n- promql_expr_test:\n  - expr: up\n    exp_samples:\n    - labels: up\n      "
       "value: NaN\n",
       "t.yml:6: cannot unmarshal \"NaN\" into float64"},
      {"tests: 3\n", "t.yml:1: tests must be a list"},
  };
  for (const auto& r : rows) {
    auto bad = parse_rule_test_file(r.text, "t.yml");
    ASSERT_FALSE(bad.ok()) << r.text;
    EXPECT_EQ(bad.error(), r.error) << r.text;
  }
  EXPECT_FALSE(load_rule_test_file("/nonexistent/t.yml").ok());
}

}  // namespace
}  // namespace limitscope::metrics
