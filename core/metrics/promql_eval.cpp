// Instant and range evaluation of a parsed PromQL expression over a SeriesStore, following
// Prometheus 2.42: lookback and staleness for instant selectors, closed [t-range, t] windows
// for range selectors, one-to-one vector matching, name dropping for arithmetic.

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/metrics/promql.h"
#include "core/metrics/promql_eval_internal.h"

namespace limitscope::metrics {

namespace detail {

Error eval_error(const Expr& e, const std::string& reason) {
  std::string text = to_string(e);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return make_error("evaluating \"" + text + "\": " + reason);
}

Status check_unique_labels(const Expr& e, const std::vector<InstantSample>& v) {
  // By hash, comparing the label sets only on a hash match: no label copies.
  std::unordered_multimap<std::uint64_t, const Labels*> seen;
  seen.reserve(v.size());
  for (const InstantSample& s : v) {
    std::uint64_t h = s.labels.hash();
    auto [lo, hi] = seen.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
      if (*it->second == s.labels) {
        return eval_error(
            e, "vector cannot contain metrics with the same labelset " + s.labels.to_string());
      }
    }
    seen.emplace(h, &s.labels);
  }
  return {};
}

}  // namespace detail

namespace {

using detail::scalar_value;
using detail::Value;
using detail::vector_value;

// The labels a vector-matching signature covers: on(l...) keeps only l; ignoring(l...) keeps
// all but l and the metric name.
std::string match_signature(const Labels& l, const VectorMatching& m) {
  std::string sig;
  for (const auto& [name, value] : l.pairs()) {
    bool listed = std::find(m.labels.begin(), m.labels.end(), name) != m.labels.end();
    bool include = m.on ? listed : (!listed && name != "__name__");
    if (!include) continue;
    sig += name;
    sig += '\xff';
    sig += value;
    sig += '\xff';
  }
  return sig;
}

// One element operation; `keep` is false when a comparison filters the element out. For
// comparisons the value is the left operand (Prometheus's vectorElemBinop).
double elem_binop(BinaryOp op, double lhs, double rhs, bool& keep) {
  keep = true;
  switch (op) {
    case BinaryOp::add:
      return lhs + rhs;
    case BinaryOp::sub:
      return lhs - rhs;
    case BinaryOp::mul:
      return lhs * rhs;
    case BinaryOp::div:
      return lhs / rhs;
    case BinaryOp::mod:
      return std::fmod(lhs, rhs);
    case BinaryOp::pow:
      return std::pow(lhs, rhs);
    case BinaryOp::eq:
      keep = lhs == rhs;
      return lhs;
    case BinaryOp::ne:
      keep = lhs != rhs;
      return lhs;
    case BinaryOp::gt:
      keep = lhs > rhs;
      return lhs;
    case BinaryOp::lt:
      keep = lhs < rhs;
      return lhs;
    case BinaryOp::ge:
      keep = lhs >= rhs;
      return lhs;
    case BinaryOp::le:
      keep = lhs <= rhs;
      return lhs;
    default:
      keep = false;
      return 0;
  }
}

class Evaluator {
 public:
  Evaluator(const SeriesStore& store, std::int64_t t_ms, const EvalOptions& options)
      : store_(store), t_(t_ms), options_(options) {}

  Expected<Value> eval(const Expr& e) {
    return std::visit([&](const auto& node) { return eval_node(node, e); }, e.node);
  }

 private:
  Expected<Value> eval_node(const NumberLiteral& n, const Expr&) { return scalar_value(n.value); }

  Expected<Value> eval_node(const ParenExpr& p, const Expr&) { return eval(*p.inner); }

  Status count_samples(const Expr& e, std::size_t n) {
    samples_ += n;
    if (samples_ > options_.max_samples) {
      return detail::eval_error(
          e, "query selects more than " + std::to_string(options_.max_samples) + " samples");
    }
    return {};
  }

  Expected<Value> eval_node(const VectorSelector& vs, const Expr& e) {
    std::int64_t ref = t_ - vs.offset_ms;
    auto series = store_.select_newest(vs.matchers, ref - options_.lookback_delta_ms, ref);
    std::vector<InstantSample> out;
    out.reserve(series.size());
    const std::size_t n = series.size();
    for (LatestSample& s : series) {
      if (is_stale_marker(s.sample.value)) continue;  // the series ended before t
      out.push_back({std::move(s.labels), s.sample.value});
    }
    if (Status checked = count_samples(e, n); !checked.ok()) return Error{checked.error()};
    return vector_value(std::move(out));
  }

