#pragma once
// The CPU time a thread has used (not the time that passed): what a piece of work cost this
// process, whatever the machine's load or the server's speed. Injected like Clock (clock.h), so
// tests decide what work costs; ThreadCpuClock is the one place in core that reads it.

#include "core/common/clock.h"

namespace limitscope {

class CpuClock {
 public:
  virtual ~CpuClock() = default;
  /// CPU time the calling thread has used so far, nanoseconds (user + system). Compare only
  /// readings taken on the same thread.
  virtual Nanos thread_cpu() const = 0;
};

/// The real one: the calling thread's CPU-time clock (CLOCK_THREAD_CPUTIME_ID).
class ThreadCpuClock final : public CpuClock {
 public:
  Nanos thread_cpu() const override;
  /// One process-wide instance (it holds no state).
  static ThreadCpuClock& instance();
};

}  // namespace limitscope
