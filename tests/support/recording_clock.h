#pragma once
// A ManualClock that records the deadlines waiters ask for, so tests can tell a thread that
// went back to wait for a new instant from one still finishing its previous wait.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "core/common/clock.h"

namespace limitscope::test {

class RecordingClock final : public Clock {
 public:
  Nanos now() const override { return inner.now(); }
  Nanos wall() const override { return inner.wall(); }
  bool wait_until(Nanos deadline, CancelToken& cancel) override {
    {
      std::lock_guard lock(mu_);
      deadlines_.push_back(deadline);
      active_.push_back(deadline);
    }
    const bool reached = inner.wait_until(deadline, cancel);
    std::lock_guard lock(mu_);
    active_.erase(std::find(active_.begin(), active_.end(), deadline));
    return reached;
  }
  /// Every deadline asked for so far, in order.
  std::vector<Nanos> deadlines() {
    std::lock_guard lock(mu_);
    return deadlines_;
  }
  /// Threads inside wait_until whose deadline is still ahead of now().
  int waiting_for_future() {
    std::lock_guard lock(mu_);
    const Nanos t = inner.now();
    return static_cast<int>(
        std::count_if(active_.begin(), active_.end(), [&](Nanos d) { return d > t; }));
  }

  ManualClock inner;

 private:
  std::mutex mu_;
  std::vector<Nanos> deadlines_;
  std::vector<Nanos> active_;
};

/// Spins (yielding, never sleeping) until pred holds; false after 20 s instead of hanging.
template <class Pred>
bool eventually(Pred pred) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::yield();
  }
  return true;
}

/// Joins a thread blocked in Limiter::acquire once it has set `done`; if it does not within
/// eventually()'s limit, cancels its wait so the test fails instead of hanging.
/// @return true when the thread finished by itself.
inline bool join_or_cancel(std::thread& t, const std::atomic<bool>& done, CancelToken& cancel) {
  const bool finished = eventually([&] { return done.load(); });
  if (!finished) cancel.cancel();
  t.join();
  return finished;
}

}  // namespace limitscope::test
