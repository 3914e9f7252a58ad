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

  // The LimiterAlgorithm functions (algorithm.h), as this algorithm defines them:
  // - fresh: returns an empty queue.
  // - decide: Admits iff queued + cost <= C; delay = max(0, drain_end − now); the request's
  //   cost then extends drain_end. A rejection (queue_full) leaves `s` untouched and
  //   retry_after says when enough has drained.
  // - idle: returns true when the queue is empty.
  // - available: returns free queue space at `now`, cost units.
  // - reconfigure: Keeps the same fraction of the queue occupied under q as under p at `now`
  //   (delays already handed out are not revisited).
  LIMITSCOPE_LIMITER_ALGORITHM_FUNCTIONS;
};

static_assert(LimiterAlgorithm<LeakyBucket>);
static_assert(sizeof(LeakyBucket::State) <= 16, "a keyed table holds millions of these");

}  // namespace limitscope
