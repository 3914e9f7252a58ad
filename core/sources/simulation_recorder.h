#pragma once
// Turns simulation steps into metric series, under the names a gateway exports (DESIGN.md
// section 5) plus per-key dashboard series, appended to the session's store. The dashboard's
// charts and the alert engine then read the embedded simulation exactly as they read a
// scraped gateway.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "core/limiter/policy.h"
#include "core/metrics/metric_names.h"
#include "core/sim/step_sample.h"
#include "core/sources/session_state.h"

namespace limitscope {

class SimulationRecorder {
 public:
  /// @param wall_epoch_ms wall time (ms since the Unix epoch) of simulated time zero.
  /// @param session what the series go to (and, through it, a recording); must outlive this
  SimulationRecorder(SessionState& session, const Policy& policy, std::int64_t wall_epoch_ms);

  /// Appends one step's series at wall_epoch_ms + sample.time.
  /// Counters (gateway_rate_limit_hits_total, limitscope_requests_total, spend) accumulate
  /// across steps. gateway_token_bucket_usage observes each key's end-of-step level once per
  /// decision it made in the step (the simulation reports levels per step, not per decision).
  /// @return appends the store refused (0 normally).
  std::size_t record(const StepSample& sample);

  std::int64_t time_ms(const StepSample& sample) const;

 private:
  void add(std::string_view name, std::initializer_list<std::pair<std::string, std::string>> labels,
           double value, std::int64_t t_ms);

  SessionState& session_;
  const Policy& policy_;
  std::int64_t wall_epoch_ms_;
  std::size_t refused_ = 0;
  // Cumulative counters by (tier, model) and histogram buckets by (tier, model).
  std::map<std::pair<std::string, std::string>, double> hits_, allowed_, denied_, degraded_, spend_;
  struct Histogram {
    std::array<double, 9> buckets{};  // cumulative counts per le bound, last = +Inf
    double sum = 0;
    double count = 0;
  };
  std::map<std::pair<std::string, std::string>, Histogram> usage_;
};

}  // namespace limitscope
