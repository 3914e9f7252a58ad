#include "core/limiter/limiter.h"

#include <algorithm>
#include <limits>
#include <variant>

#include "core/limiter/algorithms.h"

namespace limitscope {

namespace {

// Locks a set of mutexes in the given (address) order and unlocks them in reverse.
class LockAll {
 public:
  explicit LockAll(const std::vector<std::mutex*>& mutexes) : mutexes_(mutexes) {
    for (std::mutex* m : mutexes_) m->lock();
  }
  ~LockAll() {
    for (auto it = mutexes_.rbegin(); it != mutexes_.rend(); ++it) (*it)->unlock();
  }
  LockAll(const LockAll&) = delete;
  LockAll& operator=(const LockAll&) = delete;

 private:
  const std::vector<std::mutex*>& mutexes_;
};

// One key's state under any of the six algorithms; the variant lets reconfigure() switch
// algorithm (with a fresh state) on a live limiter.
using AnyState = std::variant<TokenBucket::State, Gcra::State, SlidingLog::State,
                              SlidingCounter::State, FixedWindow::State, LeakyBucket::State>;

AnyState fresh_state(const LimitParams& p, Nanos now) {
  return visit_algorithm(p.algorithm, [&](auto algo) -> AnyState {
    using A = decltype(algo);
    return A::fresh(p, now);
  });
}

class SingleKeyLimiter final : public Limiter {
 public:
  SingleKeyLimiter(const LimitParams& params, Clock& clock)
      : Limiter(clock), params_(params), state_(fresh_state(params, clock.now())) {}

  Status reconfigure(const LimitParams& q) override {
    if (Status error = q.validate(); !error.ok()) return error;
    std::lock_guard lock(mu_);
    const Nanos now = clock().now();
    if (q.algorithm == params_.algorithm) {
      visit_algorithm(q.algorithm, [&](auto algo) {
        using A = decltype(algo);
        A::reconfigure(params_, q, std::get<typename A::State>(state_), now);
      });
    } else {
      state_ = fresh_state(q, now);
    }
    params_ = q;
    return {};
  }

  double available() override {
    std::lock_guard lock(mu_);
    return available_locked(clock().now());
  }

  LimitParams params() override {
    std::lock_guard lock(mu_);
    return params_;
  }

 private:
  Decision decide_now(double cost, Nanos& now_out) override {
    std::lock_guard lock(mu_);
    now_out = clock().now();
    return decide_locked(cost, now_out);
  }

  void collect_mutexes(std::vector<std::mutex*>& out) override { out.push_back(&mu_); }

  Decision peek_locked(double cost, Nanos now) override {
    return visit_algorithm(params_.algorithm, [&](auto algo) {
      using A = decltype(algo);
      return A::peek(params_, std::get<typename A::State>(state_), now, cost);
    });
  }

  Decision decide_locked(double cost, Nanos now) override {
    return visit_algorithm(params_.algorithm, [&](auto algo) {
      using A = decltype(algo);
      return A::decide(params_, std::get<typename A::State>(state_), now, cost);
    });
  }

  double available_locked(Nanos now) override {
    return visit_algorithm(params_.algorithm, [&](auto algo) {
      using A = decltype(algo);
      return A::available(params_, std::get<typename A::State>(state_), now);
    });
  }

  std::mutex mu_;
  LimitParams params_;  // guarded by mu_
  AnyState state_;      // guarded by mu_; always the alternative of params_.algorithm
};

// Higher is more severe; the composite reports the most severe reason among its children.
int severity(DenyReason r) {
  switch (r) {
    case DenyReason::none:
      return 0;
    case DenyReason::exhausted:
      return 1;
    case DenyReason::queue_full:
      return 2;
    case DenyReason::cost_above_capacity:
      return 3;
    case DenyReason::invalid_cost:
      return 4;
    case DenyReason::key_limit:
    case DenyReason::unknown_key:
    case DenyReason::unknown_model:
      return 5;
    case DenyReason::backend_unavailable:
    case DenyReason::backend_error:
    case DenyReason::backend_forbidden:
      return 6;
  }
  return 0;
}

// Whether refusal a outranks refusal b as the one to report: a more severe reason, then a
// longer retry_after (nullopt, never, is the longest).
bool refuses_harder(const Decision& a, const Decision& b) {
  if (severity(a.reason) != severity(b.reason)) return severity(a.reason) > severity(b.reason);
  if (!b.retry_after) return false;
  return !a.retry_after || *a.retry_after > *b.retry_after;
}

// The child whose limit and remaining the composite reports (see CompositeLimiter). decide.lua
// makes the same choice for a composite rule in Redis.
std::size_t reported_child(const std::vector<Decision>& ds, bool allowed) {
  std::size_t r = 0;
  if (allowed) {
    for (std::size_t i = 1; i < ds.size(); ++i) {
      if (ds[i].remaining < ds[r].remaining) r = i;
    }
    return r;
  }
  bool found = false;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    if (ds[i].allowed) continue;
    if (!found || refuses_harder(ds[i], ds[r])) r = i;
    found = true;
  }
  return r;
}

// The most restrictive of the children's decisions (see CompositeLimiter).
Decision combine(const std::vector<Decision>& ds) {
  Decision out = ds.front();
  out.allowed = std::all_of(ds.begin(), ds.end(), [](const Decision& d) { return d.allowed; });
  const Decision& reported = ds[reported_child(ds, out.allowed)];
  out.remaining = reported.remaining;
  out.limit = reported.limit;
  for (const Decision& d : ds) {
    out.reset_after = std::max(out.reset_after, d.reset_after);
    out.delay = std::max(out.delay, d.delay);
    if (severity(d.reason) > severity(out.reason)) out.reason = d.reason;
  }
  if (out.allowed) {
    out.retry_after = Nanos{0};
    return out;
  }
  // Each child's admission condition only becomes true with time (no consumption meanwhile),
  // so the latest child instant is when all of them admit together.
  out.retry_after = Nanos{0};
  for (const Decision& d : ds) {
    if (!d.retry_after) {
      out.retry_after = std::nullopt;
      break;
    }
    out.retry_after = std::max(*out.retry_after, *d.retry_after);
  }
  return out;
}

}  // namespace

