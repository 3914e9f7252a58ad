#pragma once
// All six limiter algorithms, and runtime dispatch from the Algorithm enum to the static type.

#include <utility>

#include "core/limiter/fixed_window.h"
#include "core/limiter/gcra.h"
#include "core/limiter/leaky_bucket.h"
#include "core/limiter/sliding_counter.h"
#include "core/limiter/sliding_log.h"
#include "core/limiter/token_bucket.h"

namespace limitscope {

/// Calls f with a default-constructed value of the algorithm type for `a`, e.g.
/// visit_algorithm(p.algorithm, [&](auto algo) { using A = decltype(algo); ... }).
/// @return whatever f returns (every branch must return the same type).
template <class F>
decltype(auto) visit_algorithm(Algorithm a, F&& f) {
  switch (a) {
    case Algorithm::token_bucket:
      return std::forward<F>(f)(TokenBucket{});
    case Algorithm::gcra:
      return std::forward<F>(f)(Gcra{});
    case Algorithm::sliding_log:
      return std::forward<F>(f)(SlidingLog{});
    case Algorithm::sliding_counter:
      return std::forward<F>(f)(SlidingCounter{});
    case Algorithm::fixed_window:
      return std::forward<F>(f)(FixedWindow{});
    case Algorithm::leaky_bucket:
      return std::forward<F>(f)(LeakyBucket{});
  }
  // Unreachable for a valid enum value; an out-of-range value falls back to the token bucket.
  return std::forward<F>(f)(TokenBucket{});
}

}  // namespace limitscope
