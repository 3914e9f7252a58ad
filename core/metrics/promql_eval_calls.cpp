// Function calls of the evaluator: range-vector functions (rate & co, *_over_time), element
// functions, histogram_quantile, absent, vector/scalar/time.

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "core/metrics/promql_eval_internal.h"
#include "core/metrics/promql_functions.h"

namespace limitscope::metrics::detail {

namespace {

using RangeKernel = std::function<bool(std::span<const Sample>, double&)>;

Value over_range(std::vector<SeriesSamples>& matrix, bool drop_name, const RangeKernel& kernel) {
  std::vector<InstantSample> out;
  for (SeriesSamples& s : matrix) {
    double v = 0;
    if (!kernel(s.samples, v)) continue;
    Labels l = std::move(s.labels);
    if (drop_name) l.erase("__name__");
    out.push_back({std::move(l), v});
  }
  return vector_value(std::move(out));
}

Value per_element(std::vector<InstantSample>& in, const std::function<double(double)>& f) {
  std::vector<InstantSample> out;
  out.reserve(in.size());
  for (InstantSample& s : in) {
    s.labels.erase("__name__");
    out.push_back({std::move(s.labels), f(s.value)});
  }
  return vector_value(std::move(out));
}

// The range [start, end] a matrix argument covered at t_ms (offset applied). Parentheses
// around the selector are unwrapped, as Prometheus's unwrapParenExpr does: `rate((m[5m]))`.
void range_bounds(const Call& call, std::int64_t t_ms, std::int64_t& start, std::int64_t& end) {
  const Expr* arg = call.args[0].get();
  while (const auto* paren = std::get_if<ParenExpr>(&arg->node)) arg = paren->inner.get();
  const auto& ms = std::get<MatrixSelector>(arg->node);
  end = t_ms - ms.selector.offset_ms;
  start = end - ms.range_ms;
}

// Neumaier-compensated summation step (Prometheus's kahanSumInc): returns the new sum and
// accumulates the lost low-order part in c.
double kahan_add(double inc, double sum, double& c) {
  double t = sum + inc;
  if (std::fabs(sum) >= std::fabs(inc)) {
    c += (sum - t) + inc;
  } else {
    c += (inc - t) + sum;
  }
  return t;
}

// Compensated sum, as Prometheus 2.42's sum_over_time.
double sum_of(std::span<const Sample> samples) {
  double sum = 0;
  double c = 0;
  for (const Sample& s : samples) sum = kahan_add(s.value, sum, c);
  return std::isinf(sum) ? sum : sum + c;
}

// Incremental, compensated mean as Prometheus 2.42's avg_over_time computes it, so sums near
// the float limit do not overflow and results agree bit for bit.
double mean_of(std::span<const Sample> samples) {
  double mean = 0;
  double c = 0;
  double count = 0;
  for (const Sample& s : samples) {
    count += 1;
    if (std::isinf(mean)) {
      if (std::isinf(s.value) && (mean > 0) == (s.value > 0)) continue;
      if (!std::isinf(s.value) && !std::isnan(s.value)) continue;
    }
    mean = kahan_add(s.value / count - mean / count, mean, c);
  }
  return std::isinf(mean) ? mean : mean + c;
}

Value histogram_quantile(double q, std::vector<InstantSample>& in) {
  struct Group {
    Labels labels;
    std::vector<Bucket> buckets;
  };
  // Grouped by every label but `le` (the metric name included, as Prometheus does); the
  // output drops both.
  std::map<Labels, Group> groups;
  for (InstantSample& s : in) {
    double le = 0;
    if (!parse_le(s.labels.get("le"), le)) continue;  // no or malformed bucket label: skipped
    Labels key = s.labels;
    key.erase("le");
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) {
      it->second.labels = key;
      it->second.labels.erase("__name__");
    }
    it->second.buckets.push_back({le, s.value});
  }
  std::vector<InstantSample> out;
  for (auto& [key, g] : groups) {
    out.push_back({std::move(g.labels), bucket_quantile(q, std::move(g.buckets))});
  }
  return vector_value(std::move(out));
}

Value absent(const Call& call, const std::vector<InstantSample>& in) {
  if (!in.empty()) return vector_value({});
  Labels l;
  const Expr& arg = *call.args[0];
  if (const auto* vs = std::get_if<VectorSelector>(&arg.node)) {
    std::vector<std::string> ambiguous;
    for (const LabelMatcher& m : vs->matchers) {
      if (m.name() == "__name__") continue;
      if (m.op() == MatchOp::equal && !l.has(m.name())) {
        l.set(m.name(), m.value());
      } else {
        ambiguous.push_back(m.name());
      }
    }
    for (const std::string& n : ambiguous) l.erase(n);
  }
  return vector_value({{std::move(l), 1.0}});
}

}  // namespace

