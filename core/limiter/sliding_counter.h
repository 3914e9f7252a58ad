#pragma once
// Sliding window counter: an approximation of the sliding log in three numbers. Windows are
// aligned to multiples of W on the timeline; with `prev` the cost admitted in the previous
// window, `curr` in the current one and `elapsed` the time since the current window started,
// a request of cost c is admitted iff prev·(W − elapsed)/W + curr + c <= L.
// It assumes the previous window's traffic was spread evenly; with bursty traffic it can admit
// more than L in a true sliding window (at most 2L when the previous window's burst came at
// its very end) or less. docs/limiters.md shows the error measured against the exact log.
// Uses LimitParams::limit (L) and LimitParams::window (W).

#include <cstdint>

#include "core/limiter/algorithm.h"

namespace limitscope {

struct SlidingCounter {
  static constexpr Algorithm kAlgorithm = Algorithm::sliding_counter;

  struct State {
    std::int64_t window_start_ns = 0;  // start of the current window, a multiple of W
    double prev = 0;                   // cost admitted in [start − W, start)
    double curr = 0;                   // cost admitted in [start, start + W)
  };

  // The LimiterAlgorithm functions (algorithm.h), as this algorithm defines them:
  // - fresh: returns empty counts, window aligned to the one containing `now`.
  // - decide: Rolls the windows forward to `now`, admits iff the weighted estimate + cost <=
  //   L. A rejection leaves `s` untouched; retry_after = the exact time until the estimate
  //   has decayed enough (never more than 2W). `now` before window_start counts as
  //   window_start.
  // - idle: returns true when the estimate is 0 at `now`.
  // - available: returns L minus the weighted estimate, cost units (>= 0).
  // - reconfigure: Rolls to `now` under p, keeps prev and curr (each clamped to the new
  //   limit) and re-aligns the current window to a multiple of the new W containing `now`.
  LIMITSCOPE_LIMITER_ALGORITHM_FUNCTIONS;
};

static_assert(LimiterAlgorithm<SlidingCounter>);
static_assert(sizeof(SlidingCounter::State) <= 24, "a keyed table holds millions of these");

}  // namespace limitscope
