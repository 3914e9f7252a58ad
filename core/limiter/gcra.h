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

  /// @return a full bucket (tat = now).
  static State fresh(const LimitParams& p, Nanos now);
  /// Admits iff max(tat, now) + c·T − now <= C·T, then sets tat to that. A rejection leaves `s`
  /// untouched; retry_after = tat + c·T − C·T − now exactly.
  static Decision decide(const LimitParams& p, State& s, Nanos now, double cost);
  /// @return what decide() would answer, consuming nothing.
  static Decision peek(const LimitParams& p, const State& s, Nanos now, double cost);
  /// @return true when tat <= now (full bucket).
  static bool idle(const LimitParams& p, const State& s, Nanos now);
  /// @return C − max(0, tat − now) / T, cost units.
  static double available(const LimitParams& p, const State& s, Nanos now);
  /// Keeps the same fraction of capacity: the level at `now` under p, as a fraction of C_p,
  /// becomes the level under q (tat' = now + (1 − fraction)·C_q·T_q).
  static void reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now);
};

static_assert(LimiterAlgorithm<Gcra>);
static_assert(sizeof(Gcra::State) <= 16, "a keyed table holds millions of these");

}  // namespace limitscope
