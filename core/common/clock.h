#pragma once
// The one source of time in core. Everything that needs "now" takes a Clock&; tests and the
// simulation use ManualClock and move time to exact boundaries. No other file in core reads
// std::chrono clocks.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace limitscope {

using Nanos = std::chrono::nanoseconds;

/// Cancels a blocking wait from another thread.
class CancelToken {
 public:
  void cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  friend class SteadyClock;
  friend class ManualClock;
  std::atomic<bool> cancelled_{false};
  // A waiter registers its condition variable here so cancel() can wake it.
  std::mutex mu_;
  std::condition_variable* waiter_ = nullptr;
  std::mutex* waiter_mu_ = nullptr;
};

class Clock {
 public:
  virtual ~Clock() = default;
  /// Monotonic time since an arbitrary epoch, nanoseconds. Never goes back.
  virtual Nanos now() const = 0;
  /// Wall time since the Unix epoch, nanoseconds (labels, days for quotas).
  virtual Nanos wall() const = 0;
  /// Blocks until now() >= deadline or the token is cancelled.
  /// @return true when the deadline was reached, false when cancelled.
  virtual bool wait_until(Nanos deadline, CancelToken& cancel) = 0;
};

/// The real clock: std::chrono::steady_clock and system_clock.
class SteadyClock final : public Clock {
 public:
  Nanos now() const override;
  Nanos wall() const override;
  bool wait_until(Nanos deadline, CancelToken& cancel) override;
  /// One process-wide instance.
  static SteadyClock& instance();
};

/// Time that moves only when told to. wall() = wall_epoch + now().
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Nanos start = Nanos{0}, Nanos wall_epoch = Nanos{1'700'000'000'000'000'000})
      : now_(start.count()), wall_epoch_(wall_epoch) {}
  Nanos now() const override { return Nanos{now_.load(std::memory_order_acquire)}; }
  Nanos wall() const override { return wall_epoch_ + now(); }
  /// Waits (really blocks) until another thread advances time past the deadline.
  bool wait_until(Nanos deadline, CancelToken& cancel) override;

  /// Moves time forward by d (d >= 0) and wakes waiters whose deadline passed.
  void advance(Nanos d);
  /// Sets the time; t must not be earlier than now().
  void set(Nanos t);
  /// Steps the wall clock alone by d (either sign), as an NTP step does; now() is unchanged.
  /// Not synchronised: call it only while no other thread reads this clock.
  void step_wall(Nanos d) { wall_epoch_ += d; }
  /// Number of threads currently blocked in wait_until (lets tests wait on a condition).
  int waiters() const { return waiters_.load(std::memory_order_acquire); }

 private:
  std::atomic<std::int64_t> now_;
  Nanos wall_epoch_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<int> waiters_{0};
};

}  // namespace limitscope
