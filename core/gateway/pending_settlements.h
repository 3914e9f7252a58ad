#pragma once
// Token settlements waiting to ride on their key's next Redis decision (RedisAdmission with a
// settle delay; issue 18). A completed request's correction (usage minus estimate) is added to
// its (rule, limited key)'s pending delta instead of costing a round trip of its own; the
// key's next decision takes the delta and carries it (DecideRequest::settle_delta), so a key
// that keeps sending settles for free. What no decision takes in time is flushed by the owner
// with a settle call of its own (take_older_than, take_all).
//
// Deltas of one key add up: several completions before the next decision settle as one (the
// same level as applying them one by one, unless one of them alone would have crossed the
// bucket's capacity or its debt bound in between). The map holds at most `max_keys` keys: past
// it add() refuses a new key and the caller settles that request at once, as without a delay.
// Thread-safe. Every token decision calls take(), and most find nothing: with no delta pending
// (an atomic count of keys, kept under the lock) take() returns 0 without locking or building
// the map key.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/common/clock.h"

namespace limitscope::gateway {

struct PendingSettlement {
  std::string rule;
  std::string key;  ///< the limited key
  double delta = 0;
};

class PendingSettlements {
 public:
  explicit PendingSettlements(std::size_t max_keys) : max_keys_(max_keys) {}

  /// Adds `delta` to (rule, key)'s pending delta; its age runs from the oldest delta not yet
  /// sent (so a key completing often is still flushed in time).
  /// @return false (nothing added) when the map is full and holds no delta of (rule, key)
  bool add(const std::string& rule, const std::string& key, double delta, Nanos now);
  /// Takes (rule, key)'s pending delta (0 when none) for its next decision to carry.
  double take(const std::string& rule, const std::string& key);
  /// The deltas pending since `cutoff` or earlier, removed.
  std::vector<PendingSettlement> take_older_than(Nanos cutoff);
  /// Every pending delta, removed (at shutdown).
  std::vector<PendingSettlement> take_all();
  std::size_t size() const { return count_.load(std::memory_order_acquire); }
  /// How often the map's lock was taken (for tests: take() with nothing pending never takes it).
  std::uint64_t locks_taken() const { return locks_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    double delta = 0;
    Nanos since{0};
  };
  static std::string map_key(const std::string& rule, const std::string& key);
  static PendingSettlement unpack(const std::string& map_key, const Entry& e);

  // The lock, counted (locks_taken()).
  std::unique_lock<std::mutex> lock();
  // Keeps count_ equal to pending_.size(); called under the lock after every change.
  void recount() { count_.store(pending_.size(), std::memory_order_release); }

  std::size_t max_keys_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> pending_;  // rule '\n' key -> delta
  std::atomic<std::size_t> count_{0};               // pending_.size()
  std::atomic<std::uint64_t> locks_{0};
};

}  // namespace limitscope::gateway
