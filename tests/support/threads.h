#pragma once
// Work run on several threads at once, the one way the concurrency tests start and join them.

#include <thread>
#include <vector>

namespace limitscope::test {

/// Runs `work(t)` on `n` threads at once (t = 0 .. n-1), calls `meanwhile()` on this thread
/// while they run (to move a clock they read, say), then joins them.
template <class Work, class Meanwhile>
void on_threads(int n, Work work, Meanwhile meanwhile) {
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) threads.emplace_back([&work, t] { work(t); });
  meanwhile();
  for (auto& th : threads) th.join();
}

/// on_threads with nothing to do meanwhile.
template <class Work>
void on_threads(int n, Work work) {
  on_threads(n, work, [] {});
}

}  // namespace limitscope::test
