#pragma once
// When a live source that polls over HTTP (a /metrics scrape, a Prometheus query) reads next,
// and what it says of its connection. It reads at once on the first advance; then `interval`
// after a read that worked, or a backoff delay after one that failed.

#include <cstdint>
#include <string>

#include "core/common/clock.h"
#include "core/redis/backoff.h"

namespace limitscope {

class PollRhythm {
 public:
  explicit PollRhythm(redis::BackoffOptions backoff) : backoff_(backoff) {}

  /// Adds `d` to the time waited. @return true when a read is due now (at most one per call):
  /// it is counted, and the wait for the next starts.
  bool due(Nanos d) {
    pending_ += d;
    if (!first_ && pending_ < wait_) return false;
    first_ = false;
    pending_ = Nanos{0};
    ++reads_;
    return true;
  }
  /// The read failed. @return the wait before the next one (the backoff's next delay)
  Nanos failed() {
    ++failures_;
    connected_ = false;
    wait_ = backoff_.next_delay();
    return wait_;
  }
  /// The read worked; the next one comes `interval` later.
  /// @return true when this read connected (first time, or again after failures)
  bool worked(Nanos interval) {
    const bool connecting = !connected_;
    connected_ = true;
    backoff_.reset();
    wait_ = interval;
    return connecting;
  }

  /// "connected", or before that "connecting" (no read yet) or "reconnecting".
  std::string connection() const {
    if (connected_) return "connected";
    return reads_ == 0 ? "connecting" : "reconnecting";
  }
  bool connected() const { return connected_; }
  /// Reads started, good or not.
  std::uint64_t reads() const { return reads_; }
  std::uint64_t failures() const { return failures_; }

 private:
  redis::Backoff backoff_;
  Nanos pending_{0};
  Nanos wait_{0};
  bool first_ = true;
  bool connected_ = false;
  std::uint64_t reads_ = 0;
  std::uint64_t failures_ = 0;
};

}  // namespace limitscope
