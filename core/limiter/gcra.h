#pragma once
// GCRA (generic cell rate algorithm): the token bucket's admission rule kept as one integer,
// the theoretical arrival time (TAT). With emission interval T = 1/r and burst tolerance
// τ = (C − 1)·T, a request of cost c computes new_tat = max(tat, now) + c·T and is admitted iff
// new_tat − now <= τ + T = C·T, i.e. exactly a bucket of capacity C refilled at 1/T.
// All time arithmetic is int64 nanoseconds and exact. T is rounded to the nearest nanosecond
// once (at least 1 ns), so the effective rate is 1/T: "3/s" runs at 1 / 333,333,333 ns.
// c·T and C·T are rounded to the nearest nanosecond (exact for integral cost and capacity).
// Uses LimitParams::capacity (C) and LimitParams::refill (r).

#include <cstdint>

#include "core/limiter/algorithm.h"

namespace limitscope {

struct Gcra {
  static constexpr Algorithm kAlgorithm = Algorithm::gcra;

  struct State {
    std::int64_t tat_ns = 0;  // theoretical arrival time, ns; tat <= now means a full bucket
  };

  /// Emission interval T in ns: period / amount rounded to nearest, at least 1.
  static std::int64_t emission_interval_ns(const LimitParams& p);

  // The LimiterAlgorithm functions (algorithm.h), as this algorithm defines them:
  // - fresh: returns a full bucket (tat = now).
  // - decide: Admits iff max(tat, now) + c·T − now <= C·T, then sets tat to that. A
  //   rejection leaves `s` untouched; retry_after = tat + c·T − C·T − now exactly.
  // - idle: returns true when tat <= now (full bucket).
  // - available: returns C − max(0, tat − now) / T, cost units.
  // - reconfigure: Keeps the same fraction of capacity: the level at `now` under p, as a
  //   fraction of C_p, becomes the level under q (tat' = now + (1 − fraction)·C_q·T_q).
  LIMITSCOPE_LIMITER_ALGORITHM_FUNCTIONS;
};

static_assert(LimiterAlgorithm<Gcra>);
static_assert(sizeof(Gcra::State) <= 16, "a keyed table holds millions of these");

}  // namespace limitscope
