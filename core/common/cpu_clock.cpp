#include "core/common/cpu_clock.h"

#include <time.h>

#include <cstdint>

namespace limitscope {

Nanos ThreadCpuClock::thread_cpu() const {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return Nanos{0};  // none: costs nothing
  return Nanos{static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec};
}

ThreadCpuClock& ThreadCpuClock::instance() {
  static ThreadCpuClock clock;
  return clock;
}

}  // namespace limitscope
