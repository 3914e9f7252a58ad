#pragma once
// The schedule of an open-loop load run against a gateway, from the core's traffic scenarios
// (core/sim/scenario.h): every client's arrivals and the retries its RetryPolicy asks for
// after a 429, drawn by the simulation's own arrival model (core/sim/arrivals.h), so a seed
// plans the requests the simulation of the same scenario sees. Requests are
// due at their planned times whether or not earlier ones have returned, so a slow gateway
// shows up as latency instead of hiding behind fewer requests (no coordinated omission).
//
// Plain data and decisions on times given by the caller: the load generator (app/cli
// cmd_loadgen.cpp) reads the real clock and does the HTTP. Thread-safe: one thread pops due
// requests while workers report 429s.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/sim/arrivals.h"
#include "core/sim/scenario.h"
#include "core/sim/sim_random.h"
#include "core/trace/trace.h"

namespace limitscope::gateway {

struct LoadPlanOptions {
  Nanos duration{std::chrono::seconds(10)};  // new requests and retries fall in [0, duration)
  /// Each scenario client's traffic is spread over this many API keys ("<key>-1" ...
  /// "<key>-N"; with 1 the scenario's key itself), its rate split evenly between them.
  std::size_t keys_per_client = 1;
  /// When set, every rate is scaled so the clients' base rates sum to this (requests/s).
  std::optional<double> total_rate;
  std::uint64_t seed = 1;
};

/// How a trace (core/trace/trace.h) becomes a load plan.
struct TracePlanOptions {
  /// The model of events whose trace line names none.
  std::string default_model;
  /// Times are divided by this: 2 plays the trace twice as fast. The gateway's limiter then
  /// sees a different trace than the recorded one, so predictions must be made on the
  /// trace with its times scaled the same way.
  double speed = 1;
};

/// One attempt to send.
struct PlannedRequest {
  Nanos at{0};                   // planned time since the run began
  std::uint32_t client = 0;      // index into LoadPlan::clients()
  std::uint32_t share = 0;       // index into that client's models
  std::int64_t llm_tokens = 0;   // prompt + completion tokens this request stands for
  std::uint64_t request_id = 0;  // the same for a request and its retries
  int attempt = 0;               // 0 = first try
};

/// What the plan did with a 429.
enum class RetryVerdict { retry_scheduled, gave_up, past_end };

class LoadPlan {
 public:
  /// @return the plan, or an error naming an invalid client, a bad rate or option.
  static Expected<std::unique_ptr<LoadPlan>> create(const ScenarioSpec& scenario,
                                                    const LoadPlanOptions& options);

  /// A plan that sends every event of `trace` at its time after the first event's: one
  /// client per trace key (its models are those its events name), its tier from the trace.
  /// Nothing is retried: a trace already holds the retries its clients made.
  /// @return the plan, or an error for an empty trace, a missing model or a bad speed
  static Expected<std::unique_ptr<LoadPlan>> from_trace(const trace::Trace& trace,
                                                        const TracePlanOptions& options);

  /// The clients after splitting keys and scaling rates (incidents' clients included).
  const std::vector<ClientSpec>& clients() const { return clients_; }
  /// The factor every rate was multiplied by (1 without total_rate).
  double rate_scale() const { return scale_; }

  /// Pops the earliest attempt planned at or before `now`; nullopt when none is due.
  std::optional<PlannedRequest> pop_due(Nanos now);
  /// The time of the earliest planned attempt, or nullopt when nothing is left.
  std::optional<Nanos> next_time() const;

  /// Records a 429 for `r` answered at `now`; plans its retry per the client's RetryPolicy:
  /// honour_retry_after waits max(Retry-After, full-jitter exponential backoff), bounded
  /// retries; ignore_retry_after retries after a fixed short interval; give_up drops it.
  /// @param retry_after the Retry-After the gateway sent; nullopt when it sent none
  RetryVerdict on_rate_limited(const PlannedRequest& r, Nanos now,
                               std::optional<Nanos> retry_after);

 private:
  struct Later {
    bool operator()(const PlannedRequest& a, const PlannedRequest& b) const {
      return a.at != b.at ? a.at > b.at : a.request_id > b.request_id;
    }
  };
  LoadPlan() = default;
  // Plans the client's next candidate arrival after `from` (thinning happens at pop time).
  void schedule_arrival(std::uint32_t client, Nanos from);

  LoadPlanOptions options_;
  double scale_ = 1;
  std::vector<ClientSpec> clients_;
  mutable std::mutex mu_;
  std::vector<ClientArrivals> runs_;  // one per client
  std::priority_queue<PlannedRequest, std::vector<PlannedRequest>, Later> queue_;
  std::uint64_t next_request_ = 0;
};

}  // namespace limitscope::gateway
