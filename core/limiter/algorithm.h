#pragma once
// The contract every limiter algorithm follows. Algorithms are stateless types with a small
// State struct, so one algorithm serves a single-key Limiter, a keyed table of a million
// compact states, the simulation, replay and the sweep alike. All functions are pure in
// (params, state, now): time is always passed in, never read.

#include <concepts>

#include "core/limiter/decision.h"
#include "core/limiter/limit_params.h"

namespace limitscope {

template <class A>
concept LimiterAlgorithm = requires(const LimitParams& p, const LimitParams& q,
                                    typename A::State& s, const typename A::State& cs, Nanos now,
                                    double cost) {
  { A::kAlgorithm } -> std::convertible_to<Algorithm>;
  /// The state of a key never seen before (full bucket, empty window).
  { A::fresh(p, now) } -> std::same_as<typename A::State>;
  /// Decides and, only when allowed, consumes. A rejected request consumes nothing.
  { A::decide(p, s, now, cost) } -> std::same_as<Decision>;
  /// What decide() would answer now, consuming nothing (the composite uses it).
  { A::peek(p, cs, now, cost) } -> std::same_as<Decision>;
  /// True when the state is indistinguishable from fresh(): it may be dropped.
  { A::idle(p, cs, now) } -> std::same_as<bool>;
  /// Cost units that could be admitted right now (bucket level; limit minus window use).
  { A::available(p, cs, now) } -> std::same_as<double>;
  /// Carries state over a live parameter change from p to q (documented per algorithm).
  { A::reconfigure(p, q, s, now) } -> std::same_as<void>;
};

/// Declares the LimiterAlgorithm functions above, written once for all six algorithms, inside
/// an algorithm struct after its `State`; each algorithm's header says what they do for it:
///   struct FixedWindow { ...; struct State { ... }; LIMITSCOPE_LIMITER_ALGORITHM_FUNCTIONS; };
#define LIMITSCOPE_LIMITER_ALGORITHM_FUNCTIONS                                        \
  static State fresh(const LimitParams& p, Nanos now);                                \
  static Decision decide(const LimitParams& p, State& s, Nanos now, double cost);     \
  static Decision peek(const LimitParams& p, const State& s, Nanos now, double cost); \
  static bool idle(const LimitParams& p, const State& s, Nanos now);                  \
  static double available(const LimitParams& p, const State& s, Nanos now);           \
  static void reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now)

}  // namespace limitscope
