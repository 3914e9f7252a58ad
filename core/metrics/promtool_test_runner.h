#pragma once
// Runs a rule unit-test file the way `promtool test rules` (Prometheus 2.42) does:
//  - each test group loads the rule files afresh and its input series (step = the group's
//    interval, default evaluation_interval) into a new SeriesStore;
//  - every group (in group_eval_order, file order otherwise) is evaluated at
//    t = 0, evaluation_interval, ... up to the largest eval_time of the group's tests;
//  - an alert_rule_test at eval_time T is checked against the evaluation at the step ts with
//    ts <= T < ts + evaluation_interval, comparing FIRING alerts only (pending ones are not
//    listed) by labels and annotations, exactly;
//  - a promql_expr_test queries the store (inputs plus everything the rules wrote, ALERTS
//    included) at eval_time and compares samples by labels and exact value;
//  - a rule evaluation error fails the group and stops its evaluation.
// Failures are rendered as promtool renders them, so the two outputs can be read side by side.

#include <string>
#include <vector>

#include "core/metrics/promtool_test_file.h"

namespace limitscope::metrics {

struct RuleTestReport {
  enum class Verdict { passed, failed, bad_input };
  Verdict verdict = Verdict::passed;
  /// One block per failed check, formatted as promtool prints it (indented, multi-line).
  std::vector<std::string> failures;
  /// Why the input could not be used (a rule file that does not load), for bad_input.
  std::string input_error;
};

/// Loads the rule files the test file names and runs all its test groups.
RuleTestReport run_rule_test_file(const RuleTestFile& file);

/// Go's labels.Labels String: `{a="x", b="y"}` (values quoted as strconv.Quote does).
std::string go_labels_string(const Labels& labels);

}  // namespace limitscope::metrics