double go_max(double a, double b) {
  if (std::isinf(a) && a > 0) return a;
  if (std::isinf(b) && b > 0) return b;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double go_min(double a, double b) {
  if (std::isinf(a) && a < 0) return a;
  if (std::isinf(b) && b < 0) return b;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

Expected<Value> apply_function(const Call& call, std::vector<Value>& args, std::int64_t t_ms) {
  const std::string& f = call.name;
  std::int64_t start = 0;
  std::int64_t end = 0;
  if (!args.empty() && args[0].type == ValueType::range_vector) {
    range_bounds(call, t_ms, start, end);
    auto& m = args[0].matrix;
    if (f == "rate" || f == "increase" || f == "delta") {
      bool counter = f != "delta";
      bool rate = f == "rate";
      return over_range(m, true, [&](std::span<const Sample> s, double& v) {
        return extrapolated_rate(s, start, end, counter, rate, v);
      });
    }
    if (f == "irate" || f == "idelta") {
      bool rate = f == "irate";
      return over_range(
          m, true, [&](std::span<const Sample> s, double& v) { return instant_rate(s, rate, v); });
    }
    if (f == "avg_over_time") {
      return over_range(m, true, [](std::span<const Sample> s, double& v) {
        v = mean_of(s);
        return true;
      });
    }
    if (f == "sum_over_time") {
      return over_range(m, true, [](std::span<const Sample> s, double& v) {
        v = sum_of(s);
        return true;
      });
    }
    if (f == "count_over_time") {
      return over_range(m, true, [](std::span<const Sample> s, double& v) {
        v = static_cast<double>(s.size());
        return true;
      });
    }
    if (f == "min_over_time" || f == "max_over_time") {
      bool is_max = f == "max_over_time";
      return over_range(m, true, [is_max](std::span<const Sample> s, double& v) {
        v = s[0].value;
        for (const Sample& x : s) {
          bool better = is_max ? x.value > v : x.value < v;
          if (better || std::isnan(v)) v = x.value;
        }
        return true;
      });
    }
    if (f == "last_over_time") {  // the one range function that keeps the metric name
      return over_range(m, false, [](std::span<const Sample> s, double& v) {
        v = s.back().value;
        return true;
      });
    }
  }
  if (f == "time") return scalar_value(static_cast<double>(t_ms) / 1000.0);
  if (f == "vector") return vector_value({{Labels{}, args[0].scalar}});
  if (f == "scalar") {
    const auto& v = args[0].vector;
    return scalar_value(v.size() == 1 ? v[0].value : std::numeric_limits<double>::quiet_NaN());
  }
  if (f == "histogram_quantile") return histogram_quantile(args[0].scalar, args[1].vector);
  if (f == "absent") return absent(call, args[0].vector);

  auto& v = args[0].vector;
  if (f == "abs") return per_element(v, [](double x) { return std::fabs(x); });
  if (f == "ceil") return per_element(v, [](double x) { return std::ceil(x); });
  if (f == "floor") return per_element(v, [](double x) { return std::floor(x); });
  if (f == "exp") return per_element(v, [](double x) { return std::exp(x); });
  if (f == "sqrt") return per_element(v, [](double x) { return std::sqrt(x); });
  if (f == "ln") return per_element(v, [](double x) { return std::log(x); });
  if (f == "log2") return per_element(v, [](double x) { return std::log2(x); });
  if (f == "log10") return per_element(v, [](double x) { return std::log10(x); });
  if (f == "round") {
    double to_nearest = args.size() > 1 ? args[1].scalar : 1.0;
    double inverse = 1.0 / to_nearest;
    return per_element(v, [inverse](double x) { return std::floor(x * inverse + 0.5) / inverse; });
  }
  if (f == "clamp_min") {
    double lo = args[1].scalar;
    return per_element(v, [lo](double x) { return go_max(lo, x); });
  }
  if (f == "clamp_max") {
    double hi = args[1].scalar;
    return per_element(v, [hi](double x) { return go_min(hi, x); });
  }
  if (f == "clamp") {
    double lo = args[1].scalar;
    double hi = args[2].scalar;
    if (hi < lo) return vector_value({});  // Prometheus: empty result when max < min
    return per_element(v, [lo, hi](double x) { return go_max(lo, go_min(hi, x)); });
  }
  return make_error("function \"" + f + "\" has no evaluator");
}

}  // namespace limitscope::metrics::detail
