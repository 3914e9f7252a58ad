#pragma once
// The gateway's limiter behind one small interface, so the in-process keyed limiter and a
// Redis backend are interchangeable. A request is admitted by a composite of two rules of the
// key's tier: `requests` (cost = the model's weight, per (key, model)) and, when the tier has
// one, `llm_tokens` (cost = the request's estimated tokens). Both admit or neither consumes.
// After the upstream answered, settle() corrects the token rule by the difference between the
// estimate and the usage the upstream reported.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/expected.h"
#include "core/limiter/decision.h"
#include "core/limiter/policy.h"

namespace limitscope::gateway {

struct AdmissionRequest {
  std::string_view api_key;  // authenticated key; its tier comes from the policy only
  std::string_view model;
  std::int64_t llm_tokens = 0;  // the estimate taken from the token rule (> 0)
  Nanos now{0};                 // limiter time
};

/// Which rule had the last word on a refused request.
enum class DeniedBy { none, requests, llm_tokens };

/// Which rules an AdmissionResult describes (and the rate-limit headers report).
enum class ReportedRules {
  both,             // requests, and llm_tokens when the tier has it (in-process)
  requests_only,    // a shared composite reported one limit (the refusing one): requests
  llm_tokens_only,  // ... the llm_tokens rule (in AdmissionResult::llm_tokens)
  none,             // nothing known of the limits (a degraded decision)
};

struct AdmissionResult {
  bool allowed = false;
  DeniedBy denied_by = DeniedBy::none;
  /// Refusals before any limit was consulted use Decision::reason: unknown_key,
  /// unknown_model, key_limit, invalid_cost; cost_above_capacity = can never be admitted.
  Decision requests;
  /// The token rule's decision; nullopt when the tier limits no tokens (or a refusal came first).
  std::optional<Decision> llm_tokens;
  /// The policy tier and model point into, kept alive by the result; empty when the backend
  /// keeps every policy it used alive for its own lifetime (the in-process backend).
  std::shared_ptr<const Policy> policy;
  const TierPolicy* tier = nullptr;    // nullptr for an unknown key without default tier
  const ModelPolicy* model = nullptr;  // nullptr for a model the policy lacks
  double cost = 0;                     // cost units asked of the requests rule
  ReportedRules reported = ReportedRules::both;
  /// The backend could not decide and its failure policy did (fail-open admits, fail-closed
  /// refuses with DenyReason::backend_unavailable); the answer says so (X-Circuit-Open).
  bool degraded = false;
  /// Why the backend failed, for logs (never shown to clients).
  std::string backend_error;
  /// What the rule's shadow config decided for the same request (Redis backend, issue 19;
  /// never enforced), and the rule's name; nullopt when the rule has no shadow.
  std::optional<bool> shadow_allowed;
  std::string rule;
};

/// Where a backend that keeps no policy versions of its own starts a decision: the result
/// holds `policy`, the request's tier (nullptr: an unknown key without a default tier) and its
/// model (nullptr: a model the policy lacks), and nothing decided yet.
AdmissionResult resolve_under(std::shared_ptr<const Policy> policy,
                              const AdmissionRequest& request);

class AdmissionBackend {
 public:
  virtual ~AdmissionBackend() = default;
  /// Decides one request; consumes from both rules only when both admit.
  virtual AdmissionResult admit(const AdmissionRequest& request) = 0;
  /// Corrects the token rule of (key, model) after the call.
  /// @param token_delta actual minus estimated tokens: > 0 charges extra (the bucket may go
  ///        below empty, a debt of at most TokenBucket::max_debt), < 0 refunds (never above
  ///        capacity)
  /// @return false when the backend could not settle (its store failed): the estimate stands
  virtual bool settle(std::string_view api_key, std::string_view model, double token_delta,
                      Nanos now) = 0;
  /// Replaces the policy live; in-flight and later requests are never dropped.
  /// @return ok, or an error (and no change) when the backend cannot use the policy
  virtual Status set_policy(Policy policy, Nanos now) = 0;
  /// The policy in force.
  virtual std::shared_ptr<const Policy> policy() const = 0;
  /// "in-process", "redis": the `backend` label and the /readyz text.
  virtual std::string_view name() const = 0;
  /// Why the backend cannot be trusted to decide now, for /readyz: a misconfiguration such as
  /// its store refusing the gateway's credentials or permissions; ok when ready. May ask
  /// the store again (a shared backend re-probes a refused rule, at most once a second), so a
  /// fixed configuration is seen without traffic.
  virtual Status not_ready() { return {}; }
  /// The worst circuit breaker state (metric_names.h kCircuitClosed/HalfOpen/Open) of a
  /// shared backend; nullopt for one that has none.
  virtual std::optional<double> circuit_state() const { return std::nullopt; }
};

}  // namespace limitscope::gateway
