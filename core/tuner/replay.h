#pragma once
// Replays a trace through one algorithm and parameter set of the core, one limiter state per
// key (created fresh at the key's first request, as the keyed limiter does), with the core's
// own decide(): what would have happened with these settings. Counts by key, tier and model,
// the 429 ratio, the largest burst admitted, and the waits a shaping algorithm imposed.

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/tuner/trace.h"

namespace limitscope::tuner {

struct Counts {
  std::uint64_t admitted = 0;
  std::uint64_t rejected = 0;
  double admitted_cost = 0;
  double rejected_cost = 0;
  /// rejected / (admitted + rejected); 0 for no requests.
  double ratio_429() const {
    const auto n = admitted + rejected;
    return n == 0 ? 0 : static_cast<double>(rejected) / static_cast<double>(n);
  }
  void add(bool allowed, double cost) {
    if (allowed) {
      ++admitted;
      admitted_cost += cost;
    } else {
      ++rejected;
      rejected_cost += cost;
    }
  }
};

struct ReplayResult {
  LimitParams params;
  Counts total;
  std::vector<Counts> by_key;    ///< indexed like Trace::keys
  std::vector<Counts> by_model;  ///< indexed like Trace::models
  std::vector<Counts> by_tier;   ///< indexed like Trace::tiers
  std::uint64_t largest_burst_admitted = 0;  ///< most requests admitted within any 1 s
  double total_delay_s = 0;      ///< shaping waits (leaky bucket), summed over admitted requests
  double max_delay_s = 0;
  std::vector<std::string> warnings;  ///< e.g. costs the capacity can never admit
};

/// @return the result, or an error naming the invalid parameter
Expected<ReplayResult> replay(const Trace& trace, const LimitParams& params);

/// The decisions themselves, in trace order (for tests and the what-if chart).
Expected<std::vector<bool>> replay_decisions(const Trace& trace, const LimitParams& params);

}  // namespace limitscope::tuner
