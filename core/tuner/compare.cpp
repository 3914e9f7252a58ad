#include "core/tuner/compare.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <type_traits>

#include "core/limiter/algorithms.h"

namespace limitscope::tuner {

namespace {

// The most cost admitted to one key within any window of length W (exact, two pointers).
double max_window_cost(const trace::Trace& trace, const std::vector<bool>& allowed, Nanos window) {
  const std::int64_t w_ns = window.count();
  std::vector<std::deque<std::pair<std::int64_t, double>>> per_key(trace.keys.size());
  std::vector<double> sum(trace.keys.size(), 0);
  double best = 0;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    if (!allowed[i]) continue;
    const trace::TraceEvent& e = trace.events[i];
    auto& q = per_key[e.key];
    q.emplace_back(e.t_ns, e.cost);
    sum[e.key] += e.cost;
    // Window (t − W, t]: drop what is W or more older.
    while (!q.empty() && q.front().first <= e.t_ns - w_ns) {
      sum[e.key] -= q.front().second;
      q.pop_front();
    }
    best = std::max(best, sum[e.key]);
  }
  return best;
}

// Bytes of one key's state: the fixed-size State, plus the sliding log's entries at their
// largest (replayed per key to find it).
double state_bytes(const trace::Trace& trace, const LimitParams& p) {
  return visit_algorithm(p.algorithm, [&](auto algo) -> double {
    using A = decltype(algo);
    if constexpr (std::is_same_v<A, SlidingLog>) {
      std::vector<std::optional<SlidingLog::State>> states(trace.keys.size());
      std::size_t most = 0;
      for (const auto& e : trace.events) {
        const Nanos now{e.t_ns};
        auto& s = states[e.key];
        if (!s) s = SlidingLog::fresh(p, now);
        SlidingLog::decide(p, *s, now, e.cost);
        most = std::max(most, s->size());
      }
      return static_cast<double>(sizeof(SlidingLog::State) + most * sizeof(SlidingLog::Entry));
    } else {
      return static_cast<double>(sizeof(typename A::State));
    }
  });
}

}  // namespace

Expected<std::vector<AlgorithmComparison>> compare_algorithms(const trace::Trace& trace,
                                                              double limit, Nanos window) {
  if (trace.events.empty()) return make_error("the trace has no events");
  std::vector<AlgorithmComparison> out;
  for (Algorithm a : {Algorithm::token_bucket, Algorithm::gcra, Algorithm::sliding_log,
                      Algorithm::sliding_counter, Algorithm::fixed_window}) {
    LimitParams p;
    p.algorithm = a;
    if (is_window_algorithm(a)) {
      p.limit = limit;
      p.window = window;
    } else {
      p.capacity = limit;
      p.refill = Rate{limit, window};
    }
    if (Status why = p.validate(); !why.ok())
      return make_error(std::string(to_string(a)) + ": " + why.error());
    auto decisions = replay_decisions(trace, p);
    if (!decisions) return make_error(decisions.error());
    AlgorithmComparison c;
    c.params = p;
    for (std::size_t i = 0; i < trace.events.size(); ++i)
      c.total.add((*decisions)[i], trace.events[i].cost);
    c.max_window_cost = max_window_cost(trace, *decisions, window);
    c.over_admission = std::max(0.0, c.max_window_cost / limit - 1);
    c.state_bytes_per_key = state_bytes(trace, p);
    out.push_back(c);
  }
  return out;
}

}  // namespace limitscope::tuner
