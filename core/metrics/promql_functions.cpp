#include "core/metrics/promql_functions.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace limitscope::metrics {

namespace {

using VT = ValueType;

const std::vector<FunctionInfo>& table() {
  static const std::vector<FunctionInfo> fns = {
      {"rate", {VT::range_vector}, 1, VT::instant_vector},
      {"irate", {VT::range_vector}, 1, VT::instant_vector},
      {"increase", {VT::range_vector}, 1, VT::instant_vector},
      {"delta", {VT::range_vector}, 1, VT::instant_vector},
      {"idelta", {VT::range_vector}, 1, VT::instant_vector},
      {"avg_over_time", {VT::range_vector}, 1, VT::instant_vector},
      {"min_over_time", {VT::range_vector}, 1, VT::instant_vector},
      {"max_over_time", {VT::range_vector}, 1, VT::instant_vector},
      {"sum_over_time", {VT::range_vector}, 1, VT::instant_vector},
      {"count_over_time", {VT::range_vector}, 1, VT::instant_vector},
      {"last_over_time", {VT::range_vector}, 1, VT::instant_vector},
      {"histogram_quantile", {VT::scalar, VT::instant_vector}, 2, VT::instant_vector},
      {"abs", {VT::instant_vector}, 1, VT::instant_vector},
      {"ceil", {VT::instant_vector}, 1, VT::instant_vector},
      {"floor", {VT::instant_vector}, 1, VT::instant_vector},
      {"exp", {VT::instant_vector}, 1, VT::instant_vector},
      {"sqrt", {VT::instant_vector}, 1, VT::instant_vector},
      {"ln", {VT::instant_vector}, 1, VT::instant_vector},
      {"log2", {VT::instant_vector}, 1, VT::instant_vector},
      {"log10", {VT::instant_vector}, 1, VT::instant_vector},
      {"round", {VT::instant_vector, VT::scalar}, 1, VT::instant_vector},
      {"clamp", {VT::instant_vector, VT::scalar, VT::scalar}, 3, VT::instant_vector},
      {"clamp_min", {VT::instant_vector, VT::scalar}, 2, VT::instant_vector},
      {"clamp_max", {VT::instant_vector, VT::scalar}, 2, VT::instant_vector},
      {"absent", {VT::instant_vector}, 1, VT::instant_vector},
      {"vector", {VT::scalar}, 1, VT::instant_vector},
      {"scalar", {VT::instant_vector}, 1, VT::scalar},
      {"time", {}, 0, VT::scalar},
  };
  return fns;
}

}  // namespace

const FunctionInfo* find_function(std::string_view name) {
  for (const FunctionInfo& f : table()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string_view> supported_function_names() {
  std::vector<std::string_view> out;
  for (const FunctionInfo& f : table()) out.push_back(f.name);
  return out;
}

bool extrapolated_rate(std::span<const Sample> samples, std::int64_t range_start_ms,
                       std::int64_t range_end_ms, bool is_counter, bool is_rate, double& out) {
  if (samples.size() < 2) return false;
  const Sample& first = samples.front();
  const Sample& last = samples.back();
  double result = last.value - first.value;
  if (is_counter) result += counter_reset_correction(samples);

  // Seconds between the first/last sample and the range boundaries.
  double to_start = static_cast<double>(first.t_ms - range_start_ms) / 1000.0;
  double to_end = static_cast<double>(range_end_ms - last.t_ms) / 1000.0;
  double sampled = static_cast<double>(last.t_ms - first.t_ms) / 1000.0;
  double avg_interval = sampled / static_cast<double>(samples.size() - 1);

  if (is_counter && result > 0 && first.value >= 0) {
    // A counter cannot go below zero: do not extrapolate further back than where the
    // observed slope would have reached zero.
    double to_zero = sampled * (first.value / result);
    if (to_zero < to_start) to_start = to_zero;
  }

  // Extrapolate to a boundary only when the series plausibly continues up to it (a sample
  // gap no wider than 1.1 average intervals); otherwise extend by half an interval.
  double threshold = avg_interval * 1.1;
  double interval = sampled;
  interval += to_start < threshold ? to_start : avg_interval / 2;
  interval += to_end < threshold ? to_end : avg_interval / 2;

  double factor = interval / sampled;
  if (is_rate) factor /= static_cast<double>(range_end_ms - range_start_ms) / 1000.0;
  out = result * factor;
  return true;
}

bool instant_rate(std::span<const Sample> samples, bool is_rate, double& out) {
  if (samples.size() < 2) return false;
  const Sample& last = samples[samples.size() - 1];
  const Sample& prev = samples[samples.size() - 2];
  double result = (is_rate && last.value < prev.value) ? last.value  // counter reset
                                                       : last.value - prev.value;
  std::int64_t interval_ms = last.t_ms - prev.t_ms;
  if (interval_ms == 0) return false;
  if (is_rate) result /= static_cast<double>(interval_ms) / 1000.0;
  out = result;
  return true;
}

double bucket_quantile(double q, std::vector<Bucket> buckets) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(q)) return nan;
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  if (buckets.empty()) return nan;
  std::stable_sort(buckets.begin(), buckets.end(),
                   [](const Bucket& a, const Bucket& b) { return a.upper_bound < b.upper_bound; });
  if (!(std::isinf(buckets.back().upper_bound) && buckets.back().upper_bound > 0)) return nan;

  // Buckets with the same bound (e.g. "1" and "1.0") are one bucket.
  std::vector<Bucket> merged;
  for (const Bucket& b : buckets) {
    if (!merged.empty() && merged.back().upper_bound == b.upper_bound) {
      merged.back().count += b.count;
    } else {
      merged.push_back(b);
    }
  }
  // Cumulative counts must not decrease (scrape races can make them); raise dips to the max.
  double running_max = -std::numeric_limits<double>::infinity();
  for (Bucket& b : merged) {
    if (b.count > running_max) {
      running_max = b.count;
    } else if (b.count < running_max) {
      b.count = running_max;
    }
  }
  if (merged.size() < 2) return nan;
  double observations = merged.back().count;
  if (observations == 0) return nan;
  double rank = q * observations;
  // First bucket (excluding +Inf) whose cumulative count reaches the rank.
  std::size_t b = 0;
  while (b < merged.size() - 1 && !(merged[b].count >= rank)) ++b;
  if (b == merged.size() - 1) return merged[merged.size() - 2].upper_bound;
  if (b == 0 && merged[0].upper_bound <= 0) return merged[0].upper_bound;
  double start = 0;
  double end = merged[b].upper_bound;
  double count = merged[b].count;
  if (b > 0) {
    start = merged[b - 1].upper_bound;
    count -= merged[b - 1].count;
    rank -= merged[b - 1].count;
  }
  return start + (end - start) * (rank / count);
}

bool parse_le(std::string_view text, double& out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) != 0) return false;
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  out = v;
  return true;
}

}  // namespace limitscope::metrics
