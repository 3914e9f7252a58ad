#pragma once
// Shared between the evaluator's translation units (promql_eval.cpp, promql_eval_calls.cpp);
// not part of the public interface.

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/metrics/promql.h"

namespace limitscope::metrics::detail {

/// An intermediate value: scalar, instant vector or range vector (matrix).
struct Value {
  ValueType type = ValueType::scalar;
  double scalar = 0;
  std::vector<InstantSample> vector;
  std::vector<SeriesSamples> matrix;  // stale markers removed, each series non-empty
};

inline Value scalar_value(double v) {
  Value out;
  out.type = ValueType::scalar;
  out.scalar = v;
  return out;
}

inline Value vector_value(std::vector<InstantSample> v) {
  Value out;
  out.type = ValueType::instant_vector;
  out.vector = std::move(v);
  return out;
}

/// Applies a function to its evaluated arguments at time t_ms.
/// @param call the call node (its first argument's selector gives the range boundaries).
Expected<Value> apply_function(const Call& call, std::vector<Value>& args, std::int64_t t_ms);

/// Go's math.Max / math.Min: NaN wins (std::fmax/fmin ignore it).
double go_max(double a, double b);
double go_min(double a, double b);

/// Error text naming an expression (shortened) and the reason.
Error eval_error(const Expr& e, const std::string& reason);

/// Error when two elements of v share a label set (Prometheus refuses such vectors once an
/// operation has dropped the metric name).
Status check_unique_labels(const Expr& e, const std::vector<InstantSample>& v);

}  // namespace limitscope::metrics::detail
