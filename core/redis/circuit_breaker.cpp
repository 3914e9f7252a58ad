#include "core/redis/circuit_breaker.h"

#include <algorithm>

namespace limitscope::redis {

std::string_view to_string(BreakerState state) {
  switch (state) {
    case BreakerState::closed:
      return "closed";
    case BreakerState::open:
      return "open";
    case BreakerState::half_open:
      return "half_open";
  }
  return "unknown";
}

CircuitBreaker::CircuitBreaker(BreakerOptions options) : options_(options) {
  options_.failure_threshold = std::max(options_.failure_threshold, 1);
}

bool CircuitBreaker::allow(Nanos now) {
  std::lock_guard lock(mu_);
  switch (state_) {
    case BreakerState::closed:
      return true;
    case BreakerState::open:
      if (now - opened_at_ >= options_.cooldown) {
        state_ = BreakerState::half_open;
        probe_in_flight_ = true;
        return true;
      }
      ++counters_.short_circuited_total;
      return false;
    case BreakerState::half_open:
      if (!probe_in_flight_) {
        probe_in_flight_ = true;
        return true;
      }
      ++counters_.short_circuited_total;
      return false;
  }
  return false;
}

void CircuitBreaker::record_success(Nanos) {
  std::lock_guard lock(mu_);
  ++counters_.successes_total;
  consecutive_failures_ = 0;
  probe_in_flight_ = false;
  state_ = BreakerState::closed;
}

void CircuitBreaker::record_failure(Nanos now) {
  std::lock_guard lock(mu_);
  ++counters_.failures_total;
  ++consecutive_failures_;
  probe_in_flight_ = false;
  const bool trip =
      state_ == BreakerState::half_open ||
      (state_ == BreakerState::closed && consecutive_failures_ >= options_.failure_threshold);
  if (trip) {
    state_ = BreakerState::open;
    opened_at_ = now;
    ++counters_.opened_total;
  }
}

BreakerState CircuitBreaker::state(Nanos) const {
  std::lock_guard lock(mu_);
  return state_;
}

BreakerCounters CircuitBreaker::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

}  // namespace limitscope::redis
