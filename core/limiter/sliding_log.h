#pragma once
// Sliding window log: exact. It remembers each admitted request (time, cost) and admits a
// request of cost c at t iff the cost admitted in (t − W, t] plus c is <= L.
// Memory: entries are live only inside the window, so there are at most L / (smallest cost)
// of them (<= L for integral costs); requests admitted at the same nanosecond share one entry.
// Uses LimitParams::limit (L, cost units per window) and LimitParams::window (W).

#include <cstdint>
#include <vector>

#include "core/limiter/algorithm.h"

namespace limitscope {

struct SlidingLog {
  static constexpr Algorithm kAlgorithm = Algorithm::sliding_log;

  struct Entry {
    std::int64_t t_ns = 0;  // admission time, ns
    double cost = 0;        // cost units admitted at t_ns
  };

  struct State {
    std::vector<Entry> entries;  // oldest first; entries before `head` are expired
    std::uint32_t head = 0;      // first entry that may still be inside the window
    double used = 0;             // sum of entries[head..].cost, cost units

    /// Entries not yet dropped (some may have expired since the last decision).
    std::size_t size() const { return entries.size() - head; }
  };

  // The LimiterAlgorithm functions (algorithm.h), as this algorithm defines them:
  // - fresh: returns an empty log.
  // - decide: Drops entries outside (now − W, now], admits iff used + cost <= L and then
  //   logs it. A rejection changes nothing observable; retry_after = when enough old entries
  //   leave the window (exact). `now` earlier than the newest entry counts as the newest
  //   entry's time.
  // - idle: returns true when no entry is inside the window.
  // - available: returns L minus the cost inside the window, cost units.
  // - reconfigure: Keeps the entries already logged (measured against the new window from
  //   now on) and, when they exceed the new limit, drops the oldest until they fit: the
  //   window is then full.
  LIMITSCOPE_LIMITER_ALGORITHM_FUNCTIONS;
};

static_assert(LimiterAlgorithm<SlidingLog>);

}  // namespace limitscope
