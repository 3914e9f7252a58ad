#pragma once
// The PromQL functions limitscope supports: their signatures (checked by the parser) and the
// numeric kernels the evaluator applies, written to match Prometheus 2.42 exactly.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/metrics/labels.h"
#include "core/metrics/promql_ast.h"

namespace limitscope::metrics {

struct FunctionInfo {
  std::string_view name;
  std::vector<ValueType> arg_types;  ///< all parameters, optional ones last
  std::size_t min_args = 0;
  ValueType return_type = ValueType::instant_vector;
};

/// @return the signature of a supported function, nullptr for any other name.
const FunctionInfo* find_function(std::string_view name);
/// Names of all supported functions, for docs and error messages.
std::vector<std::string_view> supported_function_names();

/// Prometheus's extrapolatedRate (rate, increase, delta) over one series' samples in the
/// range [range_start_ms, range_end_ms]. @return false when fewer than two samples.
/// @param is_counter handle counter resets and do not extrapolate below zero.
/// @param is_rate divide by the range in seconds.
bool extrapolated_rate(std::span<const Sample> samples, std::int64_t range_start_ms,
                       std::int64_t range_end_ms, bool is_counter, bool is_rate, double& out);

/// irate/idelta: from the last two samples. @return false with fewer than two samples or a zero
/// interval.
bool instant_rate(std::span<const Sample> samples, bool is_rate, double& out);

/// One classic-histogram bucket: upper bound (`le`) and cumulative count.
struct Bucket {
  double upper_bound = 0;
  double count = 0;
};

/// Prometheus's bucketQuantile: linear interpolation inside the bucket holding rank q·total,
/// the lowest bucket starting at 0 (unless its bound is <= 0), the +Inf bucket answering with
/// the second-highest bound, NaN when there is no +Inf bucket, fewer than two buckets or no
/// observations; q < 0 gives -Inf, q > 1 +Inf; counts are made monotonic first.
double bucket_quantile(double q, std::vector<Bucket> buckets);

/// Parses an `le` value as Go's strconv.ParseFloat does for the forms exporters write
/// ("0.5", "1e3", "+Inf", "NaN"). @return false when the text is not a number.
bool parse_le(std::string_view text, double& out);

}  // namespace limitscope::metrics
