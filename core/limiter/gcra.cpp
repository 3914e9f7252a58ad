#include "core/limiter/gcra.h"

#include <algorithm>

#include "core/limiter/time_math.h"

namespace limitscope {

namespace {
using time_math::kFarNs;

// The three integers GCRA works in, all ns: T, c·T and C·T.
struct Cells {
  std::int64_t t_ns;      // emission interval T
  std::int64_t cost_ns;   // c·T
  std::int64_t limit_ns;  // C·T = τ + T
};

Cells cells(const LimitParams& p, double cost) {
  const std::int64_t t = Gcra::emission_interval_ns(p);
  const double td = static_cast<double>(t);
  return Cells{t, std::max<std::int64_t>(1, time_math::round_ns(cost * td)),
               std::max<std::int64_t>(1, time_math::round_ns(p.capacity * td))};
}

std::int64_t backlog(const Gcra::State& s, std::int64_t t) {
  return std::max<std::int64_t>(0, s.tat_ns - t);
}

double level(const LimitParams& p, const Cells& c, std::int64_t backlog_ns) {
  const double free_ns = static_cast<double>(std::max<std::int64_t>(0, c.limit_ns - backlog_ns));
  return std::clamp(free_ns / static_cast<double>(c.t_ns), 0.0, p.capacity);
}

Decision evaluate(const LimitParams& p, const Gcra::State& s, Nanos now, double cost,
                  Gcra::State* next) {
  const std::int64_t t = now.count();
  const bool valid = time_math::valid_cost(cost);
  const Cells c = cells(p, valid ? cost : 1.0);
  const std::int64_t b = backlog(s, t);
  if (!valid || cost > p.capacity) {
    return time_math::refusal(valid ? DenyReason::cost_above_capacity : DenyReason::invalid_cost,
                              p.capacity, level(p, c, b), Nanos{b});
  }
  Decision d;
  d.limit = p.capacity;
  if (b + c.cost_ns <= c.limit_ns) {
    d.allowed = true;
    d.remaining = level(p, c, b + c.cost_ns);
    d.retry_after = Nanos{0};
    d.reset_after = Nanos{b + c.cost_ns};
    if (next != nullptr) next->tat_ns = std::max(s.tat_ns, t) + c.cost_ns;
    return d;
  }
  d.reason = DenyReason::exhausted;
  d.remaining = level(p, c, b);
  d.reset_after = Nanos{b};
  // Admitted once tat − u + c·T <= C·T.
  d.retry_after = Nanos{s.tat_ns + c.cost_ns - c.limit_ns - t};
  return d;
}
}  // namespace

std::int64_t Gcra::emission_interval_ns(const LimitParams& p) {
  return std::max<std::int64_t>(1, time_math::round_ns(time_math::ns_per_unit(p)));
}

Gcra::State Gcra::fresh(const LimitParams&, Nanos now) {
  return State{now.count()};
}

Decision Gcra::decide(const LimitParams& p, State& s, Nanos now, double cost) {
  return time_math::commit_if_allowed(p, s, now, cost, evaluate);
}

Decision Gcra::peek(const LimitParams& p, const State& s, Nanos now, double cost) {
  return evaluate(p, s, now, cost, nullptr);
}

bool Gcra::idle(const LimitParams&, const State& s, Nanos now) {
  return s.tat_ns <= now.count();
}

double Gcra::available(const LimitParams& p, const State& s, Nanos now) {
  return level(p, cells(p, 1.0), backlog(s, now.count()));
}

void Gcra::reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now) {
  const double fraction = std::clamp(available(p, s, now) / p.capacity, 0.0, 1.0);
  const Cells cq = cells(q, 1.0);
  const std::int64_t backlog_ns =
      time_math::round_ns((1.0 - fraction) * static_cast<double>(cq.limit_ns));
  s.tat_ns = now.count() + std::min(backlog_ns, kFarNs);
}

}  // namespace limitscope
