#include "core/sim/arrivals.h"

#include <algorithm>
#include <cmath>

namespace limitscope {
namespace {

Nanos seconds_to_nanos(double s) {
  return Nanos{static_cast<std::int64_t>(std::llround(s * 1e9))};
}

}  // namespace

ClientArrivals::ClientArrivals(const ClientSpec& client, std::uint64_t seed)
    : rng_(seed), max_rate_(client.traffic.max_rate()) {
  for (const ModelShare& m : client.models) weight_total_ += m.weight;
}

std::optional<Nanos> ClientArrivals::next_candidate(const ClientSpec& client, Nanos from) {
  if (!(max_rate_ > 0)) return std::nullopt;
  const Nanos next = from + seconds_to_nanos(rng_.exponential(max_rate_));
  if (client.traffic.stop && next >= *client.traffic.stop) return std::nullopt;
  return next;
}

std::optional<Arrival> ClientArrivals::arrival_at(const ClientSpec& client, Nanos t) {
  // Thinning: a candidate at the bounding rate becomes a request with probability
  // rate(t) / max_rate, which yields Poisson arrivals at the time-varying rate.
  if (rng_.uniform01() * max_rate_ >= client.traffic.rate_at(t)) return std::nullopt;
  double pick = rng_.uniform01() * weight_total_;
  std::uint32_t share = 0;
  while (share + 1 < client.models.size() && pick >= client.models[share].weight) {
    pick -= client.models[share].weight;
    ++share;
  }
  const ModelShare& m = client.models[share];
  return Arrival{share, rng_.uniform_int(m.tokens_min, m.tokens_max)};
}

std::optional<Nanos> ClientArrivals::retry_wait(const RetryPolicy& policy, int attempt,
                                                std::optional<Nanos> retry_after) {
  switch (policy.behaviour) {
    case RetryBehaviour::give_up:
      return std::nullopt;
    case RetryBehaviour::honour_retry_after: {
      if (!retry_after || attempt >= policy.max_retries) return std::nullopt;
      // Full jitter on a capped exponential backoff, never earlier than Retry-After.
      const double cap =
          std::min(static_cast<double>(policy.max_backoff.count()),
                   static_cast<double>(policy.base_backoff.count()) * std::ldexp(1.0, attempt));
      const Nanos jitter{static_cast<std::int64_t>(rng_.uniform01() * cap)};
      return std::max(*retry_after, jitter);
    }
    case RetryBehaviour::ignore_retry_after:
      if (attempt >= policy.max_retries) return std::nullopt;
      return policy.ignore_interval;
  }
  return std::nullopt;
}

}  // namespace limitscope