  Expected<Value> eval_node(const MatrixSelector& ms, const Expr& e) {
    std::int64_t ref = t_ - ms.selector.offset_ms;
    auto series = store_.select(ms.selector.matchers, ref - ms.range_ms, ref);
    Value out;
    out.type = ValueType::range_vector;
    std::size_t n = 0;
    for (SeriesSamples& s : series) {
      std::erase_if(s.samples, [](const Sample& x) { return is_stale_marker(x.value); });
      if (s.samples.empty()) continue;
      n += s.samples.size();
      out.matrix.push_back(std::move(s));
    }
    if (Status checked = count_samples(e, n); !checked.ok()) return Error{checked.error()};
    return out;
  }

  Expected<Value> eval_node(const UnaryExpr& u, const Expr& e) {
    auto v = eval(*u.operand);
    if (!v || u.op == '+') return v;
    if (v->type == ValueType::scalar) return scalar_value(-v->scalar);
    for (InstantSample& s : v->vector) {
      s.labels.erase("__name__");
      s.value = -s.value;
    }
    if (Status checked = detail::check_unique_labels(e, v->vector); !checked.ok())
      return Error{checked.error()};
    return v;
  }

  Expected<Value> eval_node(const Call& c, const Expr& e) {
    std::vector<Value> args;
    for (const ExprPtr& a : c.args) {
      auto v = eval(*a);
      if (!v) return v;
      args.push_back(std::move(*v));
    }
    auto out = detail::apply_function(c, args, t_);
    if (!out) return out;
    if (out->type == ValueType::instant_vector) {
      if (Status checked = detail::check_unique_labels(e, out->vector); !checked.ok())
        return Error{checked.error()};
    }
    return out;
  }

  Expected<Value> eval_node(const Aggregate& a, const Expr&) {
    auto v = eval(*a.operand);
    if (!v) return v;
    struct Group {
      Labels labels;
      double value = 0;
      double count = 0;
    };
    // Groups in order of first appearance, found by a hash of their labels. With `by`, the
    // hash covers the grouping labels of the series itself, so a series joining an existing
    // group builds no label set (only a new group does).
    std::vector<Group> groups;
    std::unordered_multimap<std::uint64_t, std::size_t> index;
    index.reserve(v->vector.size());
    const auto by_hash = [&](const Labels& l) {
      std::uint64_t h = 0xcbf29ce484222325ULL;
      for (const std::string& g : a.grouping) {
        const auto value = l.find(g);
        h = (h ^ (value ? 1 : 2)) * 0x100000001b3ULL;
        h = (h ^ std::hash<std::string_view>{}(value.value_or(std::string_view()))) *
            0x100000001b3ULL;
      }
      return h;
    };
    const auto same_by = [&](const Labels& key, const Labels& l) {
      for (const std::string& g : a.grouping) {
        if (key.find(g) != l.find(g)) return false;
      }
      return true;
    };
    for (InstantSample& s : v->vector) {
      Labels key;
      std::uint64_t h = 0;
      if (a.without) {
        key = std::move(s.labels);
        key.erase("__name__");
        for (const std::string& g : a.grouping) key.erase(g);
        h = key.hash();
      } else {
        h = by_hash(s.labels);
      }
      Group* found = nullptr;
      for (auto [it, end] = index.equal_range(h); it != end; ++it) {
        Group& c = groups[it->second];
        if (a.without ? c.labels == key : same_by(c.labels, s.labels)) {
          found = &c;
          break;
        }
      }
      if (found == nullptr) {
        if (!a.without) {
          for (const std::string& g : a.grouping) {
            if (const auto value = s.labels.find(g)) key.set(g, *value);
          }
        }
        index.emplace(h, groups.size());
        groups.push_back(Group{std::move(key), s.value, 1});
        continue;
      }
      Group& g = *found;
      g.count += 1;
      switch (a.op) {
        case AggregateOp::sum:
          g.value += s.value;
          break;
        case AggregateOp::count:
          break;
        case AggregateOp::min:
          if (g.value > s.value || std::isnan(g.value)) g.value = s.value;
          break;
        case AggregateOp::max:
          if (g.value < s.value || std::isnan(g.value)) g.value = s.value;
          break;
        case AggregateOp::avg:
          // Prometheus's running mean: avoids overflow; an infinite mean stays unless a NaN
          // or an opposite infinity arrives.
          if (std::isinf(g.value)) {
            if (std::isinf(s.value) && (g.value > 0) == (s.value > 0)) break;
            if (!std::isinf(s.value) && !std::isnan(s.value)) break;
          }
          g.value += s.value / g.count - g.value / g.count;
          break;
      }
    }
    std::vector<InstantSample> out;
    out.reserve(groups.size());
    for (Group& g : groups) {
      out.push_back({std::move(g.labels), a.op == AggregateOp::count ? g.count : g.value});
    }
    return vector_value(std::move(out));
  }

