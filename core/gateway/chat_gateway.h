#pragma once
// The request handling of limitscope-gateway, free of any HTTP library: the transport hands
// in the Authorization header and the body of POST /v1/chat/completions, /v1/embeddings or
// /v1/responses, and gets back either a complete answer (an error, a 429) or a ticket for an
// admitted request, which it sends to the upstream (or the mock) and then completes, so the
// token estimate is settled. GET /v1/models is answered here from the policy.
//
// Order of checks: Authorization (401), body JSON (400), the limiter (unknown key 403, unknown
// model 404, a token estimate above the tier's token capacity 400, key table full 503, a
// shared limiter unavailable and failing closed 503 with X-Circuit-Open, its store refusing
// the gateway's credentials or permissions 503 limiter_misconfigured in any mode, limit 429). A
// request admitted by a failing-open backend carries "X-Circuit-Open: true". Never a 500. The tier
// is the policy's for the key; no client header is ever read for it. The raw API key lives only in
// the ticket (for settlement) and is never logged or exported: metrics and logs carry
// api_key_hash() (12 hex digits of its SHA-256).

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <semaphore>
#include <string>

#include "core/common/clock.h"
#include "core/gateway/admission.h"
#include "core/gateway/chat_request.h"
#include "core/gateway/gateway_metrics.h"
#include "core/gateway/http_types.h"

namespace limitscope::gateway {

/// Bodies larger than this are parsed at most kMaxLargeParses at a time. A parsed body costs
/// up to about 20 times its size (1 MiB of "[],[],..." becomes ~21 MB of JSON values), so
/// this bounds what parsing takes of memory across all requests, whatever their shape.
inline constexpr std::size_t kLargeBodyBytes = 64 * 1024;
inline constexpr std::ptrdiff_t kMaxLargeParses = 4;

struct GatewayOptions {
  /// Completion tokens assumed when a request sets no max_tokens (the estimate's second term).
  std::int64_t default_max_tokens = 1024;
};

/// What the transport extracted from the HTTP request.
struct IncomingRequest {
  std::optional<std::string> authorization;  // the Authorization header, if any
  std::string body;
  Endpoint endpoint = Endpoint::chat_completions;  // which POST path it came to
};

/// An admitted request on its way to the upstream.
struct ForwardTicket {
  std::string api_key;       // for settlement only; never logged
  std::string api_key_hash;  // api_key_hash(api_key)
  ChatRequest request;
  std::string raw_body;  // the body as the client sent it, forwarded byte for byte
  std::int64_t estimated_tokens = 0;
  AdmissionResult admission;
  HttpHeaders rate_limit_headers;  // to add to whatever the upstream answers
  std::uint64_t request_id = 0;    // gateway-local sequence number
};

/// How the upstream call ended.
struct UpstreamOutcome {
  enum class Kind { answered, unreachable, timed_out };
  Kind kind = Kind::answered;
  int status = 0;                            // when answered
  std::optional<std::int64_t> usage_tokens;  // usage.total_tokens, when the answer had it
};

struct AdmitOutcome {
  std::optional<GatewayResponse> response;  // set: answer this and stop
  std::optional<ForwardTicket> ticket;      // set: call the upstream, then complete()
};

class ChatGateway {
 public:
  /// @param clock limiter time (now) and wall time (quota days)
  ChatGateway(AdmissionBackend& backend, GatewayMetrics& metrics, Clock& clock,
              GatewayOptions options = {});

  /// Authenticates, parses and decides one request.
  AdmitOutcome admit(const IncomingRequest& request);

  /// GET /v1/models: the policy's models as OpenAI's model list, for a key the policy admits
  /// (401/403 as admit()); not a limiter decision, so no rate-limit headers.
  GatewayResponse list_models(const IncomingRequest& request) const;

  /// Settles the token estimate once the upstream has answered (or failed): usage known ->
  /// charge the difference; answered 2xx without usage -> keep the estimate; failed or non-2xx
  /// -> refund it all (the provider bills nothing). Counts the tokens kept.
  /// @return the tokens finally charged
  std::int64_t complete(const ForwardTicket& ticket, const UpstreamOutcome& outcome);

  /// The answer for a failed upstream call: 502 (unreachable) or 504 (timed out), JSON, with
  /// the ticket's rate-limit headers.
  static GatewayResponse upstream_failure(const ForwardTicket& ticket, UpstreamOutcome::Kind kind,
                                          std::string_view detail);

  /// The /metrics text, with the backend's circuit state refreshed.
  std::string render_metrics();

  AdmissionBackend& backend() { return backend_; }
  GatewayMetrics& metrics() { return metrics_; }
  Clock& clock() { return clock_; }

 private:
  AdmissionBackend& backend_;
  GatewayMetrics& metrics_;
  Clock& clock_;
  GatewayOptions options_;
  std::atomic<std::uint64_t> next_id_{1};
  std::counting_semaphore<kMaxLargeParses> large_parses_{kMaxLargeParses};
};

/// The policy's models as OpenAI's list object: {"object":"list","data":[{"id", "object":
/// "model", "created": 0, "owned_by": "limitscope"}...]} in the policy's (name) order.
std::string models_list_json(const Policy& policy);

/// The API key of an "Authorization: Bearer <key>" value (scheme case-insensitive, key without
/// spaces); nullopt for any other shape.
std::optional<std::string> bearer_token(std::string_view authorization);

}  // namespace limitscope::gateway
