#include "core/limiter/sliding_counter.h"

#include <algorithm>

#include "core/limiter/time_math.h"

namespace limitscope {

namespace {
using State = SlidingCounter::State;

// The state at t with the windows rolled forward: one window on, curr becomes prev; two or
// more, both are empty. t before the stored window start counts as that start.
State roll(const LimitParams& p, const State& s, std::int64_t t) {
  if (t < s.window_start_ns) return s;
  const std::int64_t w = p.window.count();
  const std::int64_t start = time_math::align_down(t, w);
  if (start == s.window_start_ns) return s;
  if (start - s.window_start_ns == w) return State{start, s.curr, 0.0};
  return State{start, 0.0, 0.0};
}

// prev·(W − elapsed)/W + curr for the rolled state r. The weight is computed as one fraction
// in [0, 1] so the estimate never increases with time, across window boundaries too.
double estimate(const LimitParams& p, const State& r, std::int64_t t) {
  const std::int64_t w = p.window.count();
  const std::int64_t elapsed = std::clamp<std::int64_t>(t - r.window_start_ns, 0, w);
  const double weight = static_cast<double>(w - elapsed) / static_cast<double>(w);
  return r.prev * weight + r.curr;
}

// Time until the estimate has decayed to 0: the end of the next window while curr > 0.
Nanos reset_after(const LimitParams& p, const State& r, std::int64_t t) {
  const std::int64_t w = p.window.count();
  const std::int64_t from = std::max(t, r.window_start_ns);
  if (r.curr > 0) return Nanos{r.window_start_ns + 2 * w - from};
  if (r.prev > 0) return Nanos{r.window_start_ns + w - from};
  return Nanos{0};
}

bool admits(const LimitParams& p, const State& s, std::int64_t t, double cost) {
  return estimate(p, roll(p, s, t), t) + cost <= p.limit;
}

Decision evaluate(const LimitParams& p, const State& s, Nanos now, double cost, State* next) {
  const std::int64_t t = now.count();
  const State r = roll(p, s, t);
  const double used = estimate(p, r, t);
  const double free = std::max(0.0, p.limit - used);
  const bool valid = time_math::valid_cost(cost);
  if (!valid || cost > p.limit) {
    return time_math::refusal(valid ? DenyReason::cost_above_capacity : DenyReason::invalid_cost,
                              p.limit, free, reset_after(p, r, t));
  }
  if (used + cost <= p.limit) {
    const State after{r.window_start_ns, r.prev, r.curr + cost};
    if (next != nullptr) *next = after;
    return time_math::admission(p.limit, std::max(0.0, p.limit - used - cost),
                                reset_after(p, after, t));
  }
  Decision d = time_math::refusal(DenyReason::exhausted, p.limit, free, reset_after(p, r, t));
  // Analytic guess: within this window prev's weight must fall to (L − curr − c)/prev; else in
  // the next window curr's weight must fall to (L − c)/curr. Two windows on, it always fits.
  const std::int64_t w = p.window.count();
  const double wd = static_cast<double>(w);
  const std::int64_t from = std::max(t, r.window_start_ns);
  std::int64_t guess = r.window_start_ns + 2 * w;
  if (p.limit - r.curr - cost >= 0 && r.prev > 0) {
    guess = r.window_start_ns + time_math::ceil_ns(wd - (p.limit - r.curr - cost) * wd / r.prev);
  } else if (r.curr > 0) {
    guess = r.window_start_ns + w + time_math::ceil_ns(wd - (p.limit - cost) * wd / r.curr);
  }
  const auto when = time_math::earliest_true(from, guess, r.window_start_ns + 2 * w,
                                             [&](std::int64_t u) { return admits(p, s, u, cost); });
  d.retry_after = Nanos{(when ? *when : r.window_start_ns + 2 * w) - t};
  return d;
}
}  // namespace

SlidingCounter::State SlidingCounter::fresh(const LimitParams& p, Nanos now) {
  return State{time_math::align_down(now.count(), p.window.count()), 0.0, 0.0};
}

Decision SlidingCounter::decide(const LimitParams& p, State& s, Nanos now, double cost) {
  return time_math::commit_if_allowed(p, s, now, cost, evaluate);
}

Decision SlidingCounter::peek(const LimitParams& p, const State& s, Nanos now, double cost) {
  return evaluate(p, s, now, cost, nullptr);
}

bool SlidingCounter::idle(const LimitParams& p, const State& s, Nanos now) {
  return estimate(p, roll(p, s, now.count()), now.count()) <= 0;
}

double SlidingCounter::available(const LimitParams& p, const State& s, Nanos now) {
  return std::max(0.0, p.limit - estimate(p, roll(p, s, now.count()), now.count()));
}

void SlidingCounter::reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now) {
  const State r = roll(p, s, now.count());
  const std::int64_t t = std::max(now.count(), r.window_start_ns);
  s = State{time_math::align_down(t, q.window.count()), std::min(r.prev, q.limit),
            std::min(r.curr, q.limit)};
}

}  // namespace limitscope
