#include "core/gateway/chat_gateway.h"

#include <cmath>
#include <cstdio>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <nlohmann/json.hpp>
#include <variant>

#include "core/common/sha256.h"
#include "core/gateway/rate_limit_headers.h"

namespace limitscope::gateway {
namespace {

std::string seconds_json(Nanos d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(d.count()) / 1e9);
  return buf;
}

GatewayResponse with_headers(GatewayResponse r, const AdmissionResult& a) {
  append_rate_limit_headers(r.headers, a);
  return r;
}

GatewayResponse rate_limited(const AdmissionResult& a) {
  const bool tokens = a.denied_by == DeniedBy::llm_tokens;
  const std::optional<Nanos> wait = retry_after_of(a);
  std::string message = "Rate limit reached for " +
                        (a.model ? a.model->name : std::string("this model")) + " on tier " +
                        (a.tier ? a.tier->name : std::string("?")) + ": " +
                        (tokens ? "LLM tokens per minute" : "requests") + ".";
  std::string extra = std::string("{\"limit\":\"") + (tokens ? "llm_tokens" : "requests") + "\"";
  if (wait) {
    message += " Retry after " + std::to_string(retry_after_seconds(*wait)) + " s.";
    extra += ",\"retry_after\":" + seconds_json(*wait);
  }
  extra += "}";
  return with_headers(
      error_response(429, "rate_limit_error", "rate_limit_exceeded", message, extra), a);
}

// The API key of a request, or the 401 that refuses it.
std::variant<std::string, GatewayResponse> authenticate(const IncomingRequest& in) {
  if (!in.authorization) {
    return error_response(401, "authentication_error", "missing_api_key",
                          "No API key: send \"Authorization: Bearer <key>\".");
  }
  auto key = bearer_token(*in.authorization);
  if (!key) {
    return error_response(401, "authentication_error", "invalid_authorization",
                          "The Authorization header must be \"Bearer <key>\".");
  }
  return std::move(*key);
}

GatewayResponse unknown_key() {
  return error_response(403, "permission_error", "unknown_api_key",
                        "This API key is not known to the gateway's policy.");
}

}  // namespace

std::string models_list_json(const Policy& policy) {
  nlohmann::json data = nlohmann::json::array();
  for (const ModelPolicy& m : policy.models) {
    // `created` is unknown for a policy's model; 0 keeps the field OpenAI's clients expect.
    data.push_back(
        {{"id", m.name}, {"object", "model"}, {"created", 0}, {"owned_by", "limitscope"}});
  }
  return nlohmann::json{{"object", "list"}, {"data", std::move(data)}}.dump();
}

GatewayResponse ChatGateway::list_models(const IncomingRequest& in) const {
  auto key = authenticate(in);
  if (auto* refused = std::get_if<GatewayResponse>(&key)) return std::move(*refused);
  const std::shared_ptr<const Policy> policy = backend_.policy();
  if (!policy->tier_index_for_key(std::get<std::string>(key))) return unknown_key();
  GatewayResponse r;
  r.body = models_list_json(*policy);
  return r;
}

std::optional<std::string> bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    char c = authorization[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kScheme[i]) return std::nullopt;
  }
  std::string_view key = authorization.substr(kScheme.size());
  while (!key.empty() && key.front() == ' ') key.remove_prefix(1);
  while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
  if (key.empty()) return std::nullopt;
  for (char c : key) {
    if (c <= ' ' || c == 0x7f) return std::nullopt;
  }
  return std::string(key);
}

ChatGateway::ChatGateway(AdmissionBackend& backend, GatewayMetrics& metrics, Clock& clock,
                         GatewayOptions options)
    : backend_(backend), metrics_(metrics), clock_(clock), options_(options) {
  metrics_.set_start_time(clock_.wall());
}

