#pragma once
// A single-key, thread-safe limiter for direct use (a client SDK, the gateway's global limit,
// tests), and a composite that admits only when every child admits. Keyed tables of many
// states use the algorithm types directly (core/limiter/algorithms.h).

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/limiter/decision.h"
#include "core/limiter/limit_params.h"

namespace limitscope {

class CompositeLimiter;

class Limiter {
 public:
  virtual ~Limiter() = default;
  Limiter(const Limiter&) = delete;
  Limiter& operator=(const Limiter&) = delete;

  /// Decides at clock().now() without waiting; consumes only when allowed.
  /// @param cost cost units (> 0, finite)
  Decision try_acquire(double cost = 1);

  /// Blocks until the request is admitted. Each rejection's retry_after gives the exact instant
  /// to wait for (clock().wait_until, no polling); if another thread took the capacity
  /// meanwhile, it decides again and waits again. It does not wait out Decision::delay (a
  /// shaper's delay is for the caller to honour).
  /// @param deadline absolute time on clock()'s monotonic timeline
  /// @return the allowed Decision; or a denied one, without waiting, when the request can
  ///         never succeed or would succeed only after `deadline`; or a denied one when
  ///         `cancel` was cancelled.
  Decision acquire(double cost, Nanos deadline, CancelToken& cancel);

  /// Changes the parameters live, carrying the state over (rule per algorithm, see the
  /// algorithm headers and docs/limiters.md). Switching algorithm starts a fresh state.
  /// @return the validation error, in which case nothing changed.
  virtual Status reconfigure(const LimitParams& params) = 0;
  /// @return cost units that could be admitted right now.
  virtual double available() = 0;
  /// @return the current parameters.
  virtual LimitParams params() = 0;

  Clock& clock() const { return clock_; }

 protected:
  explicit Limiter(Clock& clock) : clock_(clock) {}

 private:
  friend class CompositeLimiter;
  /// Locks, reads now() under the lock, decides. @param now_out receives the time used.
  virtual Decision decide_now(double cost, Nanos& now_out) = 0;
  /// Appends the mutexes guarding this limiter's state (a composite: all of its leaves').
  virtual void collect_mutexes(std::vector<std::mutex*>& out) = 0;
  /// With every mutex of collect_mutexes() held: what a decision at `now` would answer.
  virtual Decision peek_locked(double cost, Nanos now) = 0;
  /// With every mutex of collect_mutexes() held: decides at `now`, consuming when allowed.
  virtual Decision decide_locked(double cost, Nanos now) = 0;
  /// With every mutex of collect_mutexes() held: cost units admissible at `now`.
  virtual double available_locked(Nanos now) = 0;

  Clock& clock_;
};

/// A limiter for one key with the given parameters.
/// @return the limiter, or the validation error of `params`.
Expected<std::unique_ptr<Limiter>> make_limiter(const LimitParams& params, Clock& clock);

/// Admits only when every child admits; then all children consume, otherwise none does.
/// It locks all leaf mutexes in one global order (by address), peeks every child, and decides
/// every child only when all peeks allow, so concurrent users never see half a consumption.
/// Children may be shared with other composites or used directly at the same time.
/// Its Decision is the most restrictive child's: allowed iff all allow; limit and remaining of
/// the child that refused (the most severe reason, then the longest retry_after, then the
/// first), or when all admit of the child with the least remaining; retry_after the largest
/// (nullopt if any child can never admit); reset_after and delay the largest; reason by
/// severity (invalid_cost, cost_above_capacity, queue_full, exhausted).
class CompositeLimiter final : public Limiter {
 public:
  /// Not supported on the whole: reconfigure a child instead.
  /// @return always an error saying so.
  Status reconfigure(const LimitParams& params) override;
  /// @return the smallest available() of the children.
  double available() override;
  /// @return the first child's parameters (the primary limit); see child(i) for the others.
  LimitParams params() override;

  std::size_t size() const { return children_.size(); }
  Limiter& child(std::size_t i) const { return *children_[i]; }

 private:
  Decision decide_now(double cost, Nanos& now_out) override;
  void collect_mutexes(std::vector<std::mutex*>& out) override;
  Decision peek_locked(double cost, Nanos now) override;
  Decision decide_locked(double cost, Nanos now) override;
  double available_locked(Nanos now) override;

  // Built only by make_composite, which checks: at least one child, none null, no leaf twice,
  // all on the same clock.
  CompositeLimiter(std::vector<std::shared_ptr<Limiter>> children,
                   std::vector<std::mutex*> mutexes);
  friend Expected<std::unique_ptr<CompositeLimiter>> make_composite(
      std::vector<std::shared_ptr<Limiter>> children);
  static void collect_from(Limiter& l, std::vector<std::mutex*>& out) { l.collect_mutexes(out); }

  std::vector<std::shared_ptr<Limiter>> children_;
  std::vector<std::mutex*> mutexes_;  // all leaf mutexes, sorted by address, no duplicates
};

/// @return a composite over `children`, or an error when one is null, a leaf appears twice,
///         the clocks differ, or there is no child.
Expected<std::unique_ptr<CompositeLimiter>> make_composite(
    std::vector<std::shared_ptr<Limiter>> children);
/// @return a composite of fresh limiters with these parameters, or the first validation error
///         (prefixed with the index: "limit 2: capacity must be ...").
Expected<std::unique_ptr<CompositeLimiter>> make_composite(const std::vector<LimitParams>& params,
                                                           Clock& clock);

}  // namespace limitscope
