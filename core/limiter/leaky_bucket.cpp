#include "core/limiter/leaky_bucket.h"

#include <algorithm>

#include "core/limiter/time_math.h"

namespace limitscope {

namespace {
using time_math::kFarNs;

// Cost converted to drain time: round(cost · period / amount) ns, at least 1 ns so that no
// admitted request is free.
std::int64_t drain_ns(const LimitParams& p, double cost) {
  return std::max<std::int64_t>(1, time_math::round_ns(cost * time_math::ns_per_unit(p)));
}

std::int64_t backlog(const LeakyBucket::State& s, std::int64_t t) {
  return std::max<std::int64_t>(0, s.drain_end_ns - t);
}

// Free queue space, cost units, for a queue holding `backlog_ns` of drain time.
double space(const LimitParams& p, std::int64_t depth_ns, std::int64_t backlog_ns) {
  const double free_ns = static_cast<double>(std::max<std::int64_t>(0, depth_ns - backlog_ns));
  return std::clamp(free_ns / time_math::ns_per_unit(p), 0.0, p.capacity);
}

Decision evaluate(const LimitParams& p, const LeakyBucket::State& s, Nanos now, double cost,
                  LeakyBucket::State* next) {
  const std::int64_t t = now.count();
  const std::int64_t depth = drain_ns(p, p.capacity);
  const std::int64_t b = backlog(s, t);
  const bool valid = time_math::valid_cost(cost);
  if (!valid || cost > p.capacity) {
    return time_math::refusal(valid ? DenyReason::cost_above_capacity : DenyReason::invalid_cost,
                              p.capacity, space(p, depth, b), Nanos{b});
  }
  const std::int64_t need = drain_ns(p, cost);
  Decision d;
  d.limit = p.capacity;
  if (b + need <= depth) {
    d.allowed = true;
    d.remaining = space(p, depth, b + need);
    d.retry_after = Nanos{0};
    d.delay = Nanos{b};  // everything queued before it drains first
    d.reset_after = Nanos{b + need};
    if (next != nullptr) next->drain_end_ns = t + b + need;
    return d;
  }
  d.reason = DenyReason::queue_full;
  d.remaining = space(p, depth, b);
  d.reset_after = Nanos{b};
  // Fits once drain_end − u + need <= depth.
  d.retry_after = Nanos{s.drain_end_ns + need - depth - t};
  return d;
}
}  // namespace

LeakyBucket::State LeakyBucket::fresh(const LimitParams&, Nanos now) {
  return State{now.count()};
}

Decision LeakyBucket::decide(const LimitParams& p, State& s, Nanos now, double cost) {
  return time_math::commit_if_allowed(p, s, now, cost, evaluate);
}

Decision LeakyBucket::peek(const LimitParams& p, const State& s, Nanos now, double cost) {
  return evaluate(p, s, now, cost, nullptr);
}

bool LeakyBucket::idle(const LimitParams&, const State& s, Nanos now) {
  return s.drain_end_ns <= now.count();
}

double LeakyBucket::available(const LimitParams& p, const State& s, Nanos now) {
  return space(p, drain_ns(p, p.capacity), backlog(s, now.count()));
}

void LeakyBucket::reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now) {
  const double occupied = std::clamp(
      static_cast<double>(backlog(s, now.count())) / static_cast<double>(drain_ns(p, p.capacity)),
      0.0, 1.0);
  const std::int64_t backlog_q =
      time_math::round_ns(occupied * static_cast<double>(drain_ns(q, q.capacity)));
  s.drain_end_ns = now.count() + std::min(backlog_q, kFarNs);
}

}  // namespace limitscope
