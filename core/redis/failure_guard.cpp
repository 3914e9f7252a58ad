#include "core/redis/failure_guard.h"

namespace limitscope::redis {

std::string_view to_string(FailureMode mode) {
  return mode == FailureMode::fail_open ? "fail-open" : "fail-closed";
}

Expected<FailureMode> parse_failure_mode(std::string_view text) {
  if (text == "open" || text == "fail-open") return FailureMode::fail_open;
  if (text == "closed" || text == "fail-closed") return FailureMode::fail_closed;
  return make_error("failure mode '" + std::string(text) + "': expected fail-open or fail-closed");
}

FailureGuard::FailureGuard(std::string rule, FailurePolicy policy, const Clock& clock, LogSink log)
    : rule_(std::move(rule)),
      policy_(policy),
      clock_(clock),
      log_(std::move(log)),
      breaker_(policy.breaker) {}

GuardedDecision FailureGuard::fallback(const std::string& why) const {
  GuardedDecision g;
  g.degraded = true;
  g.error = why;
  if (policy_.mode == FailureMode::fail_open) {
    g.decision.allowed = true;
  } else {
    g.decision.allowed = false;
    g.decision.reason = DenyReason::backend_unavailable;
    // The earliest the breaker lets a probe through; a good Retry-After for the client.
    g.decision.retry_after = policy_.breaker.cooldown;
  }
  return g;
}

void FailureGuard::log_failure(const std::string& what, Nanos now) {
  std::string line;
  {
    std::lock_guard lock(mu_);
    if (logged_once_ && now - last_log_ < policy_.log_interval) {
      ++suppressed_total_;
      ++suppressed_since_log_;
      return;
    }
    line = "rule " + rule_ + ": " + what;
    if (suppressed_since_log_ > 0) {
      line +=
          " (" + std::to_string(suppressed_since_log_) + " more failures since the last report)";
    }
    logged_once_ = true;
    last_log_ = now;
    suppressed_since_log_ = 0;
    ++logged_total_;
  }
  if (log_) log_(line);
}

std::vector<GuardedDecision> FailureGuard::decide(
    std::size_t count, const std::function<Result<std::vector<Decision>>()>& attempt) {
  const Nanos now = clock_.now();
  if (!breaker_.allow(now)) {
    const std::string why = "circuit open: Redis failed " +
                            std::to_string(policy_.breaker.failure_threshold) +
                            " times in a row; " + std::string(to_string(policy_.mode));
    {
      std::lock_guard lock(mu_);
      degraded_total_ += count;
    }
    return std::vector<GuardedDecision>(count, fallback(why));
  }

  auto result = attempt();
  const Nanos after = clock_.now();
  if (result && result->size() == count) {
    breaker_.record_success(after);
    {
      std::lock_guard lock(mu_);
      forbidden_.clear();
    }
    std::vector<GuardedDecision> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i].decision = (*result)[i];
    return out;
  }

  if (result) {
    // A reply of the wrong shape is a protocol failure of our own scripts' contract.
    result = make_redis_error(
        ErrorKind::protocol,
        "expected " + std::to_string(count) + " decisions, got " + std::to_string(result->size()));
  }
  const RedisError& e = result.error();
  if (e.kind == ErrorKind::auth) {
    // Misconfiguration (credentials, ACL): never admitted, whatever the mode; the server is
    // up, so the breaker is left alone and the next request tries again.
    {
      std::lock_guard lock(mu_);
      forbidden_total_ += count;
      forbidden_ = e.message;
    }
    log_failure(
        "refused by the server's ACL or authentication (misconfiguration; refusing "
        "requests whatever the failure mode): " +
            e.message,
        after);
    GuardedDecision g;
    g.decision.allowed = false;
    g.decision.reason = DenyReason::backend_forbidden;
    g.error = e.message;
    return std::vector<GuardedDecision>(count, g);
  }
  if (e.kind == ErrorKind::reply || e.kind == ErrorKind::usage) {
    // The server is healthy; it refused this input. Refuse the request, never admit.
    breaker_.record_success(after);
    {
      std::lock_guard lock(mu_);
      backend_errors_total_ += count;
    }
    log_failure(e.message, after);
    GuardedDecision g;
    g.decision.allowed = false;
    g.decision.reason = DenyReason::backend_error;
    g.error = e.message;
    return std::vector<GuardedDecision>(count, g);
  }
  breaker_.record_failure(after);
  {
    std::lock_guard lock(mu_);
    degraded_total_ += count;
  }
  log_failure(std::string(to_string(e.kind)) + ": " + e.message + "; " +
                  std::string(to_string(policy_.mode)),
              after);
  return std::vector<GuardedDecision>(count, fallback(e.message));
}

GuardedDecision FailureGuard::decide_one(const std::function<Result<Decision>()>& attempt) {
  auto out = decide(1, [&]() -> Result<std::vector<Decision>> {
    auto r = attempt();
    if (!r) return r.error();
    return std::vector<Decision>{*r};
  });
  return out.front();
}

GuardStats FailureGuard::stats() const {
  GuardStats s;
  s.state = breaker_.state(clock_.now());
  s.breaker = breaker_.counters();
  std::lock_guard lock(mu_);
  s.degraded_total = degraded_total_;
  s.backend_errors_total = backend_errors_total_;
  s.forbidden_total = forbidden_total_;
  s.forbidden = forbidden_;
  s.logged_total = logged_total_;
  s.suppressed_total = suppressed_total_;
  return s;
}

}  // namespace limitscope::redis
