#pragma once
// Fixed window: windows [kW, (k+1)W) aligned to multiples of W on the timeline; a request of
// cost c is admitted iff the cost already admitted in the current window plus c is <= L.
// Caveat: L at the end of one window and L at the start of the next are both admitted, so it
// allows 2L within any interval of length W that spans a boundary.
// Uses LimitParams::limit (L) and LimitParams::window (W).

#include <cstdint>

#include "core/limiter/algorithm.h"

namespace limitscope {

struct FixedWindow {
  static constexpr Algorithm kAlgorithm = Algorithm::fixed_window;

  struct State {
    std::int64_t window_start_ns = 0;  // start of the window `count` belongs to, multiple of W
    double count = 0;                  // cost admitted in that window, cost units
  };

  // The LimiterAlgorithm functions (algorithm.h), as this algorithm defines them:
  // - fresh: returns an empty count in the window containing `now`.
  // - decide: Starts a new window when `now` has left the old one, admits iff count + cost
  //   <= L. A rejection leaves `s` untouched; retry_after = the time until the next window
  //   starts. `now` before window_start counts as window_start.
  // - idle: returns true when nothing was admitted in the window containing `now`.
  // - available: returns L minus the count of the window containing `now`, cost units.
  // - reconfigure: Keeps the count of the current window (clamped to the new limit) and re-
  //   aligns the window to a multiple of the new W containing `now`.
  LIMITSCOPE_LIMITER_ALGORITHM_FUNCTIONS;
};

static_assert(LimiterAlgorithm<FixedWindow>);
static_assert(sizeof(FixedWindow::State) <= 16, "a keyed table holds millions of these");

}  // namespace limitscope
