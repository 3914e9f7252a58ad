#pragma once
// Rate-limit response headers from an admission result, on allowed and denied answers alike:
//   X-RateLimit-Limit / -Remaining / -Reset          the requests rule (cost units; Reset in
//                                                   whole seconds until the bucket is full)
//   X-RateLimit-Limit-Tokens / -Remaining-Tokens /   the llm_tokens rule, when the tier has one
//     -Reset-Tokens
//   RateLimit-Policy: "requests";q=60;w=60, "llm-tokens";q=100000;w=60
//   RateLimit: "requests";r=52;t=8, "llm-tokens";r=98000;t=2
//                                                   (IETF draft-ietf-httpapi-ratelimit-headers,
//                                                   structured-field form with named policies)
//   Retry-After: 3                                  on a denial that waiting can cure: whole
//                                                   seconds, rounded up (RFC 9110 §10.2.3)
// q = quota, w = window (seconds for an empty bucket to refill, or the window), r = remaining,
// t = seconds until the quota is fully available again.

#include <cstdint>
#include <optional>

#include "core/gateway/admission.h"
#include "core/gateway/http_types.h"

namespace limitscope::gateway {

/// Whole seconds, rounded up; 0 for d <= 0.
std::int64_t whole_seconds_up(Nanos d);

/// The wait a client should honour for a refused request: the largest retry_after of the
/// refusing rules; nullopt when waiting can never help (cost above capacity, unknown key...).
std::optional<Nanos> retry_after_of(const AdmissionResult& r);

/// Appends the headers above (Retry-After only when the result is a denial with a wait), for
/// the rules AdmissionResult::reported names (none for a degraded decision).
void append_rate_limit_headers(HttpHeaders& out, const AdmissionResult& r);

}  // namespace limitscope::gateway
