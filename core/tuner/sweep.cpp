#include "core/tuner/sweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <thread>

#include "core/limiter/algorithms.h"
#include "core/tuner/number_text.h"

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

// One event for the configurations [0, n) of a token bucket slice, in struct-of-arrays form
// (see token_bucket_slice). Built for AVX2 and for the baseline; the CPU picks at load time.
// Times are ns since the trace's first event, as doubles: exact below 2^53 ns (104 days), so
// dt and refill are the very values TokenBucket computes from int64 ns.
// Every array is distinct (restrict) and of doubles (counts below 2^53 are exact), so the loop
// vectorises: no branch, one blend per update.
__attribute__((target_clones("avx2", "default"))) void token_bucket_event(
    std::size_t n, double t, double cost, const double* __restrict cap,
    const double* __restrict amount, const double* __restrict period, double* __restrict tk,
    double* __restrict ls, double* __restrict kr, double* __restrict adm,
    double* __restrict adm_cost, double* __restrict rej_cost, double* __restrict okv) {
  for (std::size_t c = 0; c < n; ++c) {
    const double dt = t - ls[c];  // >= 0: the trace is in time order
    const double refill = dt * amount[c] / period[c];
    const double sum = tk[c] + refill;
    const double level = cap[c] < sum ? cap[c] : sum;
    const bool ok = (cost <= cap[c]) & (level >= cost);
    tk[c] = ok ? level - cost : tk[c];
    ls[c] = ok ? t : ls[c];
    adm[c] += ok ? 1.0 : 0.0;
    adm_cost[c] += ok ? cost : 0.0;
    rej_cost[c] += ok ? 0.0 : cost;
    kr[c] += ok ? 0.0 : 1.0;
    okv[c] = ok ? 1.0 : 0.0;
  }
}

// The spend of one event for the configurations that admitted it (okv 1.0 or 0.0): d·1 = d
// and x + 0 = x exactly, so the sums equal replay()'s, which adds only admitted requests.
__attribute__((target_clones("avx2", "default"))) void spend_event(std::size_t n, double dollars,
                                                                   const double* __restrict okv,
                                                                   double* __restrict key_minute,
                                                                   double* __restrict adm_spend) {
  for (std::size_t c = 0; c < n; ++c) {
    key_minute[c] += okv[c] * dollars;
    adm_spend[c] += okv[c] * dollars;
  }
}

// Each key's spend in its current minute per configuration, folded into the configuration's
// worst when the key's next request falls in a later minute (as KeyMinuteSpend in pricing.h does).
struct MinuteSpend {
  MinuteSpend(std::size_t keys, std::size_t configs)
      : n(configs),
        minute(keys, -1),
        spend(keys * configs, 0),
        worst(configs, 0),
        admitted(configs, 0) {}
  // Folds the key's row when `t_ns` starts a new minute for it; returns its row.
  double* row(std::uint32_t key, std::int64_t t_ns) {
    double* r = spend.data() + static_cast<std::size_t>(key) * n;
    const std::int64_t m = t_ns / KeyMinuteSpend::kMinuteNs;
    if (m != minute[key]) {
      fold(r);
      minute[key] = m;
    }
    return r;
  }
  void finish() {
    for (std::size_t k = 0; k < minute.size(); ++k) fold(spend.data() + k * n);
  }
  std::size_t n;
  std::vector<std::int64_t> minute;
  std::vector<double> spend;
  std::vector<double> worst;
  std::vector<double> admitted;  // dollars admitted in all, per configuration

 private:
  void fold(double* r) {
    for (std::size_t c = 0; c < n; ++c) {
      worst[c] = std::max(worst[c], r[c]);
      r[c] = 0;
    }
  }
};

