#pragma once
// Arithmetic shared by the algorithm implementations (not a public interface): saturating
// nanosecond conversions, window alignment, cost checks, and the search that makes every
// retry_after exact against the algorithm's own decision arithmetic.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "core/limiter/decision.h"
#include "core/limiter/limit_params.h"

namespace limitscope::time_math {

/// The longest wait any algorithm reports, about 73 years (2^61 ns); keeps sums of a few
/// such waits and a timeline instant inside int64.
inline constexpr std::int64_t kFarNs = std::int64_t{1} << 61;

/// Rounds a non-negative duration in ns (double) to the nearest ns (halves away from zero),
/// clamped to [0, kFarNs]. Equal to std::llround there, without its libm call: the fraction
/// ns − trunc(ns) is exact in double.
inline std::int64_t round_ns(double ns) {
  if (!(ns > 0)) return 0;  // also NaN
  if (ns >= static_cast<double>(kFarNs)) return kFarNs;
  const auto whole = static_cast<std::int64_t>(ns);
  return ns - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
}

/// Rounds up a non-negative duration in ns (double), clamped to [0, kFarNs].
/// Equal to std::ceil on (0, kFarNs), without its libm call (the baseline x86-64 target has
/// no rounding instruction): truncation is exact there (from 2^52 on every double is a whole
/// number), and a fraction cut off adds one.
inline std::int64_t ceil_ns(double ns) {
  if (!(ns > 0)) return 0;
  if (ns >= static_cast<double>(kFarNs)) return kFarNs;
  const auto whole = static_cast<std::int64_t>(ns);
  return static_cast<double>(whole) < ns ? whole + 1 : whole;
}

/// a + b for b >= 0, saturating at INT64_MAX.
inline std::int64_t add_sat(std::int64_t a, std::int64_t b) {
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/// Floor of a / b for b > 0 (also for negative a), times b: the start of a's window.
inline std::int64_t align_down(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q * b;
}

/// A cost the algorithms accept: finite and > 0.
inline bool valid_cost(double cost) {
  return std::isfinite(cost) && cost > 0;
}

/// Nanoseconds of the refill/drain period per cost unit, as a double.
inline double ns_per_unit(const LimitParams& p) {
  return static_cast<double>(p.refill.period.count()) / p.refill.amount;
}

/// decide() for algorithms whose evaluate(p, s, now, cost, State* next) fills the next state:
/// the state changes only when the request is admitted (a rejection consumes nothing).
template <class State, class Evaluate>
Decision commit_if_allowed(const LimitParams& p, State& s, Nanos now, double cost,
                           Evaluate evaluate) {
  State next = s;
  Decision d = evaluate(p, s, now, cost, &next);
  if (d.allowed) s = next;
  return d;
}

/// Smallest t in (lo, cap] with pred(t), for a pred that is false up to some instant and true
/// from then on, and false at lo. Starts at `guess` (an analytic estimate) and gallops from
/// there, so a good guess costs two evaluations.
/// @return nullopt when pred(cap) is false. Requires cap − lo <= kFarNs.
template <class Pred>
std::optional<std::int64_t> earliest_true(std::int64_t lo, std::int64_t guess, std::int64_t cap,
                                          Pred&& pred) {
  if (cap <= lo) return std::nullopt;
  std::int64_t g = std::clamp(guess, lo + 1, cap);
  std::int64_t hi = cap;
  if (pred(g)) {
    hi = g;
    for (std::int64_t step = 1; step < hi - lo; step *= 2) {
      const std::int64_t c = hi - step;
      if (!pred(c)) {
        lo = c;
        break;
      }
      hi = c;
    }
  } else {
    lo = g;
    bool found = false;
    for (std::int64_t step = 1; step < cap - lo; step *= 2) {
      const std::int64_t c = lo + step;
      if (pred(c)) {
        hi = c;
        found = true;
        break;
      }
      lo = c;
    }
    if (!found && !pred(cap)) return std::nullopt;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (pred(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

/// A Decision admitting the request: `remaining` left after it, no wait.
inline Decision admission(double limit, double remaining, Nanos reset_after) {
  return Decision{true, limit, remaining, Nanos{0}, reset_after};
}

/// A Decision refusing the request: it consumes nothing and carries no retry_after. As it is,
/// the answer for a cost that can never be admitted (invalid, or above capacity/limit); for
/// `exhausted` the caller sets retry_after to when waiting helps.
inline Decision refusal(DenyReason reason, double limit, double available, Nanos reset_after) {
  Decision d;
  d.allowed = false;
  d.limit = limit;
  d.remaining = available;
  d.retry_after = std::nullopt;
  d.reset_after = reset_after;
  d.reason = reason;
  return d;
}

}  // namespace limitscope::time_math
