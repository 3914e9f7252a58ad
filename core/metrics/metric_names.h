#pragma once
// The metric family names, label names and bucket bounds that the gateway exports and that
// the simulation, the scraper and the dashboard look for. One place, so they cannot drift.
// DESIGN.md section 5 fixes the gateway_* families: same names and labels as gateways in
// the field.

#include <array>
#include <string_view>

namespace limitscope::metrics::names {

// --- label names ---
inline constexpr std::string_view kTier = "tier";
inline constexpr std::string_view kModel = "model";
inline constexpr std::string_view kApiKeyHash = "api_key_hash";
inline constexpr std::string_view kDecision = "decision";  // values below
inline constexpr std::string_view kBackend = "backend";    // e.g. "redis"
inline constexpr std::string_view kReason = "reason";      // e.g. "timeout", "connection"
inline constexpr std::string_view kFamily = "family";      // a metric family name

// Values of the `decision` label.
inline constexpr std::string_view kDecisionAllowed = "allowed";
inline constexpr std::string_view kDecisionDenied = "denied";
inline constexpr std::string_view kDecisionDegraded = "degraded";  // fail-open/closed verdict

/// The label value that collects every series beyond a family's cardinality cap.
inline constexpr std::string_view kOverflowLabelValue = "__overflow__";

// --- gateway families (DESIGN.md section 5) ---

/// Counter of 429 answers. Labels: tier, model.
inline constexpr std::string_view kGatewayRateLimitHits = "gateway_rate_limit_hits_total";
/// Histogram of tokens left in the bucket after a decision. Labels: tier, model.
inline constexpr std::string_view kGatewayTokenBucketUsage = "gateway_token_bucket_usage";
/// Bucket upper bounds of gateway_token_bucket_usage (tokens); +Inf is implicit.
inline constexpr std::array<double, 8> kGatewayTokenBucketUsageBuckets = {0,   5,   10,   50,
                                                                          100, 500, 1000, 5000};
/// Gauge: spend / daily quota (0..1, above 1 when over quota). Labels: api_key_hash, model.
inline constexpr std::string_view kGatewayQuotaBurnRatio = "gateway_quota_burn_ratio";

// --- limitscope's own families ---

/// Counter of limiter decisions. Labels: tier, model, decision.
inline constexpr std::string_view kRequests = "limitscope_requests_total";
/// Gauge: tokens left in the bucket after the latest decision. Labels: tier, model.
inline constexpr std::string_view kBucketLevel = "limitscope_bucket_level_tokens";
/// Gauge: window occupancy, cost admitted in the window / limit (0..1). Labels: tier, model.
inline constexpr std::string_view kWindowOccupancy = "limitscope_window_occupancy_ratio";
/// Counter of spend in US dollars (tokens x model price). Labels: tier, model.
inline constexpr std::string_view kSpendDollars = "limitscope_spend_dollars_total";
/// Counter of LLM tokens consumed (the upstream's usage, settled). Labels: tier, model.
inline constexpr std::string_view kLlmTokens = "limitscope_llm_tokens_total";
/// Counter of the gateway's HTTP answers by status code. Labels: code.
inline constexpr std::string_view kGatewayResponses = "limitscope_gateway_responses_total";
inline constexpr std::string_view kCode = "code";  // label: an HTTP status code
/// Counter of failed backend calls. Labels: backend, reason.
inline constexpr std::string_view kBackendErrors = "limitscope_backend_errors_total";
/// Histogram of the decisions per round trip of a gateway's decisions to Redis (1: a single
/// call; more: concurrent decisions coalesced into one batch). No labels.
inline constexpr std::string_view kRedisBatchSize = "limitscope_redis_batch_size";
/// Counter of a rule's shadow config decisions (issue 19; never enforced). Labels: rule,
/// decision ("allowed" or "rejected").
inline constexpr std::string_view kShadowDecisions = "limitscope_shadow_decisions_total";
/// Counter of decisions where the shadow disagreed with the live config. Labels: rule, kind
/// ("would_reject": live admitted, shadow refused; "would_admit": the reverse).
inline constexpr std::string_view kShadowDisagreements = "limitscope_shadow_disagreements_total";
inline constexpr std::string_view kRule = "rule";  // label: a Redis rule name (gw-<tier>)
inline constexpr std::string_view kKind = "kind";  // label: of a shadow disagreement
inline constexpr std::string_view kShadowRejected = "rejected";
inline constexpr std::string_view kShadowWouldReject = "would_reject";
inline constexpr std::string_view kShadowWouldAdmit = "would_admit";
/// Counter of a gateway's token settlements that reached Redis. Labels: way ("ride": carried
/// by the key's next decision, no round trip of its own; "alone": a settle call of its own).
inline constexpr std::string_view kRedisSettlements = "limitscope_redis_settlements_total";
/// Gauge: circuit breaker state, 0 closed, 1 half-open, 2 open. Labels: backend.
inline constexpr std::string_view kCircuitState = "limitscope_circuit_state";
/// Counter of cost units admitted per API key and model (what the key's limit counts), so
/// audits can set the admitted rate against the configured limit. Labels: api_key_hash, model.
inline constexpr std::string_view kKeyAdmittedCost = "limitscope_key_admitted_cost_total";
/// Gauge: the gateway's wall clock when /metrics was rendered, epoch seconds (audit clock).
inline constexpr std::string_view kGatewayTime = "limitscope_gateway_time_seconds";
/// Gauge: when the gateway started, epoch seconds, its own wall clock.
inline constexpr std::string_view kGatewayStartTime = "limitscope_gateway_start_time_seconds";
/// Info gauge, always 1: one per API key a gateway's policy lists. Labels: api_key_hash, name
/// (what operators call the tenant; empty when the policy gives none), tier.
inline constexpr std::string_view kKeyInfo = "limitscope_key_info";
inline constexpr std::string_view kName = "name";  // label: a key's name
/// Counter of observations that went to a family's "__overflow__" series because the family
/// reached its series cap. Labels: family.
inline constexpr std::string_view kSeriesOverflow = "limitscope_metric_series_overflow_total";

// Values of limitscope_circuit_state.
inline constexpr double kCircuitClosed = 0;
inline constexpr double kCircuitHalfOpen = 1;
inline constexpr double kCircuitOpen = 2;

}  // namespace limitscope::metrics::names
