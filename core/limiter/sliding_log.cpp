#include "core/limiter/sliding_log.h"

#include <algorithm>

#include "core/limiter/time_math.h"

namespace limitscope {

namespace {
using State = SlidingLog::State;

// Below this many expired entries the vector is not compacted (amortises the erase).
constexpr std::uint32_t kCompactAfter = 32;

// The decision time: `now`, or the newest entry's time if `now` is earlier (time going back
// must not let old entries expire early, nor break the log's order).
std::int64_t effective_time(const State& s, Nanos now) {
  const std::int64_t t = now.count();
  if (s.size() == 0) return t;
  return std::max(t, s.entries.back().t_ns);
}

// The live part of the log at t: entries with t_ns in (t − W, t]. `used` is updated by the
// same sequential subtraction everywhere (decide, peek, retry_after), so every path computes
// bit-identical sums; an empty log resets it to exactly 0 so rounding cannot accumulate.
struct Live {
  std::uint32_t head;
  double used;
};

Live live_at(const LimitParams& p, const State& s, std::int64_t t) {
  Live l{s.head, s.used};
  const std::int64_t cutoff = t - p.window.count();
  const auto n = static_cast<std::uint32_t>(s.entries.size());
  while (l.head < n && s.entries[l.head].t_ns <= cutoff) {
    l.used -= s.entries[l.head].cost;
    ++l.head;
  }
  if (l.head == n) l.used = 0;
  return Live{l.head, std::max(0.0, l.used)};
}

Nanos reset_after(const LimitParams& p, const State& s, const Live& l, std::int64_t now) {
  if (l.head == s.entries.size()) return Nanos{0};
  return Nanos{s.entries.back().t_ns + p.window.count() - now};
}

// The earliest instant (> t) at which used + cost <= L, found by expiring entries oldest first
// with the same arithmetic live_at() uses: entry i leaves the window at t_i + W.
std::int64_t retry_instant(const LimitParams& p, const State& s, Live l, double cost) {
  const auto n = static_cast<std::uint32_t>(s.entries.size());
  while (l.head < n) {
    l.used -= s.entries[l.head].cost;
    const std::int64_t leaves = s.entries[l.head].t_ns + p.window.count();
    ++l.head;
    if (l.head == n) l.used = 0;
    if (std::max(0.0, l.used) + cost <= p.limit) return leaves;
  }
  return s.entries.empty() ? 0 : s.entries.back().t_ns + p.window.count();
}

Decision evaluate(const LimitParams& p, const State& s, Nanos now, double cost, Live* live_out) {
  const std::int64_t t = effective_time(s, now);
  const Live l = live_at(p, s, t);
  const double free = std::max(0.0, p.limit - l.used);
  const bool valid = time_math::valid_cost(cost);
  if (!valid || cost > p.limit) {
    return time_math::refusal(valid ? DenyReason::cost_above_capacity : DenyReason::invalid_cost,
                              p.limit, free, reset_after(p, s, l, now.count()));
  }
  if (live_out != nullptr) *live_out = l;
  Decision d;
  d.limit = p.limit;
  if (l.used + cost <= p.limit) {
    d.allowed = true;
    d.remaining = std::max(0.0, p.limit - (l.used + cost));
    d.retry_after = Nanos{0};
    d.reset_after = Nanos{t + p.window.count() - now.count()};  // the new entry is the newest
    return d;
  }
  d.reason = DenyReason::exhausted;
  d.remaining = free;
  d.reset_after = reset_after(p, s, l, now.count());
  d.retry_after = Nanos{retry_instant(p, s, l, cost) - now.count()};
  return d;
}
}  // namespace

SlidingLog::State SlidingLog::fresh(const LimitParams&, Nanos) {
  return State{};
}

Decision SlidingLog::decide(const LimitParams& p, State& s, Nanos now, double cost) {
  Live l{s.head, s.used};
  Decision d = evaluate(p, s, now, cost, &l);
  if (!d.allowed) return d;
  const std::int64_t t = effective_time(s, now);
  s.head = l.head;
  s.used = l.used + cost;
  if (s.head < s.entries.size() && s.entries.back().t_ns == t) {
    s.entries.back().cost += cost;
  } else {
    s.entries.push_back(Entry{t, cost});
  }
  if (s.head >= kCompactAfter && s.head * 2 >= s.entries.size()) {
    s.entries.erase(s.entries.begin(), s.entries.begin() + s.head);
    s.head = 0;
  }
  return d;
}

Decision SlidingLog::peek(const LimitParams& p, const State& s, Nanos now, double cost) {
  return evaluate(p, s, now, cost, nullptr);
}

bool SlidingLog::idle(const LimitParams& p, const State& s, Nanos now) {
  return live_at(p, s, effective_time(s, now)).head == s.entries.size();
}

double SlidingLog::available(const LimitParams& p, const State& s, Nanos now) {
  return std::max(0.0, p.limit - live_at(p, s, effective_time(s, now)).used);
}

void SlidingLog::reconfigure(const LimitParams& p, const LimitParams& q, State& s, Nanos now) {
  const Live l = live_at(p, s, effective_time(s, now));
  s.entries.erase(s.entries.begin(), s.entries.begin() + l.head);
  s.head = 0;
  s.used = l.used;
  // Over the new limit: drop the oldest cost until the window holds exactly L (it is full).
  std::size_t drop = 0;
  while (s.used > q.limit && drop < s.entries.size()) {
    Entry& e = s.entries[drop];
    const double excess = s.used - q.limit;
    if (e.cost <= excess) {
      s.used -= e.cost;
      ++drop;
    } else {
      e.cost -= excess;
      s.used = q.limit;
    }
  }
  s.entries.erase(s.entries.begin(), s.entries.begin() + static_cast<std::ptrdiff_t>(drop));
  if (s.entries.empty()) s.used = 0;
}

}  // namespace limitscope
