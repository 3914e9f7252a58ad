#pragma once
// Effective vs configured limits across gateway replicas ("we configured 100/min and get
// 300/min"). Each replica reports the cost units it admitted per (API key, model) over an
// observed window; the audit sums them over replicas and sets the sum against what one limiter
// with the policy's parameters can admit over that window at most (capacity plus refill over
// the window for buckets; whole windows for window algorithms). A key whose summed admission
// exceeds that bound by more than the stated tolerance is a leak. The bound already allows a
// full burst at the start, so a leak is not a spike: it persists over the whole window.
//
// The likely cause is named from the evidence: when the ratio is about the number of replicas
// that admitted the key, each replica counts the limit on its own (in-process limiters, or one
// Redis per replica): N replicas give about N x the limit.

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/common/expected.h"
#include "core/dashboard/key_names.h"
#include "core/limiter/policy.h"
#include "core/probe/metrics_scrape.h"
#include "core/probe/prometheus_client.h"

namespace limitscope::audit {

/// (api_key_hash, model)
using KeyModel = std::pair<std::string, std::string>;

/// What one replica admitted over one observed window.
struct ReplicaWindow {
  std::string replica;                       ///< its /metrics URL or Prometheus instance
  double window_s = 0;                       ///< length of the observation, seconds
  std::map<KeyModel, double> admitted_cost;  ///< cost units admitted in the window
  double degraded_decisions = 0;             ///< fail-open/closed verdicts in the window
  bool counter_reset = false;                ///< a counter went down (restart) in between
};

/// The window between two scrapes of one replica, from limitscope_key_admitted_cost_total
/// (our gateway) or, where a replica lacks it, gateway_quota_burn_ratio times the key's daily
/// quota in `policy` (gateways in the field export that one). Window: the scrapes' times.
/// Errors: `after` not later than `before`, or neither family present.
Expected<ReplicaWindow> window_between(const probe::Scrape& before, const probe::Scrape& after,
                                       const Policy& policy, std::string replica);

/// Everything one scrape says since the gateway started: its counters over the time from
/// limitscope_gateway_start_time_seconds to limitscope_gateway_time_seconds (both the
/// gateway's own clock). Errors: either gauge or the admitted-cost family missing.
Expected<ReplicaWindow> window_since_start(const probe::Scrape& scrape, std::string replica);

/// One window per `instance` from Prometheus over the last `window_s` seconds:
/// increase(limitscope_key_admitted_cost_total[window]) by instance, key and model, and the
/// degraded decisions likewise. Errors: the query failed, or no instance exports the family.
Expected<std::vector<ReplicaWindow>> windows_from_prometheus(const probe::PrometheusClient& client,
                                                             double window_s);

/// The most cost one limiter with `params` can admit in any interval of `window_s` seconds.
double admissible_cost(const LimitParams& params, double window_s);

struct ReplicaAuditOptions {
  /// A key leaks when admitted > bound x (1 + tolerance); absorbs scrapes of different
  /// replicas not being taken at the same instant.
  double tolerance = 0.2;
  /// Names for keys the policy does not name (--key-names, limitscope_key_info), or nullptr.
  const KeyNames* names = nullptr;
};

struct KeyFinding {
  std::string api_key_hash;
  std::string
      name;  ///< the key's name (the tenant): the policy's, else options.names'; empty if none
  std::string model;
  std::string tier;             ///< empty when the policy neither lists the key nor has a default
  std::string limit;            ///< LimitParams::describe() of the tier's requests rule
  double configured_per_s = 0;  ///< the rule's sustained rate, cost units/s
  double bound_cost = 0;        ///< admissible_cost over the window
  double admitted_cost = 0;     ///< summed over replicas
  double admitted_per_s = 0;
  double ratio = 0;              ///< admitted_cost / bound_cost
  int replicas_admitting = 0;    ///< replicas that admitted any of it
  double max_replica_ratio = 0;  ///< the largest one replica's share / bound_cost
  bool leak = false;
};

struct TierFinding {
  std::string tier;
  std::string limit;
  std::size_t keys = 0;       ///< (key, model) pairs seen
  double admitted_per_s = 0;  ///< summed over its keys and replicas, cost units/s
  double max_ratio = 0;
  std::size_t leaks = 0;
};

struct ReplicaAudit {
  std::size_t replicas = 0;
  double window_s = 0;  ///< the longest replica window (the generous bound)
  double tolerance = 0;
  std::vector<KeyFinding> keys;    ///< highest ratio first
  std::vector<TierFinding> tiers;  ///< by name
  std::size_t leaks = 0;
  std::string likely_cause;        ///< empty without a leak
  std::vector<std::string> notes;  ///< unknown keys, counter resets, degraded decisions
};

/// The audit of `windows` (one per replica) against `policy`.
ReplicaAudit audit_replicas(const std::vector<ReplicaWindow>& windows, const Policy& policy,
                            const ReplicaAuditOptions& options = {});

}  // namespace limitscope::audit
