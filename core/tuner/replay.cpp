#include "core/tuner/replay.h"

#include <algorithm>
#include <deque>
#include <optional>

#include "core/limiter/algorithms.h"

namespace limitscope::tuner {

namespace {

// Runs `on_decision(event index, Decision)` for every event with one state per key.
template <class OnDecision>
void run(const Trace& trace, const LimitParams& params, OnDecision&& on_decision) {
  visit_algorithm(params.algorithm, [&](auto algo) {
    using A = decltype(algo);
    std::vector<std::optional<typename A::State>> states(trace.keys.size());
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      const TraceEvent& e = trace.events[i];
      const Nanos now{e.t_us * 1000};
      auto& s = states[e.key];
      if (!s) s = A::fresh(params, now);
      on_decision(i, A::decide(params, *s, now, e.cost));
    }
  });
}

std::optional<std::string> check(const Trace& trace, const LimitParams& params) {
  if (auto why = params.validate()) return "parameters: " + *why;
  (void)trace;
  return std::nullopt;
}

}  // namespace

Expected<ReplayResult> replay(const Trace& trace, const LimitParams& params) {
  if (auto why = check(trace, params)) return make_error(*why);
  ReplayResult r;
  r.params = params;
  r.by_key.resize(trace.keys.size());
  r.by_model.resize(trace.models.size());
  r.by_tier.resize(trace.tiers.size());
  std::deque<std::int64_t> window;  // times of admitted requests in the last second
  double largest_cost = 0;
  run(trace, params, [&](std::size_t i, const Decision& d) {
    const TraceEvent& e = trace.events[i];
    largest_cost = std::max(largest_cost, e.cost);
    r.total.add(d.allowed, e.cost);
    r.by_key[e.key].add(d.allowed, e.cost);
    r.by_model[e.model].add(d.allowed, e.cost);
    r.by_tier[e.tier].add(d.allowed, e.cost);
    if (d.allowed) {
      window.push_back(e.t_us);
      while (window.front() <= e.t_us - 1'000'000) window.pop_front();
      r.largest_burst_admitted = std::max<std::uint64_t>(r.largest_burst_admitted, window.size());
      const double delay_s = static_cast<double>(d.delay.count()) / 1e9;
      r.total_delay_s += delay_s;
      r.max_delay_s = std::max(r.max_delay_s, delay_s);
    }
  });
  if (largest_cost > params.max_cost()) {
    r.warnings.push_back("the largest cost in the trace (" + std::to_string(largest_cost) +
                         ") is above " + params.describe() +
                         "'s maximum: those requests can never be admitted");
  }
  return r;
}

Expected<std::vector<bool>> replay_decisions(const Trace& trace, const LimitParams& params) {
  if (auto why = check(trace, params)) return make_error(*why);
  std::vector<bool> out(trace.events.size());
  run(trace, params, [&](std::size_t i, const Decision& d) { out[i] = d.allowed; });
  return out;
}

}  // namespace limitscope::tuner
