#pragma once
// Token bucket: a bucket of capacity C refilled continuously at rate r.
//   tokens(t) = min(C, tokens + r·Δt); a request of cost c is admitted iff tokens(t) >= c,
//   and then takes c tokens. Over any interval [t1, t2] it admits at most C + r·(t2 − t1).
// Uses LimitParams::capacity (C, cost units) and LimitParams::refill (r).
//
// Debt: settle() charges a cost learned after the admission (an LLM call that used more tokens
// than estimated) even when the bucket holds less: the level may go below zero, down to
// −max_debt(p) = −r·3600 s (one hour of refill). A request is admitted only when the level is
// at least its cost, so a debt is waited out before the next admission. Bound: the cost charged
// (at admission and at settlement) over any interval [t1, t2] is at most
// C + max_debt + r·(t2 − t1); only a correction that would pass −max_debt is forgiven beyond it.

#include <cstdint>

#include "core/limiter/algorithm.h"

namespace limitscope {

struct TokenBucket {
  static constexpr Algorithm kAlgorithm = Algorithm::token_bucket;

  struct State {
    double tokens = 0;         // cost units at last_ns, −max_debt <= tokens <= C (< 0: a debt)
    std::int64_t last_ns = 0;  // time `tokens` was computed at, ns on the limiter's timeline
  };

  // The LimiterAlgorithm functions (algorithm.h), as this algorithm defines them:
  // - fresh: returns a full bucket at `now`.
  // - decide: Refills to `now`, admits iff tokens >= cost and then takes cost. A rejection
  //   leaves `s` untouched. `now` earlier than s.last_ns counts as no elapsed time. It returns
  //   remaining = tokens left; retry_after = the exact (ns-rounded-up) wait until the same
  //   cost fits; reset_after = time until the bucket is full.
  // - idle: returns true when the bucket has refilled to C (indistinguishable from fresh()).
  // - available: returns tokens(now), cost units.
  // - reconfigure: Refills to `now` under p, then keeps the same fraction of capacity under
  //   q: tokens' = tokens(now) / C_p · C_q. A debt is kept as it is (at most max_debt(q)).
  LIMITSCOPE_LIMITER_ALGORITHM_FUNCTIONS;
  /// Corrects the level after the fact: tokens(now) − delta, clamped to [−max_debt(p), C].
  /// @param delta > 0 charges (the level may become a debt), < 0 refunds; must be finite
  static void settle(const LimitParams& p, State& s, Nanos now, double delta);
  /// The deepest debt settle() leaves: one hour of refill, r·3600 s, cost units.
  static double max_debt(const LimitParams& p);
};

static_assert(LimiterAlgorithm<TokenBucket>);
static_assert(sizeof(TokenBucket::State) <= 16, "a keyed table holds millions of these");

}  // namespace limitscope
