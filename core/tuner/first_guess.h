#pragma once
// A first guess at a setting from the trace itself, before any sweep: percentiles over the
// well-behaved keys (well_behaved.h) of how much each key sends at its busiest. A bucket's
// refill is the 95th percentile of a key's busiest minute (cost per second), its capacity the
// 95th percentile of a key's busiest second (at least the largest cost); a window algorithm
// takes a 60 s window and the 95th percentile of a key's busiest minute as the limit. So 95% of
// well-behaved keys would never have been refused at their busiest. Values are rounded to 2
// significant digits; the sweep's axes are then centred on the guess (suggest_axes).

#include <string>

#include "core/limiter/limit_params.h"
#include "core/trace/trace.h"

namespace limitscope::tuner {

struct KeyPeaks {
  double busiest_second = 0;  ///< most cost within any 1 s
  double busiest_minute = 0;  ///< most cost within any 60 s (the trace's span when shorter)
};

/// Per key (indexed like Trace::keys).
std::vector<KeyPeaks> key_peaks(const trace::Trace& trace);

/// The p-quantile (0..1, nearest rank) of `values`; 0 when empty.
double percentile(std::vector<double> values, double p);

struct FirstGuess {
  LimitParams params;
  std::string basis;  ///< how it was made, in words, with the figures
};

/// @param algorithm the setting's algorithm (its refill period is per second)
FirstGuess first_guess(const trace::Trace& trace, Algorithm algorithm);

}  // namespace limitscope::tuner
