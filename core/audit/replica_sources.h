#pragma once
// Reading what each gateway replica admitted, for audit_replicas(): from each replica's
// /metrics (two scrapes an interval apart, or one scrape counting since each gateway started)
// or from a Prometheus that scrapes them. Shared by `limitscope-cli audit replicas` and the
// dashboard's Audits panel, which runs it on a worker thread.

#include <optional>
#include <vector>

#include "core/audit/replica_audit.h"
#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/dashboard/key_names.h"
#include "core/http/http_fetch.h"
#include "core/limiter/policy.h"

namespace limitscope::audit {

struct ReplicaSources {
  std::vector<http::HttpUrl> metrics;       ///< each replica's /metrics, or empty
  std::optional<http::HttpUrl> prometheus;  ///< or a Prometheus scraping the replicas
  http::FetchOptions fetch;
  /// /metrics: the time between the two scrapes; nullopt: one scrape, counting since each
  /// gateway started (limitscope-gateway's start and time gauges).
  std::optional<Nanos> interval;
  Nanos prometheus_window = std::chrono::minutes(5);  ///< Prometheus: the window looked back over
};

struct ReplicaReadings {
  std::vector<ReplicaWindow> windows;  ///< one per replica
  KeyNames key_info;                   ///< names the replicas export (limitscope_key_info)
};

/// Reads one window per replica. Errors: no source or both given, a scrape or query that
/// failed (naming the replica), a window that cannot be formed, or `cancel` during the wait.
/// @param clock the scrapes' wall time and the wait between them
Expected<ReplicaReadings> read_replicas(const ReplicaSources& sources, const Policy& policy,
                                        Clock& clock, CancelToken& cancel);

}  // namespace limitscope::audit
