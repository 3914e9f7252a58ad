#pragma once
// PromQL subset: parse a query once, evaluate it against a SeriesStore at an instant or over
// a range. Semantics follow Prometheus 2.42 (the promtool Debian 12 ships) so that rule unit
// tests agree with promtool; docs/promql.md lists the subset and what is refused.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"
#include "core/metrics/labels.h"
#include "core/metrics/promql_ast.h"
#include "core/metrics/series_store.h"

namespace limitscope::metrics {

/// Parses a PromQL expression of the supported subset.
/// @return the tree, or an error naming the construct and its position, e.g.
///   `column 5: unsupported construct "group_left"` (with `line L, ` first when the query
///   spans several lines).
Expected<ExprPtr> parse_promql(std::string_view query);

/// One element of an instant vector.
struct InstantSample {
  Labels labels;
  double value = 0;
  friend bool operator==(const InstantSample&, const InstantSample&) = default;
};

/// The result of an instant evaluation.
struct QueryValue {
  enum class Kind { vector, scalar };
  Kind kind = Kind::vector;
  std::vector<InstantSample> vector;  ///< sorted by labels when kind == vector
  double scalar = 0;                  ///< when kind == scalar
};

struct EvalOptions {
  /// How far back an instant-vector selector looks for the latest sample (Prometheus's
  /// --query.lookback-delta, 5m). A stale marker ends a series before that.
  std::int64_t lookback_delta_ms = 300000;
  /// Refuses evaluations that would select more samples than this (guards the UI thread
  /// pool and fuzzing against pathological queries).
  std::size_t max_samples = 50'000'000;
};

/// Evaluates expr at time t_ms (ms since the epoch).
/// @return the vector or scalar, or an error such as a many-to-many match or an expression
///   whose result is a range vector.
Expected<QueryValue> evaluate(const Expr& expr, const SeriesStore& store, std::int64_t t_ms,
                              const EvalOptions& options = {});

/// One output series of a range evaluation; points at the steps where it had a value.
struct RangeSeries {
  Labels labels;
  std::vector<Sample> points;
};

/// Evaluates expr at start, start+step, ... <= end (as Prometheus's query_range); a scalar
/// result becomes one series with no labels. @return error when step <= 0 or end < start or
/// the step count exceeds 11,000 (Prometheus's limit).
Expected<std::vector<RangeSeries>> evaluate_range(const Expr& expr, const SeriesStore& store,
                                                  std::int64_t start_ms, std::int64_t end_ms,
                                                  std::int64_t step_ms,
                                                  const EvalOptions& options = {});

}  // namespace limitscope::metrics
