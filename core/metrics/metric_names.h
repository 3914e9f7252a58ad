#pragma once
// The metric family names, label names and bucket bounds that the gateway exports and that
// the simulation, the scraper and the dashboard look for, and the names of the series the
// dashboard derives from them (written by the sources, read by the view model's charts and
// alert rules). One place, so they cannot drift.
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

// --- the dashboard's own series (never exported by a gateway) ---

namespace limitscope {

/// Per-key series the dashboard plots (labels: api_key, tier, model). Internal to limitscope:
/// a raw API key never leaves the process in a label; exported series use api_key_hash.
namespace dashboard_series {
inline constexpr std::string_view kKeyLevel = "limitscope_key_level_ratio";  // 0..1
inline constexpr std::string_view kKeyOccupancy = "limitscope_key_window_occupancy_ratio";
inline constexpr std::string_view kKeyQuotaBurn = "limitscope_key_quota_burn_ratio";  // tier+key
inline constexpr std::string_view kKeyRejectedRate = "limitscope_key_rejected_per_second";
inline constexpr std::string_view kTierRejectedRate = "limitscope_tier_rejected_per_second";
inline constexpr std::string_view kRejectedRatio = "limitscope_rejected_ratio";  // 429s / requests
/// Live sources: what a rule's shadow config (issue 19) would have refused per second, never
/// enforced (labels: tier = the rule), from the same decisions as the rule's 429 line.
inline constexpr std::string_view kTierShadowRejectedRate =
    "limitscope_tier_shadow_rejected_per_second";
/// Requests per second of one key the live config admitted and the shadow would have refused
/// (labels: api_key, tier, model): the tenants a candidate would start refusing.
inline constexpr std::string_view kKeyShadowWouldRefuseRate =
    "limitscope_key_shadow_would_refuse_per_second";
}  // namespace dashboard_series

/// Series only live sources write (the simulation's are in dashboard_series).
namespace live_series {
/// Requests admitted per second over the last refresh. Labels: tier, model.
inline constexpr std::string_view kAdmittedRate = "limitscope_admitted_per_second";
/// 429s per second over the last refresh. Labels: tier, model.
inline constexpr std::string_view kRejectedRate = "limitscope_rejected_per_second";
/// Requests admitted per second by one key (a rule's decision stream). Labels: api_key, tier,
/// model.
inline constexpr std::string_view kKeyAdmittedRate = "limitscope_key_admitted_per_second";
/// Fail-open admissions per second (live, from a gateway's decision="degraded" count): drawn
/// on the 429 chart, so a drop in 429s while the limiter is bypassed reads as what it is.
inline constexpr std::string_view kUncheckedAdmittedRate =
    "limitscope_unchecked_admitted_per_second";
}  // namespace live_series

}  // namespace limitscope
