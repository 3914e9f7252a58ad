#include "core/tuner/sweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <thread>

#include "core/limiter/algorithms.h"

namespace limitscope::tuner {

namespace {

constexpr std::size_t kChunk = 65536;  // events between cancel checks and progress reports

// Per-key 429 bookkeeping for the worst-key figure, [key][config slot].
struct KeyCounts {
  std::vector<std::uint32_t> admitted;
  std::vector<std::uint32_t> rejected;
};

double worst_key(const KeyCounts& k, std::size_t keys, std::size_t n, std::size_t c) {
  double worst = 0;
  for (std::size_t key = 0; key < keys; ++key) {
    const double a = k.admitted[key * n + c];
    const double r = k.rejected[key * n + c];
    if (a + r > 0) worst = std::max(worst, r / (a + r));
  }
  return worst;
}

// Token bucket, struct of arrays: for one event, every configuration of the slice in one loop
// with the exact arithmetic of TokenBucket::decide (level_at, commit only when admitted).
bool token_bucket_slice(const Trace& trace, std::vector<SweepCell>& cells, std::size_t from,
                        std::size_t to, const std::atomic<bool>* cancel,
                        const std::function<void(double)>& progress) {
  const std::size_t n = to - from;
  const std::size_t keys = trace.keys.size();
  std::vector<double> cap(n), amount(n), period(n);
  for (std::size_t c = 0; c < n; ++c) {
    const LimitParams& p = cells[from + c].params;
    cap[c] = p.capacity;
    amount[c] = p.refill.amount;
    period[c] = static_cast<double>(p.refill.period.count());
  }
  std::vector<double> tokens(keys * n);
  std::vector<std::int64_t> last(keys * n);
  std::vector<char> seen(keys, 0);
  std::vector<std::uint64_t> adm(n, 0), rej(n, 0);
  std::vector<double> adm_cost(n, 0), rej_cost(n, 0);
  KeyCounts kc{std::vector<std::uint32_t>(keys * n, 0), std::vector<std::uint32_t>(keys * n, 0)};
  const auto& events = trace.events;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i % kChunk == 0 && i > 0) {
      if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return false;
      if (progress) progress(static_cast<double>(i) / static_cast<double>(events.size()));
    }
    const TraceEvent& e = events[i];
    const std::int64_t t = e.t_us * 1000;
    double* tk = tokens.data() + static_cast<std::size_t>(e.key) * n;
    std::int64_t* ls = last.data() + static_cast<std::size_t>(e.key) * n;
    std::uint32_t* ka = kc.admitted.data() + static_cast<std::size_t>(e.key) * n;
    std::uint32_t* kr = kc.rejected.data() + static_cast<std::size_t>(e.key) * n;
    if (seen[e.key] == 0) {
      seen[e.key] = 1;
      for (std::size_t c = 0; c < n; ++c) {
        tk[c] = cap[c];
        ls[c] = t;
      }
    }
    const double cost = e.cost;
    for (std::size_t c = 0; c < n; ++c) {
      const std::int64_t dt = t > ls[c] ? t - ls[c] : 0;
      const double refill = static_cast<double>(dt) * amount[c] / period[c];
      const double level = std::min(cap[c], tk[c] + refill);
      const bool ok = cost <= cap[c] && level >= cost;
      tk[c] = ok ? level - cost : tk[c];
      ls[c] = ok ? std::max(ls[c], t) : ls[c];
      adm[c] += ok;
      rej[c] += !ok;
      adm_cost[c] += ok ? cost : 0.0;
      rej_cost[c] += ok ? 0.0 : cost;
      ka[c] += ok;
      kr[c] += !ok;
    }
  }
  for (std::size_t c = 0; c < n; ++c) {
    SweepCell& cell = cells[from + c];
    cell.total.admitted = adm[c];
    cell.total.rejected = rej[c];
    cell.total.admitted_cost = adm_cost[c];
    cell.total.rejected_cost = rej_cost[c];
    cell.worst_key_429 = worst_key(kc, keys, n, c);
  }
  return true;
}

// Any algorithm: one typed state per (key, configuration), configurations of the slice
// decided event by event with the algorithm's own decide().
bool generic_slice(const Trace& trace, std::vector<SweepCell>& cells, std::size_t from,
                   std::size_t to, const std::atomic<bool>* cancel,
                   const std::function<void(double)>& progress) {
  const std::size_t n = to - from;
  const std::size_t keys = trace.keys.size();
  return visit_algorithm(cells[from].params.algorithm, [&](auto algo) {
    using A = decltype(algo);
    std::vector<std::optional<typename A::State>> states(keys * n);
    KeyCounts kc{std::vector<std::uint32_t>(keys * n, 0), std::vector<std::uint32_t>(keys * n, 0)};
    const auto& events = trace.events;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (i % kChunk == 0 && i > 0) {
        if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return false;
        if (progress) progress(static_cast<double>(i) / static_cast<double>(events.size()));
      }
      const TraceEvent& e = events[i];
      const Nanos now{e.t_us * 1000};
      for (std::size_t c = 0; c < n; ++c) {
        SweepCell& cell = cells[from + c];
        auto& s = states[static_cast<std::size_t>(e.key) * n + c];
        if (!s) s = A::fresh(cell.params, now);
        const bool ok = A::decide(cell.params, *s, now, e.cost).allowed;
        cell.total.add(ok, e.cost);
        kc.admitted[static_cast<std::size_t>(e.key) * n + c] += ok;
        kc.rejected[static_cast<std::size_t>(e.key) * n + c] += !ok;
      }
    }
    for (std::size_t c = 0; c < n; ++c) cells[from + c].worst_key_429 = worst_key(kc, keys, n, c);
    return true;
  });
}

}  // namespace

