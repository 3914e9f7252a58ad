#pragma once
// The rule unit-test files `promtool test rules` reads (Prometheus 2.42 format): rule_files
// (relative to the test file, globs allowed), evaluation_interval (default 1m),
// group_eval_order, and tests with interval, input_series in the expanding notation,
// alert_rule_test and promql_expr_test. Unknown keys are errors, as in promtool.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"
#include "core/metrics/labels.h"

namespace limitscope::metrics {

struct InputSeries {
  Labels labels;
  /// One entry per step of the test interval from t=0; nullopt = no sample at that step
  /// (`_`); a stale marker (series_store.h) for `stale`.
  std::vector<std::optional<double>> values;
};

struct ExpectedAlert {
  Labels labels;  ///< exp_labels plus alertname
  Labels annotations;
};

struct AlertTestCase {
  std::int64_t eval_time_ms = 0;
  std::string eval_time_text;  ///< as promtool prints it ("2m")
  std::string alertname;
  std::vector<ExpectedAlert> exp_alerts;
};

struct ExpectedSample {
  Labels labels;
  double value = 0;
};

struct PromqlTestCase {
  std::string expr;
  std::int64_t eval_time_ms = 0;
  std::string eval_time_text;
  std::vector<ExpectedSample> exp_samples;
};

struct RuleTestGroup {
  std::string name;
  std::int64_t interval_ms = 0;  ///< input-series step; 0: the file's evaluation_interval
  std::vector<InputSeries> input_series;
  std::vector<AlertTestCase> alert_tests;
  std::vector<PromqlTestCase> promql_tests;
  Labels external_labels;
  std::string external_url;
};

struct RuleTestFile {
  std::string path;
  std::vector<std::string> rule_files;  ///< resolved against the test file's directory, globbed
  std::int64_t evaluation_interval_ms = 60'000;
  std::vector<std::string> group_eval_order;
  std::vector<RuleTestGroup> tests;
};

/// Expands a promtool value sequence: "1 2 3", "0+10x100" (101 values), "1-2x3", "5x3"
/// (4 values), "_" (no sample), "_x3" (3 steps without samples), "stale", "Inf", "NaN".
/// @return the values, or an error naming the item that does not parse.
Expected<std::vector<std::optional<double>>> expand_series_values(std::string_view text);

/// Parses a series identity `name{a="x", b="y"}`, `{a="x"}` or `name` (promql ParseMetric).
Expected<Labels> parse_metric(std::string_view text);

/// Parses a test file.
/// @param path names it in errors and anchors relative rule_files (its directory).
/// @return the file, or "PATH:LINE: REASON" / "PATH: REASON".
Expected<RuleTestFile> parse_rule_test_file(std::string_view text, const std::string& path);
/// The largest test file read (bytes): /dev/zero or a huge file is an error, not a hang.
inline constexpr std::size_t kMaxRuleTestFileBytes = 64u << 20;
/// The most evaluation steps (eval_time / evaluation_interval + 1) a test group may need: an
/// eval_time of years at 1m is an input error, not a run without end.
inline constexpr std::int64_t kMaxEvaluationSteps = 1'000'000;
/// Reads and parses a test file. @return an error naming the path when unreadable or larger
/// than kMaxRuleTestFileBytes.
Expected<RuleTestFile> load_rule_test_file(const std::string& path);

/// Go's time.Duration String for milliseconds ("0s", "1m0s", "1h0m0s", "1.5s", "500ms"), as
/// promtool prints the time of a rule evaluation error.
std::string go_duration_string(std::int64_t ms);

}  // namespace limitscope::metrics
