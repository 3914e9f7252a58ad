#pragma once
// Exponential backoff with jitter for reconnecting: delay_n = min(max, initial·factor^n), then
// a uniformly random point in [delay_n·(1−jitter), delay_n], so many clients that lost the
// same server do not reconnect in lockstep. Deterministic for a given seed.

#include <cstdint>

#include "core/common/clock.h"

namespace limitscope::redis {

struct BackoffOptions {
  Nanos initial = std::chrono::milliseconds(50);
  Nanos max = std::chrono::seconds(5);
  double factor = 2.0;
  double jitter = 0.5;  ///< fraction of the delay that is randomised, in [0, 1]
};

class Backoff {
 public:
  explicit Backoff(BackoffOptions options = {}, std::uint64_t seed = 0x5eed);

  /// The delay before the next attempt; each call after a failure grows the next one.
  Nanos next_delay();
  /// After a success: the next failure starts from `initial` again.
  void reset() { attempt_ = 0; }
  int attempts() const { return attempt_; }

 private:
  BackoffOptions options_;
  std::uint64_t state_;
  int attempt_ = 0;
};

}  // namespace limitscope::redis
