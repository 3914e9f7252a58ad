#pragma once
// A ManualClock that counts how often it is read, so a test can tell that a component paced
// itself on the clock it was given (and not on one of its own).

#include <atomic>
#include <cstdint>

#include "core/common/clock.h"

namespace limitscope::test {

class CountingClock final : public Clock {
 public:
  Nanos now() const override {
    reads_.fetch_add(1, std::memory_order_relaxed);
    return inner.now();
  }
  Nanos wall() const override {
    reads_.fetch_add(1, std::memory_order_relaxed);
    return inner.wall();
  }
  bool wait_until(Nanos deadline, CancelToken& cancel) override {
    return inner.wait_until(deadline, cancel);
  }
  /// now() and wall() calls so far.
  std::uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }

  ManualClock inner;

 private:
  mutable std::atomic<std::uint64_t> reads_{0};
};

}  // namespace limitscope::test
