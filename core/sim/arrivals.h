#pragma once
// A client's arrivals, as the simulation draws them and the load generator replays them
// (core/gateway/load_plan.h): Poisson candidates at the client's bounding rate, thinned to
// its time-varying rate (each candidate at t is a request with probability rate(t) / max),
// each request's model and LLM tokens drawn from the client's shares, and the wait before a
// retry after a 429 as its RetryPolicy says. One random stream per client, drawn in the same
// order by both, so one seed gives the same requests in a simulation and in a load run.

#include <cstdint>
#include <optional>

#include "core/common/clock.h"
#include "core/sim/sim_random.h"
#include "core/sim/traffic.h"

namespace limitscope {

/// A request the thinning kept: which of the client's models it calls, and its LLM tokens.
struct Arrival {
  std::uint32_t share = 0;  // index into ClientSpec::models
  std::int64_t llm_tokens = 0;
};

/// One client's arrival process. Takes the client's spec on each call (callers keep their
/// specs in vectors that may grow), always the spec it was built from.
class ClientArrivals {
 public:
  /// @param seed the client's own stream (derive_seed(run seed, client index))
  ClientArrivals(const ClientSpec& client, std::uint64_t seed);

  /// The client's next candidate arrival after `from`; nullopt when it sends nothing (a
  /// bounding rate of 0) or the candidate falls at or after its traffic's stop.
  std::optional<Nanos> next_candidate(const ClientSpec& client, Nanos from);
  /// Thins a candidate at `t`: the request it stands for, or nullopt when the candidate is
  /// dropped. Call it after next_candidate() planned the following candidate.
  std::optional<Arrival> arrival_at(const ClientSpec& client, Nanos t);
  /// The wait before retry number attempt + 1 of a request refused with a 429 on `attempt`;
  /// nullopt when the client gives up. honour_retry_after waits max(Retry-After, full-jitter
  /// exponential backoff) and gives up without a Retry-After; ignore_retry_after waits its
  /// fixed interval; both give up after max_retries.
  std::optional<Nanos> retry_wait(const RetryPolicy& policy, int attempt,
                                  std::optional<Nanos> retry_after);

 private:
  SimRandom rng_;
  double max_rate_ = 0;      // requests/s, bound of rate_at for thinning
  double weight_total_ = 0;  // sum of model weights
};

}  // namespace limitscope
