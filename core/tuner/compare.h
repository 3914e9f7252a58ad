#pragma once
// One trace, five algorithms set to the same nominal limit (L per window W; the buckets get
// capacity L refilled at L/W): 429 ratio side by side, how far each admits beyond the exact
// sliding window (the most cost any key got admitted within any window of length W, against
// L), and the memory one key's state takes.

#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/trace/trace.h"
#include "core/tuner/replay.h"

namespace limitscope::tuner {

struct AlgorithmComparison {
  LimitParams params;
  Counts total;
  double max_window_cost = 0;      ///< most cost admitted to one key within any window W
  double over_admission = 0;       ///< max_window_cost / L − 1, 0 when within the limit
  double state_bytes_per_key = 0;  ///< largest per-key state seen (sliding log grows with L)
};

/// @param limit L, cost units per window
/// @param window W
Expected<std::vector<AlgorithmComparison>> compare_algorithms(const trace::Trace& trace,
                                                              double limit, Nanos window);

}  // namespace limitscope::tuner
