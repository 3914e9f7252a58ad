#pragma once
// Leaky bucket as a queue (a shaper): requests wait in a queue of depth C cost units that
// drains at rate r. A request is admitted iff the queued cost plus its own fits in C; it then
// gets Decision::delay = the time until everything queued before it has drained, i.e. when
// it leaves the queue and may be forwarded (0 when the queue is empty). A full queue rejects
// with DenyReason::queue_full. Admission is the same as a bucket of capacity C (GCRA), but
// instead of a burst the requests are spaced at 1/r.
// The state is one int64: the time the queue becomes empty. Costs and depth convert to time
// as round(cost · period / amount) ns, so integral inputs are exact.
// Uses LimitParams::capacity (queue depth, cost units) and LimitParams::refill (drain rate).

#include <cstdint>

#include "core/limiter/algorithm.h"

namespace limitscope {

struct LeakyBucket {
  static constexpr Algorithm kAlgorithm = Algorithm::leaky_bucket;

  struct State {
    std::int64_t drain_end_ns = 0;  // when the queue is empty, ns; <= now means empty
  };

  /// @return an empty queue.
  static State fresh(const LimitParams& p, Nanos now);
  /// Admits iff queued + cost <= C; delay = max(0, drain_end − now); the request's cost then
  /// extends drain_end. A rejection (queue_full) leaves `s` untouched and retry_after says when
  /// enough has drained.
  static Decision decide(const LimitParams& p, State& s, Nanos now, double cost);
  /// @return what decide() would answer, consuming nothing.
  static Decision peek(const LimitParams& p, const State& s, Nanos now, double cost);
  /// @return true when the queue is empty.
  static bool idle(const LimitParams& p, const State& s, Nanos now);
  /// @return free queue space at `now`, cost units.
  static double available(const LimitParams& p, const State& s, Nanos now);
  /// Keeps the same fraction of the queue occupied under q as under p at `now` (delays already
  /// handed out are not revisited).
  static void reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now);
};

static_assert(LimiterAlgorithm<LeakyBucket>);
static_assert(sizeof(LeakyBucket::State) <= 16, "a keyed table holds millions of these");

}  // namespace limitscope
