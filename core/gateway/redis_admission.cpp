#include "core/gateway/redis_admission.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/common/sha256.h"
#include "core/metrics/metric_names.h"
#include "core/redis/rule_config.h"

namespace limitscope::gateway {
namespace {

redis::RuleConfig rule_config_of(const TierPolicy& tier) {
  redis::RuleConfig c;
  c.limits.push_back(redis::NamedLimit{"requests", tier.requests});
  if (tier.llm_tokens) c.limits.push_back(redis::NamedLimit{"llm_tokens", *tier.llm_tokens});
  return c;
}

bool same_limits(const redis::RuleConfig& a, const redis::RuleConfig& b) {
  if (a.limits.size() != b.limits.size()) return false;
  for (std::size_t i = 0; i < a.limits.size(); ++i) {
    const LimitParams& x = a.limits[i].params;
    const LimitParams& y = b.limits[i].params;
    if (a.limits[i].name != b.limits[i].name || x.algorithm != y.algorithm) return false;
    if (x.describe() != y.describe()) return false;
  }
  return true;
}

}  // namespace

RedisAdmission::RedisAdmission(Policy policy, redis::Endpoint& endpoint,
                               RedisAdmissionOptions options, Clock& clock, redis::LogSink log)
    : own_backend_(endpoint.decisions(redis::RedisLimiter(options.schema))),
      backend_(*own_backend_),
      options_(std::move(options)),
      clock_(clock),
      log_(std::move(log)),
      policy_(std::make_shared<const Policy>(std::move(policy))) {
  start_coalescer();
  start_flusher();
}

RedisAdmission::RedisAdmission(Policy policy, redis::DecisionBackend& backend,
                               RedisAdmissionOptions options, Clock& clock, redis::LogSink log)
    : backend_(backend),
      options_(std::move(options)),
      clock_(clock),
      log_(std::move(log)),
      policy_(std::make_shared<const Policy>(std::move(policy))) {
  options_.schema = backend_.limiter().schema();
  start_coalescer();
  start_flusher();
}

void RedisAdmission::start_coalescer() {
  CoalescerOptions c;
  c.window = std::max(std::chrono::microseconds{0}, options_.batch_window);
  c.max_batch = options_.max_batch;
  c.max_in_flight = options_.max_batches_in_flight;
  coalescer_ = std::make_unique<DecisionCoalescer>(
      c, [this](const std::string& rule, const std::vector<const redis::DecideRequest*>& requests) {
        return decide_guarded(rule, requests);
      });
}

RedisAdmission::~RedisAdmission() {
  stop_flusher();
  flush_settlements();  // a gateway stopping sends what no decision carried yet
}

std::string RedisAdmission::rule_name(std::string_view tier) {
  return "gw-" + std::string(tier);
}

namespace {
// What a failed call wrote: an answer of the server (an error reply, LSLATE, an ACL refusal)
// or input refused before sending wrote nothing; a round trip broken after sending may have.
CallFate fate_of(const redis::RedisError& e) {
  return e.breaks_connection() ? CallFate::unknown : CallFate::nothing_written;
}
// Requests per decide.lua call of a batch (the measured best, docs/redis-schema.md).
constexpr std::size_t kPerCall = 16;
// The limited key from the key's SHA-256 (hex), which admit() also samples the decision log by.
std::string limited_key_of(std::string_view api_key_sha256_hex, std::string_view model) {
  return std::string(api_key_sha256_hex.substr(0, 32)) + ":" + std::string(model);
}
}  // namespace

std::string RedisAdmission::limited_key(std::string_view api_key, std::string_view model) {
  return limited_key_of(sha256_hex(api_key), model);
}

bool decision_logged(std::string_view api_key_sha256_hex, double fraction) {
  if (!(fraction > 0)) return false;
  if (fraction >= 1) return true;
  if (api_key_sha256_hex.size() < 8) return false;
  std::uint32_t head = 0;
  const char* begin = api_key_sha256_hex.data();
  const char* end = begin + 8;
  const auto [ptr, ec] = std::from_chars(begin, end, head, 16);
  if (ec != std::errc{} || ptr != end) return false;
  return static_cast<double>(head) < fraction * 4294967296.0;
}

std::shared_ptr<const Policy> RedisAdmission::policy() const {
  std::lock_guard lock(mu_);
  return policy_;
}

redis::FailureGuard& RedisAdmission::guard(const std::string& rule) {
  std::lock_guard lock(mu_);
  auto& g = guards_[rule];
  if (!g) g = std::make_unique<redis::FailureGuard>(rule, options_.failure, clock_, log_);
  return *g;
}

std::map<std::string, redis::GuardStats> RedisAdmission::stats() const {
  std::lock_guard lock(mu_);
  std::map<std::string, redis::GuardStats> out;
  for (const auto& [rule, g] : guards_) out.emplace(rule, g->stats());
  return out;
}

std::optional<double> RedisAdmission::circuit_state() const {
  double worst = metrics::names::kCircuitClosed;
  for (const auto& [rule, s] : stats()) {
    if (s.state == redis::BreakerState::open) worst = std::max(worst, metrics::names::kCircuitOpen);
    if (s.state == redis::BreakerState::half_open)
      worst = std::max(worst, metrics::names::kCircuitHalfOpen);
  }
  return worst;
}

Status RedisAdmission::sync_rules() {
  const auto pol = policy();
  for (const TierPolicy& tier : pol->tiers) {
    const std::string rule = rule_name(tier.name);
    const redis::RuleConfig wanted = rule_config_of(tier);
    redis::ChangeInfo change;
    change.by = "limitscope-gateway";
    change.reason = "policy " + pol->source;
    auto current = backend_.get_config(rule);
    if (!current) {
      // Unreachable: name the server (or cluster), as the pool's message may not.
      if (current.error().breaks_connection())
        return make_error("redis " + backend_.peer() + ": " + current.error().message);
      if (current.error().kind != redis::ErrorKind::reply)
        return make_error("redis rule " + rule + ": " + current.error().message);
      // The stored config does not parse (a field written by hand, a garbage version). The
      // rule is the policy's: repair it from the policy, compare-and-set on the version field
      // as read, audited. Only this rule is concerned; the others are synced all the same.
      change.reason = "repair of an invalid config (" + current.error().message + ") from policy " +
                      pol->source;
      auto repaired = [&]() -> redis::Result<redis::RuleConfig> {
        auto raw = backend_.stored_version_field(rule);
        if (!raw) return raw.error();
        change.expect_raw_version = *raw;
        return backend_.set_config(rule, wanted, change);
      }();
      if (log_) {
        log_("redis rule " + rule + ": the stored config is invalid: " + current.error().message +
             (repaired
                  ? "; repaired from the policy as version " + std::to_string(repaired->version)
                  : "; the repair failed: " + repaired.error().message));
      }
      if (!repaired &&
          (repaired.error().breaks_connection() || repaired.error().kind == redis::ErrorKind::auth))
        return make_error("redis rule " + rule + ": " + repaired.error().message);
      continue;  // an unrepaired rule fails its own decisions alone (503 limiter_error)
    }
    if (*current && same_limits(**current, wanted)) continue;
    // Compare-and-set on the version read: a change made meanwhile (an operator's config
    // set, another gateway) is not overwritten blindly; the next resync sees it.
    change.expect_version = *current ? (*current)->version : 0;
    auto set = backend_.set_config(rule, wanted, change);
    if (!set && redis::is_version_conflict(set.error())) continue;
    if (!set) return make_error("redis rule " + rule + ": " + set.error().message);
  }
  return {};
}

redis::GuardedDecision RedisAdmission::probe(const std::string& rule) {
  redis::DecideRequest req;
  req.key = std::string(kProbeKey);
  req.costs = {1e-9};  // every limit; consumes nothing a client would notice
  return guard(rule).decide_one([&]() -> redis::Result<Decision> {
    auto d = backend_.decide(rule, req, {});
    if (!d) return d.error();
    // The probe logs nothing; a logged decision also XADDs to the rule's stream, which an ACL
    // may deny alone (then every logged key is refused: 503 limiter_misconfigured).
    if (options_.log_decisions > 0) {
      auto w = backend_.check_decision_log_write(rule);
      if (!w.ok() && w.error().kind == redis::ErrorKind::auth) return w.error();
    }
    return d->decision;
  });
}

namespace {
constexpr std::int64_t kClockReadInterval_ns = 10'000'000'000;  // NTP slews 0.5 ms/s at most
std::int64_t wall_us(const Clock& clock) {
  return clock.wall().count() / 1000;
}
}  // namespace

void RedisAdmission::learn_offset(const std::string& rule, std::int64_t server_us) {
  const std::int64_t now_ns = clock_.now().count();
  std::int64_t offset = server_us - wall_us(clock_);
  std::lock_guard lock(mu_);
  ServerClock& c = server_clocks_[rule];
  if (c.known) {
    // The last bound, aged by the most two NTP-disciplined clocks drift apart meanwhile (each
    // slews at most 500 ppm: 1 µs per ms together), is still a lower bound: keep the tighter.
    const std::int64_t aged = c.offset_us - (now_ns - c.learned_at_ns) / 1'000'000;
    offset = std::max(offset, aged);
  }
  c.offset_us = offset;
  c.known = true;
  c.learned_at_ns = now_ns;
}

void RedisAdmission::read_server_clock(const std::string& rule) {
  if (!options_.decision_deadline) return;
  {
    // Claimed before the round trip, so one thread reads while the others use the last offset.
    std::lock_guard lock(mu_);
    server_clocks_[rule].read_at_ns = clock_.now().count();
  }
  auto t = backend_.server_time_us(rule);
  if (t) learn_offset(rule, *t);
}

std::optional<std::int64_t> RedisAdmission::deadline_us(const std::string& rule) {
  if (!options_.decision_deadline) return std::nullopt;
  bool due = false;
  {
    std::lock_guard lock(mu_);
    const ServerClock& c = server_clocks_[rule];
    due = !c.known || clock_.now().count() - c.read_at_ns >= kClockReadInterval_ns;
  }
  if (due) read_server_clock(rule);
  std::lock_guard lock(mu_);
  const ServerClock& c = server_clocks_[rule];
  if (!c.known) return std::nullopt;
  return wall_us(clock_) + c.offset_us + options_.decision_deadline->count() / 1000;
}

Status RedisAdmission::check_access() {
  const auto pol = policy();
  for (const TierPolicy& tier : pol->tiers) {
    const std::string rule = rule_name(tier.name);
    read_server_clock(rule);
    // First the decision log, for a message that names the stream (probe() checks it too).
    if (options_.log_decisions > 0) {
      auto w = backend_.check_decision_log_write(rule);
      if (!w.ok() && w.error().kind != redis::ErrorKind::usage) {
        const std::string stream = options_.schema.decisions_key(rule);
        if (w.error().kind == redis::ErrorKind::auth) {
          return make_error("redis rule " + rule +
                            ": the user may not XADD to the decision stream " + stream +
                            " (each logged decision is written there): " + w.error().message);
        }
        return make_error("redis rule " + rule + ": checking XADD on the decision stream " +
                          stream + " failed: " + w.error().message);
      }
    }
    const redis::GuardedDecision g = probe(rule);
    // A config left invalid (its repair failed, logged by sync_rules) fails this tier alone.
    if (g.decision.reason == DenyReason::backend_error &&
        g.error.find("LSCONFIG") != std::string::npos)
      continue;
    if (g.decision.reason == DenyReason::backend_forbidden ||
        g.decision.reason == DenyReason::backend_error || g.degraded) {
      return make_error("redis rule " + rule + ": a probe decision failed: " + g.error);
    }
  }
  return {};
}

Status RedisAdmission::not_ready() {
  std::vector<std::string> refused;
  {
    std::lock_guard lock(mu_);
    for (const auto& [rule, g] : guards_) {
      if (!g->stats().forbidden.empty()) refused.push_back(rule);
    }
  }
  if (refused.empty()) return {};
  // Re-probe at most once a second (readiness checks may come often, from many places).
  const std::int64_t now = clock_.now().count();
  std::int64_t last = last_probe_ns_.load(std::memory_order_relaxed);
  const bool due = last == kNeverResynced || now - last >= 1'000'000'000;
  if (due && last_probe_ns_.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
    for (const std::string& rule : refused) probe(rule);
  }
  std::string why;
  for (const std::string& rule : refused) {
    const std::string forbidden = guard(rule).stats().forbidden;
    if (forbidden.empty()) continue;
    if (!why.empty()) why += "; ";
    why += "redis rule " + rule + " refused by the server's ACL or authentication: " + forbidden;
  }
  if (why.empty()) return {};
  return make_error(why);
}

bool RedisAdmission::resync_due(Nanos now) {
  // At most one resync per second, whatever the number of threads that notice.
  std::int64_t last = last_resync_ns_.load(std::memory_order_relaxed);
  if (last != kNeverResynced && now.count() - last < 1'000'000'000) return false;
  return last_resync_ns_.compare_exchange_strong(last, now.count(), std::memory_order_relaxed);
}

Status RedisAdmission::check_policy(const Policy& policy) {
  for (const TierPolicy& t : policy.tiers) {
    if (Status why = redis::KeySchema::check_rule(rule_name(t.name)); !why.ok()) {
      return make_error(policy.source + ": tier \"" + t.name +
                        "\" cannot name a Redis rule: " + why.error());
    }
  }
  return {};
}

Status RedisAdmission::set_policy(Policy policy, Nanos) {
  if (Status valid = check_policy(policy); !valid.ok()) return valid;
  auto next = std::make_shared<const Policy>(std::move(policy));
  std::shared_ptr<const Policy> previous;
  {
    std::lock_guard lock(mu_);
    previous = policy_;
    retired_.push_back(previous);
    policy_ = next;
  }
  if (Status synced = sync_rules(); !synced.ok()) {
    std::lock_guard lock(mu_);
    policy_ = previous;
    return synced;
  }
  return {};
}

redis::Result<std::vector<redis::Result<redis::RedisDecision>>> RedisAdmission::send(
    const std::string& rule, const std::vector<const redis::DecideRequest*>& requests,
    const redis::DecideOptions& options) {
  if (options_.on_round_trip) options_.on_round_trip(requests.size());
  if (requests.size() == 1) {
    // Alone: the single call, as without coalescing. A late call is the request's own
    // outcome (decided once more below); any other error fails the round trip.
    auto d = backend_.decide(rule, *requests.front(), options);
    if (!d && !redis::late_server_time_us(d.error())) return d.error();
    std::vector<redis::Result<redis::RedisDecision>> one;
    one.push_back(std::move(d));
    return one;
  }
  std::vector<redis::DecideRequest> batch;
  batch.reserve(requests.size());
  for (const redis::DecideRequest* r : requests) batch.push_back(*r);
  return backend_.decide_batch(rule, batch, kPerCall, options);
}

std::vector<RuleOutcome> RedisAdmission::decide_guarded(
    const std::string& rule, const std::vector<const redis::DecideRequest*>& requests) {
  const std::size_t n = requests.size();
  redis::FailureGuard& g = guard(rule);
  std::vector<redis::Result<redis::RedisDecision>> results;
  bool answered = false;  // the round trip gave per-request results
  // Not sent unless the guard calls (an open circuit decides without Redis).
  std::vector<CallFate> fates(n, CallFate::nothing_written);
  auto guarded = g.decide(n, [&]() -> redis::Result<std::vector<Decision>> {
    redis::DecideOptions o;
    o.deadline_us = deadline_us(rule);
    auto sent = send(rule, requests, o);
    if (!sent) {
      std::fill(fates.begin(), fates.end(), fate_of(sent.error()));
      return sent.error();
    }
    if (sent->size() != n)
      return redis::make_redis_error(redis::ErrorKind::protocol,
                                     "a batch answered " + std::to_string(sent->size()) +
                                         " decisions for " + std::to_string(n) + " requests");
    results = std::move(sent).value();
    for (std::size_t i = 0; i < n; ++i)
      fates[i] = results[i] ? CallFate::answered : fate_of(results[i].error());
    // Refused as late although the answer came in time: the offset to the server's clock was
    // too large (or the call slow). Those calls decided nothing: learn and decide them once more.
    std::vector<std::size_t> late;
    std::int64_t latest_us = INT64_MIN;
    for (std::size_t i = 0; i < n; ++i) {
      if (results[i]) continue;
      if (auto server_us = redis::late_server_time_us(results[i].error())) {
        late.push_back(i);
        latest_us = std::max(latest_us, *server_us);
      }
    }
    if (!late.empty()) {
      learn_offset(rule, latest_us);
      std::vector<const redis::DecideRequest*> again;
      for (std::size_t i : late) again.push_back(requests[i]);
      o.deadline_us = deadline_us(rule);
      auto retried = send(rule, again, o);
      std::size_t late_twice = 0;
      for (std::size_t k = 0; k < late.size(); ++k) {
        redis::Result<redis::RedisDecision>& r = results[late[k]];
        r = retried ? std::move((*retried)[k])
                    : redis::Result<redis::RedisDecision>(retried.error());
        fates[late[k]] = r ? CallFate::answered : fate_of(r.error());
        // Late again, with the offset just read: Redis runs calls later than the gateway
        // waits for them (a loaded server). That is a timeout: the failure mode decides.
        if (!r && redis::late_server_time_us(r.error())) {
          ++late_twice;
          r = redis::make_redis_error(
              redis::ErrorKind::timeout,
              "redis rule " + rule +
                  ": the decision ran past its deadline twice: " + r.error().message);
        }
      }
      // Every request timed out (or the retry failed whole): the round trip failed.
      if (late_twice == n) return results.front().error();
      if (late.size() == n && !retried) return retried.error();
    }
    std::vector<Decision> ds(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (results[i]) ds[i] = results[i]->decision;
    }
    answered = true;
    return ds;
  });
  std::vector<RuleOutcome> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].guarded = std::move(guarded[i]);
    out[i].fate = fates[i];
    if (!answered || out[i].guarded.degraded)
      continue;  // failed whole: the guard decided all alike
    if (!results[i]) {
      // This request's call failed alone (an error reply, an ACL refusal, a retry that timed
      // out): the guard classifies it as it would a single call's failure.
      const redis::RedisError e = results[i].error();
      out[i].guarded = g.decide_one([&]() -> redis::Result<Decision> { return e; });
      continue;
    }
    out[i].binding = results[i]->binding_limit;
    out[i].shadow = results[i]->shadow_allowed;
  }
  return out;
}

