#include "app/cli/bench_probe_own.h"

#include <cmath>

#include "core/redis/state_codec.h"

namespace limitscope::cli {

namespace {
constexpr double kCapacity = 60;
}

LimitParams own_bench_params() {
  LimitParams bucket;
  bucket.algorithm = Algorithm::token_bucket;
  bucket.capacity = kCapacity;
  bucket.refill = Rate{1, std::chrono::minutes(1)};
  return bucket;
}

std::string own_label(long long i) {
  return "free-" + std::to_string(i);
}

std::vector<std::string> own_seed_command(const redis::KeySchema& schema, const std::string& rule,
                                          long long i, double now_us) {
  const double tokens = 30 + static_cast<double>(i % 30) + 0.175;
  const auto ttl_ms =
      static_cast<long long>((kCapacity - tokens) * 60'000) + 1;  // until full at 1/min
  // Format 2: the TTL's end in the state, as a decision writes it (docs/redis-state.md).
  const double exp_ms = std::floor(now_us / 1000) + static_cast<double>(ttl_ms) - 1;
  return {"SET", schema.state_key(rule, own_label(i)),
          redis::encode_token_bucket_state({tokens, now_us, exp_ms}), "PX", std::to_string(ttl_ms)};
}

std::vector<redis::DecideRequest> own_drain_burst(const std::string& label) {
  return std::vector<redis::DecideRequest>(static_cast<std::size_t>(kCapacity),
                                           redis::DecideRequest{label, {1.0}});
}

}  // namespace limitscope::cli