// Token bucket, struct of arrays: for one event, every configuration of the slice in one loop
// with the exact arithmetic of TokenBucket::decide (level_at, commit only when admitted). The
// loop is memory-bound (one row of `n` states per key), so it keeps only what cannot be
// derived: rejections follow from the per-key and total request counts.
bool token_bucket_slice(const trace::Trace& trace, const Pricing* pricing,
                        std::vector<SweepCell>& cells, std::size_t from, std::size_t to,
                        const std::atomic<bool>* cancel,
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
  std::vector<double> last(keys * n);
  std::vector<double> key_rejected(keys * n, 0);
  std::vector<std::uint32_t> key_requests(keys, 0);
  std::vector<char> seen(keys, 0);
  std::vector<double> adm(n, 0);
  std::vector<double> adm_cost(n, 0);
  std::vector<double> rej_cost(n, 0);  // summed as replay() sums it, for bit-equal results
  std::vector<double> okv(n, 0);       // 1.0 where the event was admitted
  std::optional<MinuteSpend> spend;
  if (pricing != nullptr) spend.emplace(keys, n);
  const auto& events = trace.events;
  const std::int64_t origin = events.front().t_ns;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i % kChunk == 0 && i > 0) {
      if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return false;
      if (progress) progress(static_cast<double>(i) / static_cast<double>(events.size()));
    }
    const trace::TraceEvent& e = events[i];
    const double t = static_cast<double>(e.t_ns - origin);
    const std::size_t row = static_cast<std::size_t>(e.key) * n;
    if (seen[e.key] == 0) {
      seen[e.key] = 1;
      for (std::size_t c = 0; c < n; ++c) {
        tokens[row + c] = cap[c];
        last[row + c] = t;
      }
    }
    ++key_requests[e.key];
    token_bucket_event(n, t, e.cost, cap.data(), amount.data(), period.data(), tokens.data() + row,
                       last.data() + row, key_rejected.data() + row, adm.data(), adm_cost.data(),
                       rej_cost.data(), okv.data());
    if (spend) {
      spend_event(n, pricing->dollars(trace, i), okv.data(), spend->row(e.key, e.t_ns),
                  spend->admitted.data());
    }
  }
  if (spend) spend->finish();
  for (std::size_t c = 0; c < n; ++c) {
    SweepCell& cell = cells[from + c];
    cell.total.admitted = static_cast<std::uint64_t>(adm[c]);
    cell.total.rejected = events.size() - cell.total.admitted;
    cell.total.admitted_cost = adm_cost[c];
    cell.total.rejected_cost = rej_cost[c];
    if (spend) {
      cell.total.admitted_spend = spend->admitted[c];
      cell.worst_key_spend_per_min = spend->worst[c];
    }
    double worst = 0;
    for (std::size_t key = 0; key < keys; ++key) {
      if (key_requests[key] == 0) continue;
      worst = std::max(worst, key_rejected[key * n + c] / key_requests[key]);
    }
    cell.worst_key_429 = worst;
  }
  return true;
}

// Any algorithm: one typed state per (key, configuration), configurations of the slice
// decided event by event with the algorithm's own decide().
bool generic_slice(const trace::Trace& trace, const Pricing* pricing, std::vector<SweepCell>& cells,
                   std::size_t from, std::size_t to, const std::atomic<bool>* cancel,
                   const std::function<void(double)>& progress) {
  const std::size_t n = to - from;
  const std::size_t keys = trace.keys.size();
  return visit_algorithm(cells[from].params.algorithm, [&](auto algo) {
    using A = decltype(algo);
    std::vector<std::optional<typename A::State>> states(keys * n);
    KeyCounts kc{std::vector<std::uint32_t>(keys * n, 0), std::vector<std::uint32_t>(keys * n, 0)};
    std::optional<MinuteSpend> spend;
    if (pricing != nullptr) spend.emplace(keys, n);
    const auto& events = trace.events;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (i % kChunk == 0 && i > 0) {
        if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return false;
        if (progress) progress(static_cast<double>(i) / static_cast<double>(events.size()));
      }
      const trace::TraceEvent& e = events[i];
      const Nanos now{e.t_ns};
      const double dollars = spend ? pricing->dollars(trace, i) : 0;
      double* minute_row = spend ? spend->row(e.key, e.t_ns) : nullptr;
      for (std::size_t c = 0; c < n; ++c) {
        SweepCell& cell = cells[from + c];
        auto& s = states[static_cast<std::size_t>(e.key) * n + c];
        if (!s) s = A::fresh(cell.params, now);
        const bool ok = A::decide(cell.params, *s, now, e.cost).allowed;
        cell.total.add(ok, e.cost, dollars);
        if (minute_row != nullptr && ok) minute_row[c] += dollars;
        kc.admitted[static_cast<std::size_t>(e.key) * n + c] += ok;
        kc.rejected[static_cast<std::size_t>(e.key) * n + c] += !ok;
      }
    }
    if (spend) spend->finish();
    for (std::size_t c = 0; c < n; ++c) {
      cells[from + c].worst_key_429 = worst_key(kc, keys, n, c);
      if (spend) cells[from + c].worst_key_spend_per_min = spend->worst[c];
    }
    return true;
  });
}

}  // namespace

std::vector<double> SweepAxis::values() const {
  std::vector<double> out;
  if (steps <= 1) return {min};
  for (int i = 0; i < steps; ++i) {
    if (i == 0 || i == steps - 1) {
      out.push_back(i == 0 ? min : max);
    } else if (spacing == Spacing::linear) {
      out.push_back(min + (max - min) * i / (steps - 1));
    } else {
      const double v = min * std::pow(max / min, static_cast<double>(i) / (steps - 1));
      // 3 significant digits, kept strictly inside (min, max) and rising.
      const double r = round_significant(v, 3);
      out.push_back(r > out.back() && r < max ? r : v);
    }
  }
  return out;
}