  Expected<Value> eval_node(const BinaryExpr& b, const Expr& e) {
    auto lhs = eval(*b.lhs);
    if (!lhs) return lhs;
    auto rhs = eval(*b.rhs);
    if (!rhs) return rhs;
    bool ls = lhs->type == ValueType::scalar;
    bool rs = rhs->type == ValueType::scalar;
    if (ls && rs) {
      bool keep = true;
      double v = elem_binop(b.op, lhs->scalar, rhs->scalar, keep);
      if (is_comparison(b.op)) v = keep ? 1.0 : 0.0;  // the parser demands `bool` here
      return scalar_value(v);
    }
    Expected<Value> out = Value{};
    if (ls || rs) {
      out = vector_scalar(b, ls ? std::move(rhs->vector) : std::move(lhs->vector),
                          ls ? lhs->scalar : rhs->scalar, /*scalar_on_left=*/ls);
    } else if (is_set_operator(b.op)) {
      return set_operation(b, std::move(lhs->vector), std::move(rhs->vector));
    } else {
      out = vector_vector(b, e, std::move(lhs->vector), std::move(rhs->vector));
    }
    if (!out) return out;
    if (Status checked = detail::check_unique_labels(e, out->vector); !checked.ok())
      return Error{checked.error()};
    return out;
  }

  static Value vector_scalar(const BinaryExpr& b, std::vector<InstantSample> vec, double scalar,
                             bool scalar_on_left) {
    std::vector<InstantSample> out;
    for (InstantSample& s : vec) {
      double l = scalar_on_left ? scalar : s.value;
      double r = scalar_on_left ? s.value : scalar;
      bool keep = true;
      double v = elem_binop(b.op, l, r, keep);
      // A comparison filters and keeps the vector element's own value, whichever side it is on.
      if (is_comparison(b.op) && scalar_on_left) v = r;
      if (b.return_bool) {
        v = keep ? 1.0 : 0.0;
        keep = true;
      }
      if (!keep) continue;
      if (!is_comparison(b.op) || b.return_bool) s.labels.erase("__name__");
      out.push_back({std::move(s.labels), v});
    }
    return vector_value(std::move(out));
  }

  static Expected<Value> vector_vector(const BinaryExpr& b, const Expr& e,
                                       std::vector<InstantSample> lhs,
                                       std::vector<InstantSample> rhs) {
    std::unordered_map<std::string, const InstantSample*> right;
    for (const InstantSample& s : rhs) {
      auto [it, inserted] = right.try_emplace(match_signature(s.labels, b.matching), &s);
      if (!inserted) {
        return detail::eval_error(
            e, "found duplicate series for the match group on the right side of the operation: " +
                   it->second->labels.to_string() + " and " + s.labels.to_string() +
                   "; many-to-many matching not allowed");
      }
    }
    std::unordered_set<std::string> matched;
    std::vector<InstantSample> out;
    for (InstantSample& s : lhs) {
      std::string sig = match_signature(s.labels, b.matching);
      auto it = right.find(sig);
      if (it == right.end()) continue;
      bool keep = true;
      double v = elem_binop(b.op, s.value, it->second->value, keep);
      if (b.return_bool) {
        v = keep ? 1.0 : 0.0;
      } else if (!keep) {
        continue;
      }
      if (!matched.insert(sig).second) {
        return detail::eval_error(e, "multiple matches for labels " + s.labels.to_string() +
                                         ": many-to-one matching must be explicit "
                                         "(group_left/group_right, not supported)");
      }
      Labels l = std::move(s.labels);
      if (!is_comparison(b.op) || b.return_bool) l.erase("__name__");
      // One-to-one results carry only the matched labels.
      if (b.matching.on) {
        Labels kept;
        for (const std::string& n : b.matching.labels) {
          if (l.has(n)) kept.set(n, l.get(n));
        }
        l = std::move(kept);
      } else {
        for (const std::string& n : b.matching.labels) l.erase(n);
      }
      out.push_back({std::move(l), v});
    }
    return vector_value(std::move(out));
  }