AdmissionResult RedisAdmission::admit(const AdmissionRequest& request) {
  AdmissionResult out = resolve_under(policy(), request);
  out.denied_by = DeniedBy::requests;
  if (out.tier == nullptr) {
    out.requests.reason = DenyReason::unknown_key;
    return out;
  }
  if (out.model == nullptr) {
    out.requests.reason = DenyReason::unknown_model;
    out.requests.limit = out.tier->requests.max_cost();
    return out;
  }
  out.cost = out.model->cost;
  redis::DecideRequest req;
  const std::string key_hash = sha256_hex(request.api_key);
  req.key = limited_key_of(key_hash, request.model);
  req.costs = {out.cost};
  if (decision_logged(key_hash, options_.log_decisions)) {
    req.log = true;
    req.model = std::string(request.model);
    if (request.llm_tokens > 0) {
      req.llm_tokens =
          static_cast<std::uint32_t>(std::min<std::int64_t>(request.llm_tokens, UINT32_MAX - 1));
    }
  }
  if (out.tier->llm_tokens) req.costs.push_back(static_cast<double>(request.llm_tokens));
  const std::string rule = rule_name(out.tier->name);
  carry_settlement(rule, *out.tier, req);
  RuleOutcome decided = coalescer_->decide(rule, req);
  if (decided.guarded.decision.reason == DenyReason::backend_error &&
      decided.guarded.error.find("LSCONFIG") != std::string::npos && resync_due(request.now)) {
    // The rule's config is gone (a Redis restarted without persistence, a flush): write the
    // policy's rules again and decide once more.
    if (sync_rules().ok()) decided = coalescer_->decide(rule, req);
  }
  if (req.settle_delta != 0) settle_carried(rule, req, decided, request.now);
  const redis::GuardedDecision& g = decided.guarded;
  const std::string& binding = decided.binding;
  out.degraded = g.degraded;
  out.backend_error = g.error;
  out.allowed = g.decision.allowed;
  out.rule = rule;
  if (!g.degraded) out.shadow_allowed = decided.shadow;
  // Only the composite's reported limit is known (the one that refused, on a refusal); the
  // headers and the 429's "limit" describe it alone.
  if (binding == "llm_tokens") {
    out.reported = ReportedRules::llm_tokens_only;
    out.llm_tokens = g.decision;
    out.requests.allowed = g.decision.allowed;
  } else {
    out.reported = ReportedRules::requests_only;
    out.requests = g.decision;
  }
  if (g.degraded) out.reported = ReportedRules::none;  // nothing is known of the limits
  if (!out.allowed) {
    out.denied_by = binding == "llm_tokens" ? DeniedBy::llm_tokens : DeniedBy::requests;
    out.requests.reason = g.decision.reason;
    if (binding == "llm_tokens") out.llm_tokens->reason = g.decision.reason;
  } else {
    out.denied_by = DeniedBy::none;
  }
  return out;
}

}  // namespace limitscope::gateway
