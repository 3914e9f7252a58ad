#pragma once
// Replays a trace through one algorithm and parameter set of the core, one limiter state per
// key (created fresh at the key's first request, as the keyed limiter does), with the core's
// own decide(): what would have happened with these settings. Counts by key, tier and model,
// the 429 ratio, the largest burst admitted, the waits a shaping algorithm imposed, and, with
// prices (pricing.h), the dollars admitted, the worst key's spend in any minute and the daily
// quota burn over time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/algorithms.h"
#include "core/limiter/limit_params.h"
#include "core/trace/trace.h"
#include "core/tuner/pricing.h"

namespace limitscope::tuner {

struct Counts {
  std::uint64_t admitted = 0;
  std::uint64_t rejected = 0;
  double admitted_cost = 0;
  double rejected_cost = 0;
  double admitted_spend = 0;  ///< dollars of the admitted requests (0 without prices)
  /// rejected / (admitted + rejected); 0 for no requests.
  double ratio_429() const {
    const auto n = admitted + rejected;
    return n == 0 ? 0 : static_cast<double>(rejected) / static_cast<double>(n);
  }
  void add(bool allowed, double cost, double dollars = 0) {
    if (allowed) {
      ++admitted;
      admitted_cost += cost;
      admitted_spend += dollars;
    } else {
      ++rejected;
      rejected_cost += cost;
    }
  }
};

/// One step of the replay's timeline (all steps from the first event to the last, empty ones
/// included, so they plot on an even axis).
struct TimelinePoint {
  double t_s = 0;  ///< the step's start, seconds since the trace's first event
  std::uint64_t admitted = 0;
  std::uint64_t rejected = 0;
  double spend = 0;  ///< dollars admitted in the step
  /// The highest daily quota burn of any key at the end of the step: cost units admitted to
  /// it since the UTC day began over its tier's daily quota (above 1 when over).
  double max_quota_burn = 0;
  std::uint32_t keys_over_quota = 0;  ///< keys at or above their quota that day
};

struct ReplayOptions {
  /// Prices and quotas; nullptr: no spend and no quota burn (counts only).
  const PricingOptions* pricing = nullptr;
  /// The timeline's step; 0 picks a round step giving at most 200 points.
  Nanos timeline_step{0};
};

struct ReplayResult {
  LimitParams params;
  Counts total;
  std::vector<Counts> by_key;                ///< indexed like Trace::keys
  std::vector<Counts> by_model;              ///< indexed like Trace::models
  std::vector<Counts> by_tier;               ///< indexed like Trace::tiers
  std::uint64_t largest_burst_admitted = 0;  ///< most requests admitted within any 1 s
  double total_delay_s = 0;  ///< shaping waits (leaky bucket), summed over admitted requests
  double max_delay_s = 0;
  std::vector<std::string> warnings;  ///< e.g. costs the capacity can never admit
  SpendSummary spend;
  std::vector<TimelinePoint> timeline;
  Nanos timeline_step{0};
};

/// Calls on_decision(event index, Decision) for every event of `trace` in order, each decided
/// by the core's decide() with `params` on one state per key (fresh at the key's first event):
/// the loop every replay of a trace runs. `params` must be valid (LimitParams::validate()).
template <class OnDecision>
void for_each_decision(const trace::Trace& trace, const LimitParams& params,
                       OnDecision&& on_decision) {
  visit_algorithm(params.algorithm, [&](auto algo) {
    using A = decltype(algo);
    std::vector<std::optional<typename A::State>> states(trace.keys.size());
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      const trace::TraceEvent& e = trace.events[i];
      const Nanos now{e.t_ns};
      auto& s = states[e.key];
      if (!s) s = A::fresh(params, now);
      on_decision(i, A::decide(params, *s, now, e.cost));
    }
  });
}

/// @return the result, or an error naming the invalid parameter
Expected<ReplayResult> replay(const trace::Trace& trace, const LimitParams& params,
                              const ReplayOptions& options = {});

/// The round timeline step ReplayOptions picks for a trace of `span` (1 s to 1 day).
Nanos auto_timeline_step(Nanos span);

/// The decisions themselves, in trace order (for tests and the what-if chart).
Expected<std::vector<bool>> replay_decisions(const trace::Trace& trace, const LimitParams& params);

}  // namespace limitscope::tuner