Decision Limiter::try_acquire(double cost) {
  Nanos now{0};
  return decide_now(cost, now);
}

Decision Limiter::acquire(double cost, Nanos deadline, CancelToken& cancel) {
  for (;;) {
    Nanos now{0};
    Decision d = decide_now(cost, now);
    if (d.allowed || !d.retry_after || cancel.cancelled()) return d;
    const Nanos at = now + std::max(*d.retry_after, Nanos{1});
    if (at > deadline) return d;                   // waiting could not succeed in time
    if (!clock_.wait_until(at, cancel)) return d;  // cancelled
    // Woken at the computed instant: decide again (another thread may have taken it).
  }
}

Expected<std::unique_ptr<Limiter>> make_limiter(const LimitParams& params, Clock& clock) {
  if (Status error = params.validate(); !error.ok()) return make_error(error.error());
  return std::unique_ptr<Limiter>(new SingleKeyLimiter(params, clock));
}

CompositeLimiter::CompositeLimiter(std::vector<std::shared_ptr<Limiter>> children,
                                   std::vector<std::mutex*> mutexes)
    : Limiter(children.front()->clock()),
      children_(std::move(children)),
      mutexes_(std::move(mutexes)) {}

Status CompositeLimiter::reconfigure(const LimitParams&) {
  return make_error(
      "a composite limiter is reconfigured through its children (child(i).reconfigure)");
}

double CompositeLimiter::available() {
  LockAll lock(mutexes_);
  return available_locked(clock().now());
}

LimitParams CompositeLimiter::params() {
  return children_.front()->params();
}

Decision CompositeLimiter::decide_now(double cost, Nanos& now_out) {
  LockAll lock(mutexes_);
  now_out = clock().now();
  return decide_locked(cost, now_out);
}

void CompositeLimiter::collect_mutexes(std::vector<std::mutex*>& out) {
  out.insert(out.end(), mutexes_.begin(), mutexes_.end());
}

Decision CompositeLimiter::peek_locked(double cost, Nanos now) {
  std::vector<Decision> ds;
  ds.reserve(children_.size());
  for (const auto& c : children_) ds.push_back(c->peek_locked(cost, now));
  return combine(ds);
}

Decision CompositeLimiter::decide_locked(double cost, Nanos now) {
  std::vector<Decision> ds;
  ds.reserve(children_.size());
  for (const auto& c : children_) ds.push_back(c->peek_locked(cost, now));
  if (!std::all_of(ds.begin(), ds.end(), [](const Decision& d) { return d.allowed; })) {
    return combine(ds);  // none consumes
  }
  // Every child admits at this instant under the locks we hold, so each decide admits too.
  for (std::size_t i = 0; i < children_.size(); ++i) ds[i] = children_[i]->decide_locked(cost, now);
  return combine(ds);
}

double CompositeLimiter::available_locked(Nanos now) {
  double least = std::numeric_limits<double>::infinity();
  for (const auto& c : children_) least = std::min(least, c->available_locked(now));
  return least;
}

Expected<std::unique_ptr<CompositeLimiter>> make_composite(
    std::vector<std::shared_ptr<Limiter>> children) {
  if (children.empty()) return make_error("a composite limiter needs at least one child");
  std::vector<std::mutex*> mutexes;
  for (std::size_t i = 0; i < children.size(); ++i) {
    if (!children[i]) return make_error("composite child " + std::to_string(i) + " is null");
    if (&children[i]->clock() != &children.front()->clock()) {
      return make_error("composite child " + std::to_string(i) +
                        " uses a different clock than child 0");
    }
    CompositeLimiter::collect_from(*children[i], mutexes);
  }
  std::sort(mutexes.begin(), mutexes.end());
  if (std::adjacent_find(mutexes.begin(), mutexes.end()) != mutexes.end()) {
    return make_error("a limiter appears twice in the composite (it would consume twice)");
  }
  return std::unique_ptr<CompositeLimiter>(
      new CompositeLimiter(std::move(children), std::move(mutexes)));
}

Expected<std::unique_ptr<CompositeLimiter>> make_composite(const std::vector<LimitParams>& params,
                                                           Clock& clock) {
  std::vector<std::shared_ptr<Limiter>> children;
  for (std::size_t i = 0; i < params.size(); ++i) {
    auto child = make_limiter(params[i], clock);
    if (!child) return make_error("limit " + std::to_string(i) + ": " + child.error());
    children.push_back(std::move(*child));
  }
  return make_composite(std::move(children));
}

}  // namespace limitscope
