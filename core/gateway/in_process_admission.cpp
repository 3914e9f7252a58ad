#include "core/gateway/in_process_admission.h"

#include <cmath>

namespace limitscope::gateway {
namespace {

constexpr std::size_t kStripes = 64;
constexpr std::uint32_t kSweepEvery = 256;  // decisions per stripe between sweeps

bool same_params(const LimitParams& a, const LimitParams& b) {
  return a.capacity == b.capacity && a.refill.per_second() == b.refill.per_second();
}

}  // namespace

Expected<std::unique_ptr<InProcessAdmission>> InProcessAdmission::create(
    Policy policy, KeyedLimiterOptions options) {
  auto limiter = KeyedLimiter::create(std::move(policy), options);
  if (!limiter) return make_error(limiter.error());
  return std::unique_ptr<InProcessAdmission>(
      new InProcessAdmission(std::move(*limiter), options.max_keys));
}

InProcessAdmission::InProcessAdmission(std::unique_ptr<KeyedLimiter> limiter,
                                       std::size_t max_token_states)
    : limiter_(std::move(limiter)), stripes_(kStripes), max_token_states_(max_token_states) {}

InProcessAdmission::~InProcessAdmission() = default;

InProcessAdmission::TokenState* InProcessAdmission::token_state(Stripe& s, std::uint64_t hash,
                                                                const LimitParams& params,
                                                                Nanos now, bool create) {
  auto it = s.tokens.find(hash);
  if (it == s.tokens.end()) {
    if (!create) return nullptr;
    it = s.tokens.emplace(hash, TokenState{TokenBucket::fresh(params, now), params}).first;
    token_states_.fetch_add(1, std::memory_order_relaxed);
    return &it->second;
  }
  if (!same_params(it->second.params, params)) {
    // A reloaded policy changed the tier's token limit (or moved the key to another tier).
    TokenBucket::reconfigure(it->second.params, params, it->second.bucket, now);
    it->second.params = params;
  }
  return &it->second;
}

std::size_t InProcessAdmission::sweep(Stripe& s, Nanos now) {
  std::size_t dropped = 0;
  for (auto it = s.tokens.begin(); it != s.tokens.end();) {
    if (TokenBucket::idle(it->second.params, it->second.bucket, now)) {
      it = s.tokens.erase(it);
      ++dropped;
    } else {
      ++it;
    }
  }
  token_states_.fetch_sub(dropped, std::memory_order_relaxed);
  return dropped;
}

std::size_t InProcessAdmission::sweep_idle(Nanos now) {
  std::size_t dropped = 0;
  for (Stripe& s : stripes_) {
    std::lock_guard lock(s.mu);
    dropped += sweep(s, now);
  }
  limiter_->sweep(now);
  return dropped;
}

AdmissionResult InProcessAdmission::admit(const AdmissionRequest& request) {
  const std::uint64_t hash = KeyedLimiter::hash_key(request.api_key, request.model);
  Stripe& s = stripe_for(hash);
  std::lock_guard lock(s.mu);
  AdmissionResult out;
  // out.policy stays empty: the keyed limiter keeps every policy version (and so the tier
  // and model pointers) alive for its lifetime, and taking the shared policy would cost a
  // global lock per request.
  const KeyedDecision peek = limiter_->peek(request.api_key, request.model, request.now);
  out.tier = peek.tier;
  out.model = peek.model;
  out.cost = peek.cost;
  out.requests = peek.decision;
  switch (peek.decision.reason) {
    case DenyReason::unknown_key:
    case DenyReason::unknown_model:
    case DenyReason::invalid_cost:
      out.denied_by = DeniedBy::requests;
      return out;
    default:
      break;
  }
  const LimitParams* token_params =
      out.tier != nullptr && out.tier->llm_tokens ? &*out.tier->llm_tokens : nullptr;
  const auto tokens = static_cast<double>(request.llm_tokens);
  TokenState* state = nullptr;
  if (token_params != nullptr) {
    state = token_state(s, hash, *token_params, request.now, /*create=*/false);
    const TokenBucket::State probe =
        state ? state->bucket : TokenBucket::fresh(*token_params, request.now);
    out.llm_tokens = TokenBucket::peek(*token_params, probe, request.now, tokens);
  }
  const bool tokens_ok = !out.llm_tokens || out.llm_tokens->allowed;
  if (!peek.decision.allowed || !tokens_ok) {
    out.denied_by = !peek.decision.allowed ? DeniedBy::requests : DeniedBy::llm_tokens;
    // A request that can never fit its token limit is refused as such, whatever the other rule.
    if (out.llm_tokens && out.llm_tokens->reason == DenyReason::cost_above_capacity) {
      out.denied_by = DeniedBy::llm_tokens;
    }
    return out;
  }
  // A key listed in the policy is never refused by the cap (as in the keyed limiter).
  if (token_params != nullptr && state == nullptr && !peek.listed &&
      token_states_.load(std::memory_order_relaxed) >= max_token_states_) {
    sweep(s, request.now);
    if (token_states_.load(std::memory_order_relaxed) >= max_token_states_) {
      out.requests.allowed = false;
      out.requests.reason = DenyReason::key_limit;
      out.requests.retry_after.reset();
      out.denied_by = DeniedBy::requests;
      return out;
    }
  }
  const KeyedDecision decided = limiter_->decide(request.api_key, request.model, request.now);
  out.requests = decided.decision;
  if (!decided.decision.allowed) {
    // Only the keyed limiter's own key cap can refuse here (nothing else consumes this state).
    out.denied_by = DeniedBy::requests;
    return out;
  }
  if (token_params != nullptr) {
    state = token_state(s, hash, *token_params, request.now, /*create=*/true);
    out.llm_tokens = TokenBucket::decide(*token_params, state->bucket, request.now, tokens);
  }
  out.allowed = true;
  if (++s.decisions % kSweepEvery == 0) sweep(s, request.now);
  return out;
}

bool InProcessAdmission::settle(std::string_view api_key, std::string_view model,
                                double token_delta, Nanos now) {
  if (!std::isfinite(token_delta) || token_delta == 0) return true;
  const std::uint64_t hash = KeyedLimiter::hash_key(api_key, model);
  Stripe& s = stripe_for(hash);
  std::unique_lock lock(s.mu);
  TokenState* state = nullptr;
  if (auto it = s.tokens.find(hash); it != s.tokens.end()) {
    state = &it->second;
  } else {
    // Expired (full again) since the admission. A refund changes nothing; an extra charge
    // starts from a full bucket of the key's current tier (the policy lookup is rare here).
    if (token_delta < 0) return true;
    lock.unlock();
    const auto pol = limiter_->policy();
    const TierPolicy* tier = pol->tier_for_key(api_key);
    if (tier == nullptr || !tier->llm_tokens) return true;
    lock.lock();
    state = token_state(s, hash, *tier->llm_tokens, now, /*create=*/true);
  }
  // Usage above the estimate becomes a debt (bounded by TokenBucket::max_debt) that the key's
  // next requests wait out: clamping at empty would forgive it.
  TokenBucket::settle(state->params, state->bucket, now, token_delta);
  return true;
}

Status InProcessAdmission::set_policy(Policy policy, Nanos now) {
  // Token states follow the new limits lazily (token_state reconfigures on next use).
  return limiter_->set_policy(std::move(policy), now);
}

double InProcessAdmission::tokens_available(std::string_view api_key, std::string_view model,
                                            const LimitParams& params, Nanos now) {
  const std::uint64_t hash = KeyedLimiter::hash_key(api_key, model);
  Stripe& s = stripe_for(hash);
  std::lock_guard lock(s.mu);
  auto it = s.tokens.find(hash);
  if (it == s.tokens.end()) return params.capacity;
  return TokenBucket::available(it->second.params, it->second.bucket, now);
}

std::size_t InProcessAdmission::token_states() const {
  return token_states_.load(std::memory_order_relaxed);
}

}  // namespace limitscope::gateway