  static Value set_operation(const BinaryExpr& b, std::vector<InstantSample> lhs,
                             std::vector<InstantSample> rhs) {
    std::vector<InstantSample> out;
    if (b.op == BinaryOp::lor) {
      std::unordered_set<std::string> left_sigs;
      for (InstantSample& s : lhs) {
        left_sigs.insert(match_signature(s.labels, b.matching));
        out.push_back(std::move(s));
      }
      for (InstantSample& s : rhs) {
        if (!left_sigs.contains(match_signature(s.labels, b.matching))) out.push_back(std::move(s));
      }
      return vector_value(std::move(out));
    }
    std::unordered_set<std::string> right_sigs;
    for (const InstantSample& s : rhs) right_sigs.insert(match_signature(s.labels, b.matching));
    bool want_match = b.op == BinaryOp::land;
    for (InstantSample& s : lhs) {
      if (right_sigs.contains(match_signature(s.labels, b.matching)) == want_match) {
        out.push_back(std::move(s));
      }
    }
    return vector_value(std::move(out));
  }

  const SeriesStore& store_;
  std::int64_t t_;
  const EvalOptions& options_;
  std::size_t samples_ = 0;
};

}  // namespace

Expected<QueryValue> evaluate(const Expr& expr, const SeriesStore& store, std::int64_t t_ms,
                              const EvalOptions& options) {
  Evaluator ev(store, t_ms, options);
  auto v = ev.eval(expr);
  if (!v) return Error{v.error()};
  QueryValue out;
  switch (v->type) {
    case ValueType::scalar:
      out.kind = QueryValue::Kind::scalar;
      out.scalar = v->scalar;
      return out;
    case ValueType::instant_vector:
      out.kind = QueryValue::Kind::vector;
      out.vector = std::move(v->vector);
      if (auto by_labels = [](const InstantSample& a,
                              const InstantSample& b) { return a.labels < b.labels; };
          !std::is_sorted(out.vector.begin(), out.vector.end(), by_labels)) {
        std::sort(out.vector.begin(), out.vector.end(), by_labels);
      }
      return out;
    case ValueType::range_vector:
      break;
  }
  return detail::eval_error(expr,
                            "the result is a range vector; evaluate it inside a function "
                            "such as rate() or an aggregation over time");
}

Expected<std::vector<RangeSeries>> evaluate_range(const Expr& expr, const SeriesStore& store,
                                                  std::int64_t start_ms, std::int64_t end_ms,
                                                  std::int64_t step_ms,
                                                  const EvalOptions& options) {
  if (step_ms <= 0) return make_error("range evaluation: step must be positive");
  if (end_ms < start_ms) return make_error("range evaluation: end is before start");
  constexpr std::int64_t kMaxSteps = 11000;
  if ((end_ms - start_ms) / step_ms + 1 > kMaxSteps) {
    return make_error("range evaluation: more than 11000 steps; use a larger step");
  }
  std::map<Labels, std::vector<Sample>> series;
  for (std::int64_t t = start_ms; t <= end_ms; t += step_ms) {
    auto v = evaluate(expr, store, t, options);
    if (!v) return Error{v.error()};
    if (v->kind == QueryValue::Kind::scalar) {
      series[Labels{}].push_back({t, v->scalar});
    } else {
      for (InstantSample& s : v->vector) series[std::move(s.labels)].push_back({t, s.value});
    }
    if (end_ms - t < step_ms) break;  // avoids overflow of t += step near INT64_MAX
  }
  std::vector<RangeSeries> out;
  out.reserve(series.size());
  for (auto& [labels, points] : series) out.push_back({labels, std::move(points)});
  return out;
}

}  // namespace limitscope::metrics
