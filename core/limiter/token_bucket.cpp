#include "core/limiter/token_bucket.h"

#include <algorithm>

#include "core/limiter/time_math.h"

namespace limitscope {

namespace {
using time_math::ceil_ns;
using time_math::kFarNs;

// tokens(t) = min(C, tokens + r·Δt), Δt >= 0 (time going back counts as none). Monotone
// non-decreasing in t, which retry_after's search relies on. r·Δt is computed as
// Δt·amount/period so that refills at whole-token instants are exact.
double level_at(const LimitParams& p, const TokenBucket::State& s, std::int64_t t) {
  const std::int64_t dt = t > s.last_ns ? t - s.last_ns : 0;
  const double refill =
      static_cast<double>(dt) * p.refill.amount / static_cast<double>(p.refill.period.count());
  return std::min(p.capacity, s.tokens + refill);
}

// Time from t until the bucket holds C again (analytic, rounded up).
// @param ns_per_unit time_math::ns_per_unit(p), computed once per decision (a division)
Nanos time_to_full(const LimitParams& p, double level, double ns_per_unit) {
  return Nanos{ceil_ns((p.capacity - level) * ns_per_unit)};
}

// Every outcome is written into one Decision `d`, returned by name, so it is built in the
// caller's return slot: a second object copied out cost more than the arithmetic.
Decision evaluate(const LimitParams& p, const TokenBucket::State& s, Nanos now, double cost,
                  TokenBucket::State* next) {
  const std::int64_t t = now.count();
  const double level = level_at(p, s, t);
  const double npu = time_math::ns_per_unit(p);
  Decision d;
  if (!time_math::valid_cost(cost) || cost > p.capacity) {
    d = time_math::refusal(
        time_math::valid_cost(cost) ? DenyReason::cost_above_capacity : DenyReason::invalid_cost,
        p.capacity, level, time_to_full(p, level, npu));
    return d;
  }
  d.limit = p.capacity;
  if (level >= cost) {
    d.allowed = true;
    d.remaining = level - cost;
    d.retry_after = Nanos{0};
    d.reset_after = time_to_full(p, d.remaining, npu);
    if (next != nullptr) *next = TokenBucket::State{d.remaining, std::max(s.last_ns, t)};
    return d;
  }
  d.reason = DenyReason::exhausted;
  d.remaining = level;
  d.reset_after = time_to_full(p, level, npu);
  // The earliest instant the same decision arithmetic admits `cost`.
  const std::int64_t guess = t + ceil_ns((cost - level) * npu);
  const auto when = time_math::earliest_true(
      t, guess, t + kFarNs, [&](std::int64_t u) { return level_at(p, s, u) >= cost; });
  d.retry_after = Nanos{when ? *when - t : kFarNs};
  return d;
}
}  // namespace

TokenBucket::State TokenBucket::fresh(const LimitParams& p, Nanos now) {
  return State{p.capacity, now.count()};
}

Decision TokenBucket::decide(const LimitParams& p, State& s, Nanos now, double cost) {
  // evaluate() writes the next state only when it admits, after its last read of `s`, so it
  // may write over `s` itself (no copy to commit).
  return evaluate(p, s, now, cost, &s);
}

Decision TokenBucket::peek(const LimitParams& p, const State& s, Nanos now, double cost) {
  return evaluate(p, s, now, cost, nullptr);
}

bool TokenBucket::idle(const LimitParams& p, const State& s, Nanos now) {
  return level_at(p, s, now.count()) >= p.capacity;
}

double TokenBucket::available(const LimitParams& p, const State& s, Nanos now) {
  return level_at(p, s, now.count());
}

void TokenBucket::reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now) {
  const double level = level_at(p, s, now.count());
  s.tokens = level < 0 ? std::max(level, -max_debt(q))
                       : std::clamp(level / p.capacity, 0.0, 1.0) * q.capacity;
  s.last_ns = std::max(s.last_ns, now.count());
}

void TokenBucket::settle(const LimitParams& p, State& s, Nanos now, double delta) {
  const double level = level_at(p, s, now.count()) - delta;
  s.tokens = std::clamp(level, -max_debt(p), p.capacity);
  s.last_ns = std::max(s.last_ns, now.count());
}

double TokenBucket::max_debt(const LimitParams& p) {
  // settle.lua computes the same expression in the same order (amount · 3.6e12 / period).
  return p.refill.amount * 3.6e12 / static_cast<double>(p.refill.period.count());
}

}  // namespace limitscope
