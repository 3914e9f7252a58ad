#pragma once
// What a rule does when its Redis cannot decide: the failure policy (fail-open admits, marked
// degraded; fail-closed refuses with backend_unavailable), a circuit breaker so a dead or
// stalled server costs callers nothing while it is open, failures logged at most once per
// interval (with the count suppressed in between), and counters for metrics.
//
// An error *reply* (the server is up but the script refused: a key of the wrong type, an
// invalid config hash) is not an outage: it neither trips the breaker nor fails open. The
// decision is refused with backend_error whatever the mode, because admitting on bad data
// would silently admit everything.
//
// A refusal of our credentials or permissions (ErrorKind::auth: WRONGPASS, NOAUTH, NOPERM, an
// ACL refusal inside a script) is a misconfiguration, not an outage either: a read-only user
// would otherwise fail open for ever. It is refused with backend_forbidden whatever the mode,
// does not trip the breaker (every request keeps trying, so a fixed ACL is used at once), and
// the guard remembers it (GuardStats::forbidden) until a decision succeeds again.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/limiter/decision.h"
#include "core/redis/circuit_breaker.h"
#include "core/redis/redis_error.h"

namespace limitscope::redis {

enum class FailureMode { fail_open, fail_closed };
std::string_view to_string(FailureMode mode);
/// Accepts "open"/"fail-open" and "closed"/"fail-closed".
Expected<FailureMode> parse_failure_mode(std::string_view text);

struct FailurePolicy {
  FailureMode mode = FailureMode::fail_open;
  BreakerOptions breaker;
  Nanos log_interval = std::chrono::minutes(1);
};

struct GuardedDecision {
  Decision decision;
  bool degraded = false;  ///< the store did not decide; the failure policy did
  std::string error;      ///< why, when degraded or refused with backend_error
};

struct GuardStats {
  BreakerState state = BreakerState::closed;
  BreakerCounters breaker;
  std::uint64_t degraded_total = 0;        ///< decisions made by the failure policy
  std::uint64_t backend_errors_total = 0;  ///< error replies (refused with backend_error)
  std::uint64_t forbidden_total = 0;       ///< refused with backend_forbidden
  /// Why the last attempt was refused by the server's ACL or authentication; empty once a
  /// decision succeeded since (or none ever was refused).
  std::string forbidden;
  std::uint64_t logged_total = 0;
  std::uint64_t suppressed_total = 0;  ///< failures not logged (within the interval)
};

/// Receives one line per logged failure. Called with the guard's lock released.
using LogSink = std::function<void(const std::string&)>;

class FailureGuard {
 public:
  FailureGuard(std::string rule, FailurePolicy policy, const Clock& clock, LogSink log = {});

  /// Decides `count` requests with one attempt (a single decision or one batch round trip).
  /// @param attempt returns `count` decisions, or the error that prevented them
  std::vector<GuardedDecision> decide(
      std::size_t count, const std::function<Result<std::vector<Decision>>()>& attempt);

  /// One decision (count 1).
  GuardedDecision decide_one(const std::function<Result<Decision>()>& attempt);

  GuardStats stats() const;
  const FailurePolicy& policy() const { return policy_; }
  const std::string& rule() const { return rule_; }

 private:
  GuardedDecision fallback(const std::string& why) const;
  void log_failure(const std::string& what, Nanos now);

  std::string rule_;
  FailurePolicy policy_;
  const Clock& clock_;
  LogSink log_;
  CircuitBreaker breaker_;
  mutable std::mutex mu_;  // guards the counters and the log gate below
  std::uint64_t degraded_total_ = 0;
  std::uint64_t backend_errors_total_ = 0;
  std::uint64_t forbidden_total_ = 0;
  std::string forbidden_;
  std::uint64_t logged_total_ = 0;
  std::uint64_t suppressed_total_ = 0;
  std::uint64_t suppressed_since_log_ = 0;
  bool logged_once_ = false;
  Nanos last_log_{0};
};

}  // namespace limitscope::redis
