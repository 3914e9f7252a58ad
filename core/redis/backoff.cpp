#include "core/redis/backoff.h"

#include <algorithm>
#include <cmath>

namespace limitscope::redis {

namespace {
// splitmix64: a tiny, well-mixed generator; quality needs are low (spreading reconnects).
std::uint64_t next_random(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

Backoff::Backoff(BackoffOptions options, std::uint64_t seed) : options_(options), state_(seed) {
  options_.jitter = std::clamp(options_.jitter, 0.0, 1.0);
  options_.factor = std::max(options_.factor, 1.0);
  options_.max = std::max(options_.max, options_.initial);
}

Nanos Backoff::next_delay() {
  const double base = static_cast<double>(options_.initial.count()) *
                      std::pow(options_.factor, static_cast<double>(std::min(attempt_, 62)));
  const double capped = std::min(base, static_cast<double>(options_.max.count()));
  if (attempt_ < 1'000'000) ++attempt_;
  const double unit = static_cast<double>(next_random(state_) >> 11) * 0x1.0p-53;  // [0, 1)
  const double delay = capped * (1.0 - options_.jitter * unit);
  return Nanos{static_cast<std::int64_t>(delay)};
}

}  // namespace limitscope::redis