Expected<SweepAxis> parse_axis(std::string_view text, std::string_view what) {
  const std::string shown = "--" + std::string(what) + " '" + std::string(text) + "'";
  const auto a = text.find(':');
  const auto b = a == std::string_view::npos ? a : text.find(':', a + 1);
  if (b == std::string_view::npos) return make_error(shown + ": expected MIN:MAX:STEPS[:log|lin]");
  const auto c = text.find(':', b + 1);
  Spacing spacing = Spacing::log;
  if (c != std::string_view::npos) {
    const std::string_view how = text.substr(c + 1);
    if (how == "lin" || how == "linear")
      spacing = Spacing::linear;
    else if (how != "log")
      return make_error(shown + ": the spacing after STEPS must be log or lin");
    text = text.substr(0, c);
  }
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
  axis.spacing = spacing;
  if (axis.min == axis.max && axis.steps != 1)
    return make_error(shown + ": MIN == MAX needs STEPS 1");
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

Expected<SweepResult> sweep(const trace::Trace& trace, const SweepSpec& spec,
                            const std::atomic<bool>* cancel,
                            const std::function<void(double)>& progress) {
  SweepResult result;
  for (double x : spec.x.values()) {
    for (double y : spec.y.values()) {
      SweepCell cell;
      cell.params = cell_params(spec, x, y);
      if (Status why = cell.params.validate(); !why.ok()) {
        return make_error("sweep cell x=" + std::to_string(x) + " y=" + std::to_string(y) + ": " +
                          why.error());
      }
      cell.x = x;
      cell.y = y;
      result.cells.push_back(cell);
    }
  }
  if (trace.events.empty()) return make_error("the trace has no events");
  // The fast path keeps times as doubles of ns since the first event: exact below 2^53 ns.
  const std::int64_t span_ns = trace.events.back().t_ns - trace.events.front().t_ns;
  result.fast_path =
      spec.base.algorithm == Algorithm::token_bucket && span_ns < (std::int64_t{1} << 53);
  std::optional<Pricing> pricing;
  if (spec.pricing != nullptr) {
    pricing = Pricing::for_trace(trace, *spec.pricing);
    result.priced = pricing->priced();
    result.unpriced_reason = pricing->unpriced_reason();
  }
  const Pricing* priced = pricing && pricing->priced() ? &*pricing : nullptr;
  const std::size_t total = result.cells.size();
  const std::size_t threads =
      std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1, spec.threads)), 1, total);
  std::vector<std::thread> pool;
  std::atomic<bool> ok{true};
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t from = total * t / threads;
    const std::size_t to = total * (t + 1) / threads;
    pool.emplace_back([&, from, to, t] {
      // Only the first thread reports progress (the slices advance at the same pace).
      const std::function<void(double)> report = t == 0 ? progress : std::function<void(double)>{};
      const bool done =
          result.fast_path
              ? token_bucket_slice(trace, priced, result.cells, from, to, cancel, report)
              : generic_slice(trace, priced, result.cells, from, to, cancel, report);
      if (!done) ok = false;
    });
  }
  for (auto& th : pool) th.join();
  if (!ok) return make_error("sweep cancelled");
  if (progress) progress(1.0);
  return result;
}

double cell_cheapness(const SweepResult& result, const SweepCell& cell) {
  return result.priced ? cell.total.admitted_spend : cell.total.admitted_cost;
}

bool meets(const SweepResult& result, const SweepCell& cell, const Constraints& constraints) {
  return (!constraints.max_ratio_429 || cell.total.ratio_429() <= *constraints.max_ratio_429) &&
         (!constraints.max_worst_key_429 || cell.worst_key_429 <= *constraints.max_worst_key_429) &&
         (!constraints.max_worst_key_spend_per_min ||
          (result.priced &&
           cell.worst_key_spend_per_min <= *constraints.max_worst_key_spend_per_min)) &&
         (!constraints.max_cheapness || cell_cheapness(result, cell) <= *constraints.max_cheapness);
}

Status check_constraints(const SweepResult& result, const Constraints& constraints) {
  if (constraints.max_worst_key_spend_per_min && !result.priced) {
    return make_error(
        "a spend limit needs prices, and no request of the trace has one" +
        (result.unpriced_reason.empty() ? std::string() : " (" + result.unpriced_reason + ")"));
  }
  return {};
}

Recommendation recommend(const SweepResult& result, const Constraints& constraints) {
  Recommendation r;
  const auto& cells = result.cells;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const double ci = cell_cheapness(result, cells[i]);
    bool dominated = false;
    for (std::size_t j = 0; j < cells.size() && !dominated; ++j) {
      if (j == i) continue;
      const double cj = cell_cheapness(result, cells[j]);
      const bool no_worse = cells[j].total.ratio_429() <= cells[i].total.ratio_429() && cj <= ci;
      const bool better = cells[j].total.ratio_429() < cells[i].total.ratio_429() || cj < ci;
      dominated = no_worse && better;
    }
    if (!dominated) r.frontier.push_back(i);
    if (meets(result, cells[i], constraints) &&
        (!r.best || ci < cell_cheapness(result, cells[*r.best]))) {
      r.best = i;
    }
  }
  return r;
}

}  // namespace limitscope::tuner
