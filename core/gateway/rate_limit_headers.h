#pragma once
// Rate-limit response headers from an admission result, on allowed and denied answers alike:
//   X-RateLimit-Limit / -Remaining / -Reset          the requests rule (cost units; Reset in
//                                                   whole seconds until the bucket is full)
//   RateLimit-Policy: "requests";q=60;w=60, "llm-tokens";q=100000;w=60
//   RateLimit: "requests";r=52;t=8, "llm-tokens";r=98000;t=2
//                                                   (IETF draft-ietf-httpapi-ratelimit-headers,
//                                                   structured-field form with named policies)
//   x-ratelimit-limit-requests / -remaining-requests  OpenAI's names and formats: the requests
//     / -reset-requests                             rule in requests of this model (cost units
//                                                   / the model's weight, rounded down), reset
//                                                   as a duration ("1s", "6m0s", "734ms")
//   x-ratelimit-limit-tokens / -remaining-tokens /  the llm_tokens rule, when the tier has one
//     -reset-tokens                                 (LLM tokens; reset as a duration)
//   RateLimit-Policy: "requests";q=60;w=60, "llm-tokens";q=100000;w=60
//   RateLimit: "requests";r=52;t=8, "llm-tokens";r=98000;t=2
//                                                   (IETF draft-ietf-httpapi-ratelimit-headers,
//                                                   structured-field form with named policies)
//   Retry-After: 3                                  on a denial that waiting can cure: whole
//   retry-after-ms: 2734                            seconds, rounded up (RFC 9110 §10.2.3), and
//                                                   milliseconds, rounded up (OpenAI's SDKs
//                                                   prefer it); both at least 1
// q = quota, w = window (seconds for an empty bucket to refill, or the window), r = remaining,
// t = seconds until the quota is fully available again. The durations are exact to the
// millisecond (rounded up), so rounding one up to whole seconds gives the IETF t.

#include <cstdint>
#include <optional>
#include <string>

#include "core/common/duration_round.h"
#include "core/gateway/admission.h"
#include "core/gateway/http_types.h"

namespace limitscope::gateway {

/// A duration the way OpenAI writes its reset headers (Go's time.Duration form), to the
/// millisecond, rounded up: "0s", "734ms", "1s", "8.64s", "6m0s", "1h2m3.5s".
std::string openai_duration(Nanos d);

/// The wait a client should honour for a refused request: the largest retry_after of the
/// refusing rules; nullopt when waiting can never help (cost above capacity, unknown key...).
std::optional<Nanos> retry_after_of(const AdmissionResult& r);

/// Appends Retry-After (whole seconds) and retry-after-ms, both rounded up and at least 1.
void append_retry_after(HttpHeaders& out, Nanos wait);

/// Appends the headers above (Retry-After only when the result is a denial with a wait), for
/// the rules AdmissionResult::reported names (none for a degraded decision).
void append_rate_limit_headers(HttpHeaders& out, const AdmissionResult& r);

}  // namespace limitscope::gateway
