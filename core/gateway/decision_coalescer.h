#pragma once
// Coalesces the Redis decisions of concurrent gateway requests into batched calls, one queue
// per rule (each rule lives on one server, or on the one cluster shard of its hash tag, so a
// batch never spans shards and the queues of rules on different shards flush independently).
//
// No thread of its own: a request thread enqueues its decision and either leads a flush (it
// sends the queue as one batch and hands every waiter its result) or waits for a leader. The
// queue is flushed
//   - at once while fewer than max_in_flight batches of the rule are in flight: a lone
//     request at low load pays no window, and its batch of one is a plain single decision;
//   - when it holds max_batch requests;
//   - when its oldest request has waited `window`: no decision waits longer than the window
//     before it is sent, even while earlier batches are still in flight.
// So batches form only while round trips are under way, and grow with the load (group
// commit, bounded by the window as Gubernator's BatchWait bounds its batches). With one batch
// in flight at a time, every round trip waits for the one before it and for the thread that
// sends it to be woken: on busy cores those wake-ups, one after another, bound the throughput
// (docs/benchmarks.md, "Gateway"); a few batches in flight overlap them.
//
// A window of 0 disables coalescing: every decision is sent alone, as before.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/redis/failure_guard.h"
#include "core/redis/redis_limiter.h"

namespace limitscope::gateway {

/// What became of a request's call in Redis, for a settlement riding on it: its writes were
/// made (answered), none were (an error reply, a call refused as late, a call never sent: the
/// circuit was open), or nobody knows (the round trip failed after sending: a timeout, a
/// dropped connection), so the settlement may or may not have been applied.
enum class CallFate { answered, nothing_written, unknown };

/// One request's decision as the failure policy left it, and the composite's reported limit.
struct RuleOutcome {
  redis::GuardedDecision guarded;
  std::string binding;         ///< RedisDecision::binding_limit; "" when Redis did not decide
  std::optional<bool> shadow;  ///< RedisDecision::shadow_allowed
  CallFate fate = CallFate::unknown;
};

struct CoalescerOptions {
  std::chrono::microseconds window{500};  ///< longest a decision waits to be sent; 0: off
  std::size_t max_batch = 64;             ///< most requests per batch (>= 1)
  std::size_t max_in_flight = 1;          ///< batches of a rule sent at once without waiting (>= 1)
};

class DecisionCoalescer {
 public:
  /// Decides a batch of one rule's requests (one round trip; in order, one outcome each).
  using BatchFn = std::function<std::vector<RuleOutcome>(
      const std::string& rule, const std::vector<const redis::DecideRequest*>& requests)>;

  DecisionCoalescer(CoalescerOptions options, BatchFn decide);

  /// Decides `request` of `rule`, in a batch with the rule's other queued requests.
  RuleOutcome decide(const std::string& rule, const redis::DecideRequest& request);

  /// Decisions of `rule` waiting to be sent (not those in flight), for tests and diagnostics.
  std::size_t queued(const std::string& rule);

  const CoalescerOptions& options() const { return options_; }

 private:
  using Steady = std::chrono::steady_clock;
  struct Slot {
    const redis::DecideRequest* request = nullptr;
    Steady::time_point queued_at;
    bool taken = false;  // in a batch sent (or being sent)
    bool done = false;
    RuleOutcome outcome;
    std::condition_variable cv;  // its owner waits here: woken alone, not with every waiter
  };
  // Shared with the leader that answers it, which wakes it after letting go of the lane's
  // lock (a waiter woken under the lock would only block on it again).
  using SlotPtr = std::shared_ptr<Slot>;
  struct Lane {
    std::mutex mu;
    std::deque<SlotPtr> queue;  // waiting to be sent, oldest first
    std::size_t in_flight = 0;  // batches sent and not yet answered
  };
  Lane& lane(const std::string& rule);
  // Sends the oldest queued requests of `l` as one batch (lock held on entry and exit).
  void flush(const std::string& rule, Lane& l, std::unique_lock<std::mutex>& lock);

  CoalescerOptions options_;
  BatchFn decide_;
  std::mutex lanes_mu_;
  std::map<std::string, std::unique_ptr<Lane>> lanes_;  // lanes are never removed
};

}  // namespace limitscope::gateway
