#include "core/limiter/fixed_window.h"

#include <algorithm>

#include "core/limiter/time_math.h"

namespace limitscope {

namespace {
// The state at t: a new window (count 0) once t has left the stored one. t before the stored
// window start counts as that start (time going back gains nothing).
FixedWindow::State roll(const LimitParams& p, const FixedWindow::State& s, std::int64_t t) {
  if (t < s.window_start_ns) return s;
  const std::int64_t start = time_math::align_down(t, p.window.count());
  if (start == s.window_start_ns) return s;
  return FixedWindow::State{start, 0.0};
}

// Time until the window holding a non-zero count is over.
Nanos reset_after(const LimitParams& p, const FixedWindow::State& r, std::int64_t t) {
  if (r.count <= 0) return Nanos{0};
  return Nanos{r.window_start_ns + p.window.count() - std::max(t, r.window_start_ns)};
}

Decision evaluate(const LimitParams& p, const FixedWindow::State& s, Nanos now, double cost,
                  FixedWindow::State* next) {
  const std::int64_t t = now.count();
  const FixedWindow::State r = roll(p, s, t);
  const double free = std::max(0.0, p.limit - r.count);
  const bool valid = time_math::valid_cost(cost);
  if (!valid || cost > p.limit) {
    return time_math::refusal(valid ? DenyReason::cost_above_capacity : DenyReason::invalid_cost,
                              p.limit, free, reset_after(p, r, t));
  }
  if (r.count + cost <= p.limit) {
    const FixedWindow::State after{r.window_start_ns, r.count + cost};
    if (next != nullptr) *next = after;
    return time_math::admission(p.limit, std::max(0.0, p.limit - after.count),
                                reset_after(p, after, t));
  }
  Decision d = time_math::refusal(DenyReason::exhausted, p.limit, free, reset_after(p, r, t));
  d.retry_after = d.reset_after;  // the next window starts empty and cost <= L
  return d;
}
}  // namespace

FixedWindow::State FixedWindow::fresh(const LimitParams& p, Nanos now) {
  return State{time_math::align_down(now.count(), p.window.count()), 0.0};
}

Decision FixedWindow::decide(const LimitParams& p, State& s, Nanos now, double cost) {
  return time_math::commit_if_allowed(p, s, now, cost, evaluate);
}

Decision FixedWindow::peek(const LimitParams& p, const State& s, Nanos now, double cost) {
  return evaluate(p, s, now, cost, nullptr);
}

bool FixedWindow::idle(const LimitParams& p, const State& s, Nanos now) {
  return roll(p, s, now.count()).count <= 0;
}

double FixedWindow::available(const LimitParams& p, const State& s, Nanos now) {
  return std::max(0.0, p.limit - roll(p, s, now.count()).count);
}

void FixedWindow::reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now) {
  const State r = roll(p, s, now.count());
  const std::int64_t t = std::max(now.count(), r.window_start_ns);
  s = State{time_math::align_down(t, q.window.count()), std::min(r.count, q.limit)};
}

}  // namespace limitscope
