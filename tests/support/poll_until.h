#pragma once
// The one wait on time left in the tests: a client honouring Retry-After against a real
// gateway on a real Redis must let Redis TIME (the clock the gateway's script decides with)
// pass before it retries. Only audit_retry_after_e2e_test uses it; every other wait blocks on
// an event (ScrapeRelay, RedisMonitor, ServerInbox) or moves an injected clock (FakeClock).
// FakeClock cannot inject one into redis-server: libfaketime 0.9.10 (Debian 12) aborts its
// start ("unexpected recursive calls to clock_gettime()", from its jemalloc).

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

namespace limitscope::test {

/// Calls `done` until it returns true or `limit` passes, pausing 100 ms, then twice as long
/// each time up to 1 s. The limit only guards against a broken process.
/// @return whether `done` returned true
inline bool poll_until(const std::function<bool()>& done,
                       std::chrono::seconds limit = std::chrono::seconds(60)) {
  auto pause = std::chrono::milliseconds(100);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
  return false;
}

}  // namespace limitscope::test