std::vector<double> SweepAxis::values() const {
  std::vector<double> out;
  if (steps <= 1) return {min};
  for (int i = 0; i < steps; ++i) {
    out.push_back(i == steps - 1 ? max : min + (max - min) * i / (steps - 1));
  }
  return out;
}

Expected<SweepAxis> parse_axis(std::string_view text, std::string_view what) {
  const std::string shown = "--" + std::string(what) + " '" + std::string(text) + "'";
  const auto a = text.find(':');
  const auto b = a == std::string_view::npos ? a : text.find(':', a + 1);
  if (b == std::string_view::npos) return make_error(shown + ": expected MIN:MAX:STEPS");
  auto num = [](std::string_view s, double& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && ec == std::errc{} && p == s.data() + s.size() && std::isfinite(v);
  };
  SweepAxis axis;
  double steps = 0;
  if (!num(text.substr(0, a), axis.min) || !num(text.substr(a + 1, b - a - 1), axis.max) ||
      !num(text.substr(b + 1), steps)) {
    return make_error(shown + ": MIN, MAX and STEPS must be numbers");
  }
  if (axis.min <= 0 || axis.max < axis.min) return make_error(shown + ": needs 0 < MIN <= MAX");
  if (steps < 1 || steps > 4096 || steps != std::floor(steps)) {
    return make_error(shown + ": STEPS must be a whole number in 1..4096");
  }
  axis.steps = static_cast<int>(steps);
  if (axis.min == axis.max && axis.steps != 1) return make_error(shown + ": MIN == MAX needs STEPS 1");
  return axis;
}

LimitParams cell_params(const SweepSpec& spec, double x, double y) {
  LimitParams p = spec.base;
  if (is_window_algorithm(p.algorithm)) {
    p.window = Nanos{static_cast<std::int64_t>(std::llround(x * 1e9))};
    p.limit = y;
  } else {
    p.capacity = x;
    p.refill = Rate{y, Nanos{1'000'000'000}};
  }
  return p;
}

Expected<SweepResult> sweep(const Trace& trace, const SweepSpec& spec,
                            const std::atomic<bool>* cancel,
                            const std::function<void(double)>& progress) {
  SweepResult result;
  for (double x : spec.x.values()) {
    for (double y : spec.y.values()) {
      SweepCell cell;
      cell.params = cell_params(spec, x, y);
      if (auto why = cell.params.validate()) {
        return make_error("sweep cell x=" + std::to_string(x) + " y=" + std::to_string(y) + ": " + *why);
      }
      cell.x = x;
      cell.y = y;
      result.cells.push_back(cell);
    }
  }
  if (trace.events.empty()) return make_error("the trace has no events");
  result.fast_path = spec.base.algorithm == Algorithm::token_bucket;
  const std::size_t total = result.cells.size();
  const std::size_t threads = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1, spec.threads)), 1, total);
  std::vector<std::thread> pool;
  std::atomic<bool> ok{true};
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t from = total * t / threads;
    const std::size_t to = total * (t + 1) / threads;
    pool.emplace_back([&, from, to, t] {
      // Only the first thread reports progress (the slices advance at the same pace).
      const std::function<void(double)> report = t == 0 ? progress : std::function<void(double)>{};
      const bool done = result.fast_path
                            ? token_bucket_slice(trace, result.cells, from, to, cancel, report)
                            : generic_slice(trace, result.cells, from, to, cancel, report);
      if (!done) ok = false;
    });
  }
  for (auto& th : pool) th.join();
  if (!ok) return make_error("sweep cancelled");
  if (progress) progress(1.0);
  return result;
}

Recommendation recommend(const SweepResult& result, const Constraints& constraints) {
  Recommendation r;
  const auto& cells = result.cells;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < cells.size() && !dominated; ++j) {
      if (j == i) continue;
      const bool no_worse = cells[j].total.ratio_429() <= cells[i].total.ratio_429() &&
                            cells[j].total.admitted_cost <= cells[i].total.admitted_cost;
      const bool better = cells[j].total.ratio_429() < cells[i].total.ratio_429() ||
                          cells[j].total.admitted_cost < cells[i].total.admitted_cost;
      dominated = no_worse && better;
    }
    if (!dominated) r.frontier.push_back(i);
    const bool meets =
        (!constraints.max_ratio_429 || cells[i].total.ratio_429() <= *constraints.max_ratio_429) &&
        (!constraints.max_worst_key_429 || cells[i].worst_key_429 <= *constraints.max_worst_key_429);
    if (meets && (!r.best || cells[i].total.admitted_cost < cells[*r.best].total.admitted_cost)) {
      r.best = i;
    }
  }
  return r;
}

}  // namespace limitscope::tuner
