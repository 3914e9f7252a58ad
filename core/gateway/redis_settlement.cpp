// RedisAdmission's token settlement: corrections waiting in memory ride on their key's next
// decision, or are sent alone (redis_admission.h, "Settlement").
#include <algorithm>
#include <cmath>

#include "core/gateway/redis_admission.h"

namespace limitscope::gateway {

void RedisAdmission::start_flusher() {
  if (options_.settle_delay.count() <= 0) return;
  pending_ = std::make_unique<PendingSettlements>(options_.max_pending_settlements);
  const Nanos every = std::max<Nanos>(std::chrono::milliseconds(1), options_.settle_delay / 4);
  // Waits on the injected clock, so a test's ManualClock drives it instead of real time.
  flusher_ = std::thread([this, every] {
    while (clock_.wait_until(clock_.now() + every, flusher_stop_))
      flush_due_settlements(clock_.now());
  });
}

void RedisAdmission::stop_flusher() {
  flusher_stop_.cancel();
  if (flusher_.joinable()) flusher_.join();
}

std::size_t RedisAdmission::flush_due_settlements(Nanos now) {
  if (!pending_) return 0;
  const auto due =
      pending_->take_older_than(now - std::chrono::duration_cast<Nanos>(options_.settle_delay));
  for (const PendingSettlement& p : due) settle_alone(p.rule, p.key, p.delta, now, true);
  return due.size();
}

std::size_t RedisAdmission::flush_settlements() {
  if (!pending_) return 0;
  const auto all = pending_->take_all();
  const Nanos now = clock_.now();
  for (const PendingSettlement& p : all) settle_alone(p.rule, p.key, p.delta, now, true);
  return all.size();
}

void RedisAdmission::report_settle_failure(const std::string& rule, const std::string& why,
                                           Nanos now, bool report_lost) {
  settle_failures_.fetch_add(1, std::memory_order_relaxed);
  if (report_lost && options_.on_settlement) options_.on_settlement(SettleWay::lost);
  std::int64_t last = last_settle_log_ns_.load(std::memory_order_relaxed);
  const std::int64_t interval = options_.failure.log_interval.count();
  if (log_ && (last == kNeverLogged || now.count() - last >= interval) &&
      last_settle_log_ns_.compare_exchange_strong(last, now.count())) {
    log_("redis rule " + rule + ": settling tokens failed (the estimate stands): " + why);
  }
}

bool RedisAdmission::settle_alone(const std::string& rule, const std::string& key, double delta,
                                  Nanos now, bool report_lost) {
  // An open circuit means Redis is failing: a settle would only add a timeout per request.
  if (guard(rule).stats().state == redis::BreakerState::open) {
    report_settle_failure(rule, "the circuit is open", now, report_lost);
    return false;
  }
  auto done = backend_.settle(rule, redis::SettleRequest{key, "llm_tokens", delta}, {});
  if (!done) {
    report_settle_failure(rule, done.error().message, now, report_lost);
    return false;
  }
  settled_.fetch_add(1, std::memory_order_relaxed);
  if (options_.on_settlement) options_.on_settlement(SettleWay::alone);
  return true;
}

bool RedisAdmission::settle(std::string_view api_key, std::string_view model, double token_delta,
                            Nanos now) {
  if (!std::isfinite(token_delta) || token_delta == 0) return true;
  const auto pol = policy();
  const TierPolicy* tier = pol->tier_for_key(api_key);
  if (tier == nullptr || !tier->llm_tokens) return true;
  const std::string rule = rule_name(tier->name);
  const std::string key = limited_key(api_key, model);
  if (pending_ && pending_->add(rule, key, token_delta, now)) return true;
  return settle_alone(rule, key, token_delta, now, false);
}

void RedisAdmission::carry_settlement(const std::string& rule, const TierPolicy& tier,
                                      redis::DecideRequest& req) {
  // A tier without a token limit (its policy changed) carries nothing: the flusher sends what
  // waits, and Redis refuses it alone, counted, instead of failing this decision.
  if (!pending_ || !tier.llm_tokens) return;
  req.settle_delta = pending_->take(rule, req.key);
  if (req.settle_delta != 0) req.settle_limit = "llm_tokens";
}

void RedisAdmission::settle_carried(const std::string& rule, redis::DecideRequest& req,
                                    RuleOutcome& decided, Nanos now) {
  const double delta = req.settle_delta;
  switch (decided.fate) {
    case CallFate::answered:
      settled_.fetch_add(1, std::memory_order_relaxed);
      if (options_.on_settlement) options_.on_settlement(SettleWay::ride);
      return;
    case CallFate::unknown:
      // Applied or not, nobody knows: sending it again could charge it twice.
      report_settle_failure(rule, "the decision carrying it failed: " + decided.guarded.error, now,
                            true);
      return;
    case CallFate::nothing_written:
      break;
  }
  const DenyReason why = decided.guarded.decision.reason;
  if (!decided.guarded.degraded &&
      (why == DenyReason::backend_error || why == DenyReason::backend_forbidden)) {
    // Redis refused the call, perhaps for the settlement itself: it goes alone, and the request
    // is decided without it.
    settle_alone(rule, req.key, delta, now, true);
    req.settle_delta = 0;
    req.settle_limit.clear();
    decided = coalescer_->decide(rule, req);
    return;
  }
  // Not sent (an open circuit) or refused as late: it waits for the key's next decision.
  if (!pending_->add(rule, req.key, delta, now)) settle_alone(rule, req.key, delta, now, true);
}

}  // namespace limitscope::gateway
