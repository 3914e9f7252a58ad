#pragma once
// Shorthands for limiter parameters and state comparison in tests.

#include <chrono>
#include <cstring>

#include "core/limiter/algorithms.h"

namespace limitscope::test {

/// A bucket algorithm (token_bucket, gcra, leaky_bucket): capacity C, `amount` per `period`.
inline LimitParams bucket(Algorithm a, double capacity, double amount,
                          Nanos period = std::chrono::seconds(1)) {
  LimitParams p;
  p.algorithm = a;
  p.capacity = capacity;
  p.refill = Rate{amount, period};
  return p;
}

/// A window algorithm (sliding_log, sliding_counter, fixed_window): limit L per window W.
inline LimitParams window(Algorithm a, double limit, Nanos w) {
  LimitParams p;
  p.algorithm = a;
  p.limit = limit;
  p.window = w;
  return p;
}

/// bucket() for the algorithm type A (TokenBucket, Gcra, LeakyBucket): bucket_of<Gcra>(5, 1).
template <class A>
LimitParams bucket_of(double capacity, double amount, Nanos period = std::chrono::seconds(1)) {
  return bucket(A::kAlgorithm, capacity, amount, period);
}

/// window() for the algorithm type A (SlidingLog, SlidingCounter, FixedWindow).
template <class A>
LimitParams window_of(double limit, Nanos w) {
  return window(A::kAlgorithm, limit, w);
}

/// Parameters of the given algorithm with "C / L = 10, 5 per second / per 2 s".
inline LimitParams typical(Algorithm a) {
  return is_window_algorithm(a) ? window(a, 10, std::chrono::seconds(2)) : bucket(a, 10, 5);
}

/// Bitwise-equal states (what a rejected request must leave behind).
inline bool same_state(const TokenBucket::State& a, const TokenBucket::State& b) {
  return std::memcmp(&a.tokens, &b.tokens, sizeof a.tokens) == 0 && a.last_ns == b.last_ns;
}
inline bool same_state(const Gcra::State& a, const Gcra::State& b) {
  return a.tat_ns == b.tat_ns;
}
inline bool same_state(const LeakyBucket::State& a, const LeakyBucket::State& b) {
  return a.drain_end_ns == b.drain_end_ns;
}
inline bool same_state(const FixedWindow::State& a, const FixedWindow::State& b) {
  return a.window_start_ns == b.window_start_ns &&
         std::memcmp(&a.count, &b.count, sizeof a.count) == 0;
}
inline bool same_state(const SlidingCounter::State& a, const SlidingCounter::State& b) {
  return a.window_start_ns == b.window_start_ns &&
         std::memcmp(&a.prev, &b.prev, sizeof a.prev) == 0 &&
         std::memcmp(&a.curr, &b.curr, sizeof a.curr) == 0;
}
inline bool same_state(const SlidingLog::State& a, const SlidingLog::State& b) {
  if (a.head != b.head || a.entries.size() != b.entries.size()) return false;
  if (std::memcmp(&a.used, &b.used, sizeof a.used) != 0) return false;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    if (a.entries[i].t_ns != b.entries[i].t_ns || a.entries[i].cost != b.entries[i].cost) {
      return false;
    }
  }
  return true;
}

}  // namespace limitscope::test
