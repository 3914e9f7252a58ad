#pragma once
// The one answer every algorithm gives. Fields map 1:1 onto X-RateLimit-Limit/Remaining/Reset,
// Retry-After and the IETF RateLimit / RateLimit-Policy headers.

#include <optional>
#include <string_view>

#include "core/common/clock.h"

namespace limitscope {

enum class DenyReason {
  none,                 // allowed
  exhausted,            // not enough tokens / window full now; retry_after says when
  cost_above_capacity,  // the cost can never be admitted with these parameters
  queue_full,           // leaky bucket queue cannot take the request
  invalid_cost,         // cost <= 0, NaN or infinite
  // Keyed limiter (core/limiter/keyed_limiter.h): refusals before any limit is consulted.
  key_limit,      // the limiter holds max_keys states; a new key cannot get one (server-side)
  unknown_key,    // the API key is not in the policy and the policy has no default tier
  unknown_model,  // the model is not in the policy, so its cost is unknown
  // Shared (Redis) limiter, core/redis/guarded_limiter.h:
  backend_unavailable,  // fail-closed: the store could not be reached (or its breaker is open)
  backend_error,        // the store answered with an error (bad state or config): refused
  backend_forbidden,    // the store refused our credentials or permissions (NOPERM, WRONGPASS,
                        // NOAUTH): a misconfiguration, refused whatever the failure mode
};

std::string_view to_string(DenyReason r);

struct Decision {
  bool allowed = false;
  double limit = 0;      // capacity (buckets) or limit per window, cost units
  double remaining = 0;  // cost units still available after this decision
  /// Time until this same request could succeed; nullopt when it never can.
  std::optional<Nanos> retry_after;
  Nanos reset_after{0};  // time until the bucket is full again / the window is over
  Nanos delay{0};        // shaping delay for queueing algorithms (leaky bucket), else 0
  DenyReason reason = DenyReason::none;
};

}  // namespace limitscope