AdmitOutcome ChatGateway::admit(const IncomingRequest& in) {
  AdmitOutcome out;
  auto key = authenticate(in);
  if (auto* refused = std::get_if<GatewayResponse>(&key)) {
    out.response = std::move(*refused);
    return out;
  }
  auto parsed = [&] {
    if (in.body.size() <= kLargeBodyBytes) return parse_request(in.endpoint, in.body);
    struct Slot {  // one of kMaxLargeParses, released even if parsing throws
      std::counting_semaphore<kMaxLargeParses>& s;
      explicit Slot(std::counting_semaphore<kMaxLargeParses>& sem) : s(sem) { s.acquire(); }
      ~Slot() {
#ifdef __GLIBC__
        // Give the parse's memory back: glibc keeps what a thread freed in that thread's
        // arena, so without this every worker thread would keep its largest parse.
        malloc_trim(0);
#endif
        s.release();
      }
    } slot(large_parses_);
    return parse_request(in.endpoint, in.body);
  }();
  if (!parsed) {
    const bool json_error = parsed.error().rfind("malformed JSON", 0) == 0;
    out.response = error_response(400, "invalid_request_error",
                                  json_error ? "invalid_json" : "invalid_request", parsed.error());
    return out;
  }
  const std::int64_t estimate = estimate_llm_tokens(*parsed, options_.default_max_tokens);
  std::string& api_key = std::get<std::string>(key);
  AdmissionRequest ar;
  ar.api_key = api_key;
  ar.model = parsed->model;
  ar.llm_tokens = estimate;
  ar.now = clock_.now();
  AdmissionResult a = backend_.admit(ar);
  const std::string key_hash = api_key_hash(api_key);

  if (!a.allowed) {
    const DenyReason reason = a.denied_by == DeniedBy::llm_tokens && a.llm_tokens
                                  ? a.llm_tokens->reason
                                  : a.requests.reason;
    switch (reason) {
      case DenyReason::unknown_key:
        out.response = unknown_key();
        return out;
      case DenyReason::unknown_model:
        // No rate-limit headers: no limit of this (key, model) exists to report.
        out.response = error_response(
            404, "invalid_request_error", "model_not_found",
            "The model \"" + parsed->model + "\" does not exist or is not served here.");
        return out;
      case DenyReason::cost_above_capacity:
      case DenyReason::invalid_cost:
        out.response = with_headers(
            error_response(400, "invalid_request_error", "request_too_large",
                           "The request needs an estimated " + std::to_string(estimate) +
                               " LLM tokens, more than the tier allows at once; lower max_tokens "
                               "or the prompt."),
            a);
        return out;
      case DenyReason::backend_unavailable: {
        // Fail-closed: the shared limiter cannot be reached and the rule refuses meanwhile.
        metrics_.on_decision(a, key_hash, clock_.wall(), backend_.name());
        out.response =
            error_response(503, "server_error", "limiter_unavailable",
                           "The rate limiter's store is unavailable; try again shortly.");
        append_retry_after(out.response->headers,
                           a.requests.retry_after.value_or(std::chrono::seconds(1)));
        out.response->headers.push_back({"X-Circuit-Open", "true"});
        return out;
      }
      case DenyReason::backend_error:
        metrics_.on_decision(a, key_hash, clock_.wall(), backend_.name());
        out.response = error_response(503, "server_error", "limiter_error",
                                      "The rate limiter could not decide this request.");
        return out;
      case DenyReason::backend_forbidden:
        // Misconfiguration (the store refuses the gateway's user): refused in any failure
        // mode; the operator sees why in the log, /readyz and the metric.
        metrics_.on_decision(a, key_hash, clock_.wall(), backend_.name());
        out.response = error_response(
            503, "server_error", "limiter_misconfigured",
            "The rate limiter's store refuses the gateway's credentials or permissions; the "
            "operator must fix its configuration.");
        return out;
      case DenyReason::key_limit:
        out.response =
            error_response(503, "server_error", "key_capacity_exceeded",
                           "The gateway tracks as many keys as it may; try again later.");
        append_retry_after(out.response->headers, std::chrono::seconds(1));
        return out;
      default:
        metrics_.on_decision(a, key_hash, clock_.wall());
        out.response = rate_limited(a);
        return out;
    }
  }
  metrics_.on_decision(a, key_hash, clock_.wall(), backend_.name());
  ForwardTicket t;
  t.api_key = std::move(api_key);
  t.api_key_hash = key_hash;
  t.request = std::move(*parsed);
  t.raw_body = in.body;
  t.estimated_tokens = estimate;
  append_rate_limit_headers(t.rate_limit_headers, a);
  // Fail-open: admitted without a limiter decision; clients and dashboards can see it.
  if (a.degraded) t.rate_limit_headers.push_back({"X-Circuit-Open", "true"});
  t.admission = std::move(a);
  t.request_id = next_id_.fetch_add(1, std::memory_order_relaxed);
  out.ticket = std::move(t);
  return out;
}

std::string ChatGateway::render_metrics() {
  if (auto state = backend_.circuit_state()) metrics_.set_circuit_state(backend_.name(), *state);
  metrics_.set_wall_time(clock_.wall());
  return metrics_.render();
}

std::int64_t ChatGateway::complete(const ForwardTicket& t, const UpstreamOutcome& outcome) {
  const bool answered_ok = outcome.kind == UpstreamOutcome::Kind::answered &&
                           outcome.status >= 200 && outcome.status < 300;
  std::int64_t charged = 0;
  if (!answered_ok) {
    charged = 0;
  } else if (outcome.usage_tokens) {
    charged = *outcome.usage_tokens;
  } else {
    charged = t.estimated_tokens;
  }
  const double delta = static_cast<double>(charged - t.estimated_tokens);
  // A degraded admission (fail-open, the limiter did not decide) consumed nothing to settle.
  if (t.admission.tier != nullptr && t.admission.tier->llm_tokens && delta != 0 &&
      !t.admission.degraded) {
    if (!backend_.settle(t.api_key, t.request.model, delta, clock_.now()))
      metrics_.on_settle_failed(backend_.name());
  }
  if (t.admission.tier != nullptr && t.admission.model != nullptr) {
    metrics_.on_tokens(*t.admission.tier, *t.admission.model, charged);
  }
  return charged;
}

GatewayResponse ChatGateway::upstream_failure(const ForwardTicket& t, UpstreamOutcome::Kind kind,
                                              std::string_view detail) {
  const bool timeout = kind == UpstreamOutcome::Kind::timed_out;
  GatewayResponse r = error_response(timeout ? 504 : 502, "upstream_error",
                                     timeout ? "upstream_timeout" : "upstream_unavailable",
                                     std::string(timeout ? "The upstream did not answer in time"
                                                         : "The upstream could not be reached") +
                                         (detail.empty() ? "." : ": " + std::string(detail) + "."));
  r.headers.insert(r.headers.end(), t.rate_limit_headers.begin(), t.rate_limit_headers.end());
  return r;
}

}  // namespace limitscope::gateway
