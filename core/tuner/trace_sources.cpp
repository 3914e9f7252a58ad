#include "core/tuner/trace_sources.h"

#include <algorithm>
#include <numeric>

#include "core/limiter/policy.h"
#include "core/sim/scenario.h"
#include "core/sim/simulation.h"

namespace limitscope::tuner {

namespace {
// The simulation and recordings carry each request's LLM tokens; a line without them (a
// source that had none, e.g. a decision stream without tokens) is unknown, so unpriced.
std::optional<std::uint32_t> token_count(std::int64_t llm_tokens) {
  if (llm_tokens < 0 || llm_tokens >= trace::Trace::kNoTokens) return std::nullopt;
  return static_cast<std::uint32_t>(llm_tokens);
}
}  // namespace

Expected<trace::Trace> trace_from_scenario(const ScenarioTraceOptions& options,
                                           const std::atomic<bool>* cancel,
                                           const std::function<void(double)>& progress) {
  if (options.duration <= Nanos{0}) return make_error("scenario trace: the duration must be > 0");
  auto spec = make_scenario(options.scenario, options.duration);
  if (!spec) return make_error(spec.error());
  SimulationOptions so;
  so.seed = options.seed;
  so.record_requests = true;
  auto sim = Simulation::create(default_policy(), std::move(*spec), so);
  if (!sim) return make_error("scenario " + options.scenario + ": " + sim.error());
  trace::Trace trace;
  const double total = static_cast<double>(options.duration.count());
  while ((*sim)->now() < options.duration) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed))
      return make_error("cancelled");
    (*sim)->advance(std::min(so.step, options.duration - (*sim)->now()));
    // Requests are drained every step, so the simulation itself keeps no history.
    for (const RequestRecord& r : (*sim)->take_requests()) {
      if (trace.events.size() >= options.max_events) {
        return make_error("scenario " + options.scenario + ": more than " +
                          std::to_string(options.max_events) + " requests; shorten the run");
      }
      trace.add(r.time.count(), r.api_key, r.cost, r.model, r.tier, token_count(r.llm_tokens));
    }
    if (progress) progress(static_cast<double>((*sim)->now().count()) / total);
  }
  return trace;
}

Expected<trace::TraceLoad> trace_from_recording(const Recording& recording,
                                                const std::string& load_error,
                                                std::size_t max_events) {
  const auto& requests = recording.requests;
  if (requests.size() > max_events) {
    return make_error("recording: " + std::to_string(requests.size()) +
                      " requests, more than the cap of " + std::to_string(max_events));
  }
  std::vector<std::uint32_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return requests[a].t_ns < requests[b].t_ns;
  });
  trace::TraceLoad load;
  load.trace.events.reserve(requests.size());
  load.lines = recording.lines;
  for (const std::uint32_t i : order) {
    const RecordedRequest& r = requests[i];
    // A recorded cost of 0 (an old writer) counts as 1, as a trace line without a cost does.
    load.trace.add(r.t_ns, recording.names[r.key], r.cost > 0 ? r.cost : 1,
                   recording.names[r.model], recording.names[r.tier], token_count(r.llm_tokens));
  }
  if (!load_error.empty()) {
    load.errors.push_back({0, load_error});
    load.error_count = 1;
  }
  return load;
}

}  // namespace limitscope::tuner
