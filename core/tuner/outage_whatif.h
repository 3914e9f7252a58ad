#pragma once
// What happens to a trace when the limiter's Redis is down for a while ("what happens to our
// bill if Redis is down for 10 minutes under fail-open?"). The trace is replayed with one
// setting three times besides the baseline (no outage), each with the outage window handled by:
//   fail-open       every request in the window is admitted, nothing is counted;
//   fail-closed     every request in the window is refused (the gateway's 503);
//   local fallback  each replica decides with its own in-memory limiter of the same algorithm
//                   and 1/N of the parameters (rate-limiter-flexible's "insurance" limiter), fresh
//                   when the outage starts; a key's requests go round robin over N replicas.
// Outside the window the shared (Redis) state decides; the outage leaves it untouched, as a
// store nobody could reach. Each mode reports admitted and refused, over-admission against
// the baseline (admitted cost above what the configured limit admitted) and extra spend.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/trace/trace.h"
#include "core/tuner/pricing.h"
#include "core/tuner/replay.h"

namespace limitscope::tuner {

struct OutageWindow {
  std::int64_t start_ns = 0;  ///< trace time (epoch ns), inclusive
  std::int64_t end_ns = 0;    ///< exclusive
};

/// Parses "DURATION@WHEN": WHEN is a UTC time of day "HH:MM" (the first such instant at or
/// after the trace's first event) or "+OFFSET" from the first event, e.g. "10m@14:00",
/// "90s@+5m". Errors name the text and the reason (an empty trace, a window outside it).
Expected<OutageWindow> parse_outage(std::string_view text, const trace::Trace& trace);

enum class OutageMode { fail_open, fail_closed, local_fallback };
std::string_view to_string(OutageMode m);

struct OutageOptions {
  OutageWindow window;
  int replicas = 1;                         ///< local fallback: gateway replicas (>= 1)
  const PricingOptions* pricing = nullptr;  ///< for spend; nullptr: counts only
};

struct OutageModeResult {
  OutageMode mode = OutageMode::fail_open;
  Counts total;      ///< the whole trace
  Counts in_outage;  ///< requests inside the window
  /// total admitted cost minus the baseline's: > 0 admitted beyond the configured limit,
  /// < 0 refused what the limit would have admitted
  double over_admitted_cost = 0;
  std::int64_t over_admitted_requests = 0;  ///< the same in requests
  double extra_spend = 0;                   ///< dollars, total minus the baseline's
};

struct OutageWhatIf {
  LimitParams params;
  OutageWindow window;
  int replicas = 1;
  Counts baseline;                      ///< no outage, the whole trace
  Counts baseline_in_outage;            ///< no outage, the requests inside the window
  std::vector<OutageModeResult> modes;  ///< fail-open, fail-closed, local fallback
  bool priced = false;
};

/// @return the what-if, or an error naming an invalid parameter or replica count
Expected<OutageWhatIf> whatif_outage(const trace::Trace& trace, const LimitParams& params,
                                     const OutageOptions& options);

}  // namespace limitscope::tuner
