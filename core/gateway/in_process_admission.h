#pragma once
// AdmissionBackend on the in-process keyed limiter (core/limiter/keyed_limiter.h) for the
// requests rule, plus a table of token buckets per (key, model) for the llm_tokens rule.
//
// Atomicity of the composite: every decision and settlement of one (key, model) runs under
// the lock of its stripe (chosen by the same 64-bit hash the keyed limiter uses); the keyed
// limiter is peeked, the token bucket peeked, and both consume only when both allowed. Only
// this class touches its keyed limiter, so nothing can consume between the peeks and the
// decisions. Lock order: stripe, then the keyed limiter's shard (never the reverse).
//
// Memory: a token state is dropped when its bucket is full again (indistinguishable from a
// fresh one); each stripe sweeps its table every 256 decisions. The number of token states is
// capped by the keyed limiter's max_keys too: past it a new (key, model) is refused with
// DenyReason::key_limit.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/gateway/admission.h"
#include "core/limiter/keyed_limiter.h"
#include "core/limiter/token_bucket.h"

namespace limitscope::gateway {

class InProcessAdmission final : public AdmissionBackend {
 public:
  /// @return the backend, or an error naming the policy when it has more than
  ///         KeyedLimiter::kMaxTiers tiers
  static Expected<std::unique_ptr<InProcessAdmission>> create(Policy policy,
                                                              KeyedLimiterOptions options = {});
  ~InProcessAdmission() override;

  AdmissionResult admit(const AdmissionRequest& request) override;
  bool settle(std::string_view api_key, std::string_view model, double token_delta,
              Nanos now) override;
  Status set_policy(Policy policy, Nanos now) override;
  std::shared_ptr<const Policy> policy() const override { return limiter_->policy(); }
  std::string_view name() const override { return "in-process"; }

  /// Tokens that could be admitted now for (key, model) under `params` (capacity when the
  /// state expired or never existed); for tests and the dashboard.
  double tokens_available(std::string_view api_key, std::string_view model,
                          const LimitParams& params, Nanos now);
  /// Token states held now.
  std::size_t token_states() const;
  /// Drops every idle state of both rules now. @return token states dropped
  std::size_t sweep_idle(Nanos now);

 private:
  struct TokenState {
    TokenBucket::State bucket;
    LimitParams params;  // the parameters `bucket` follows (carried over on a policy change)
  };
  struct Stripe {
    std::mutex mu;
    std::unordered_map<std::uint64_t, TokenState> tokens;
    std::uint32_t decisions = 0;
  };

  Stripe& stripe_for(std::uint64_t hash) { return stripes_[hash % stripes_.size()]; }
  // The state for `hash` brought to `params` (fresh when absent); nullptr when absent and
  // `create` is false.
  TokenState* token_state(Stripe& s, std::uint64_t hash, const LimitParams& params, Nanos now,
                          bool create);
  std::size_t sweep(Stripe& s, Nanos now);

  InProcessAdmission(std::unique_ptr<KeyedLimiter> limiter, std::size_t max_token_states);

  std::unique_ptr<KeyedLimiter> limiter_;
  std::vector<Stripe> stripes_;
  std::size_t max_token_states_;
  std::atomic<std::size_t> token_states_{0};
};

}  // namespace limitscope::gateway
