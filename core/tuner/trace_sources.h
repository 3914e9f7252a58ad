#pragma once
// Traces from the dashboard's other sources: the embedded simulation's scenario (every request
// the simulated clients send, retries included, as the limiter saw them) and a recorded
// dashboard session (its request lines). Both are bounded by an event cap, like files.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/recording/recording_reader.h"
#include "core/trace/trace.h"

namespace limitscope::tuner {

struct ScenarioTraceOptions {
  std::string scenario = "mixed";
  std::uint64_t seed = 1;
  Nanos duration{std::chrono::minutes(5)};  ///< simulated time
  std::size_t max_events = 16'000'000;      ///< more is refused (24 B each)
};

/// Runs the scenario under the default policy and keeps every decided request as an event
/// (time since the run began, key, cost, model, tier).
/// @param cancel checked once per simulated second; a cancelled run returns "cancelled"
/// @param progress fraction of the simulated time done
/// @return the trace, or an error naming the scenario or the cap
Expected<trace::Trace> trace_from_scenario(const ScenarioTraceOptions& options,
                                           const std::atomic<bool>* cancel = nullptr,
                                           const std::function<void(double)>& progress = {});

/// The request lines of a recording as a trace, in time order (lines written in batches may
/// interleave: they are sorted by time, equal times keep their order). A recording that ended
/// on a bad line gives that error, with its line, beside the good requests.
/// @param max_events more requests than this is an error and no trace
Expected<trace::TraceLoad> trace_from_recording(const Recording& recording,
                                                const std::string& load_error,
                                                std::size_t max_events = 16'000'000);

}  // namespace limitscope::tuner
