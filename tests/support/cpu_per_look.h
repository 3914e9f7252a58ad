#pragma once
// A CpuClock for tests that decides what work costs: each look at it finds `step` more CPU used
// on the looking thread (counted per thread, as a thread's CPU clock is). A probe looks when a
// refresh's SCAN calls start, when they end and when the refresh ends: its SCAN calls cost
// `step`, and the rest of the refresh `step`, charged to discovery in the share of the keys
// read that SCAN found in it.

#include <cstdint>

#include "core/common/cpu_clock.h"

namespace limitscope::test {

class CpuPerLook final : public CpuClock {
 public:
  explicit CpuPerLook(Nanos step) : step_(step) {}
  Nanos thread_cpu() const override {
    thread_local std::int64_t looks = 0;
    return step_ * ++looks;
  }

 private:
  Nanos step_;
};

}  // namespace limitscope::test
