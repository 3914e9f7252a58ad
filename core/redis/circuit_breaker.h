#pragma once
// A circuit breaker per rule: after `failure_threshold` consecutive failures (errors or
// timeouts) it opens and callers stop trying Redis; after `cooldown` one caller is let
// through as a half-open probe: its success closes the breaker, its failure re-opens it for
// another cooldown. Thread-safe; time comes from the caller (a Clock's now()).

#include <cstdint>
#include <mutex>
#include <string_view>

#include "core/common/clock.h"

namespace limitscope::redis {

enum class BreakerState { closed, open, half_open };
std::string_view to_string(BreakerState state);

struct BreakerOptions {
  int failure_threshold = 5;
  Nanos cooldown = std::chrono::seconds(1);
};

struct BreakerCounters {
  std::uint64_t failures_total = 0;  ///< every recorded failure
  std::uint64_t successes_total = 0;
  std::uint64_t opened_total = 0;           ///< closed/half-open → open transitions
  std::uint64_t short_circuited_total = 0;  ///< calls refused while open
};

class CircuitBreaker {
 public:
  explicit CircuitBreaker(BreakerOptions options = {});

  /// May this call go to Redis? False while open (counted as short-circuited). After the
  /// cooldown the first caller gets true (the probe) and the state becomes half-open; other
  /// callers keep getting false until the probe reports.
  bool allow(Nanos now);
  void record_success(Nanos now);
  void record_failure(Nanos now);

  BreakerState state(Nanos now) const;
  BreakerCounters counters() const;

 private:
  BreakerOptions options_;
  mutable std::mutex mu_;
  BreakerState state_ = BreakerState::closed;
  int consecutive_failures_ = 0;
  Nanos opened_at_{0};
  bool probe_in_flight_ = false;
  BreakerCounters counters_;
};

}  // namespace limitscope::redis
