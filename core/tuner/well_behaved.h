#pragma once
// "429 ratio of well-behaved keys ≤ 0.1%": the constraint operators state, since a runaway
// client's 429s are the limiter doing its job and would otherwise decide every comparison.
// A key is well-behaved when its mean cost rate over the trace is at most `factor` times the
// median key's (factor 5 by default, and the operator can change it: an outlier rule, not a
// statistic). Keys never share limiter state, so the well-behaved keys' decisions under any setting
// are those of the trace restricted to them: a second sweep over that sub-trace gives every cell's
// figure exactly.

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include "core/common/expected.h"
#include "core/trace/trace.h"
#include "core/tuner/sweep.h"

namespace limitscope::tuner {

/// Per key (indexed like Trace::keys): true when its cost per second over the trace is at
/// most factor × the median key's. Every key is well-behaved in a trace of one or two keys.
std::vector<bool> well_behaved_keys(const trace::Trace& trace, double factor = 5);

/// The events of the kept keys, in order (keys renumbered, names kept).
trace::Trace restrict_to_keys(const trace::Trace& trace, const std::vector<bool>& keep);

struct GuidedSweep {
  SweepResult all;           ///< every key
  SweepResult well_behaved;  ///< the same cells, well-behaved keys only (empty cells if none)
  std::size_t well_behaved_keys = 0;
  std::size_t keys = 0;
};

struct OperatorConstraints {
  Constraints core;                            ///< overall and worst-key 429 ratio
  std::optional<double> max_well_behaved_429;  ///< 429 ratio of the well-behaved keys
  double well_behaved_factor = 5;              ///< see well_behaved_keys()
};

/// Both sweeps (progress: the first half, then the second).
Expected<GuidedSweep> sweep_with_well_behaved(const trace::Trace& trace, const SweepSpec& spec,
                                              double factor = 5,
                                              const std::atomic<bool>* cancel = nullptr,
                                              const std::function<void(double)>& progress = {});

/// recommend() on all keys, with the well-behaved constraint added: the frontier is the same;
/// the best cell is the one with the least admitted cost meeting every constraint.
Recommendation recommend(const GuidedSweep& sweep, const OperatorConstraints& constraints);

}  // namespace limitscope::tuner
