#pragma once
// The three audits run from one description of the sources, each to a finished ResultTable:
// what the dashboard's Audits panel runs on its worker thread (the CLI's `audit` subcommands
// use the same readers, core/audit/*.h, with their own output). Every input is checked here;
// an error names the input and the reason, and never holds a password.

#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/common/result_table.h"
#include "core/http/http_fetch.h"

namespace limitscope::audit {

struct AuditSetup {
  /// Each gateway replica's /metrics (audit replicas and audit clock).
  std::vector<std::string> metrics_urls;
  http::HttpAuth metrics_auth;
  /// A Prometheus scraping the replicas (audit replicas when no /metrics is given).
  std::string prometheus_url;
  http::HttpAuth prometheus_auth;
  /// /metrics: between two scrapes; nullopt: one scrape, counting since each gateway started.
  std::optional<Nanos> replica_interval;
  Nanos prometheus_window = std::chrono::minutes(5);
  double tolerance = 0.2;
  /// redis:// or redis+cluster:// with its password (audit retry-after and audit clock).
  std::string redis_url;
  std::string prefix;  ///< key prefix, "" for the default
  std::string rule;    ///< the rule whose decision stream audit retry-after reads
  std::size_t max_entries = 1'000'000;
  double clock_threshold_s = 1;
  /// The gateways' policy (limits, key names), "" for the embedded default.
  std::string policy_file;
  /// Key names (CSV api_key_hash,name), or "".
  std::string key_names_file;
};

/// Which audits `setup` has the sources for, and for the others why not.
struct AuditAvailability {
  bool replicas = false;
  bool retry_after = false;
  bool clock = false;
  std::string replicas_why, retry_after_why, clock_why;  ///< "" when available
};
AuditAvailability available_audits(const AuditSetup& setup);

/// audit_replicas over the /metrics (or Prometheus) of `setup`.
/// @param cancel ends the wait between two scrapes
Expected<ResultTable> run_replica_audit(const AuditSetup& setup, Clock& clock, CancelToken& cancel);
/// audit_retry_after of `setup.rule`'s decision stream, keys named.
Expected<ResultTable> run_retry_after_audit(const AuditSetup& setup, Clock& clock);
/// audit_clocks of the /metrics gateways against Redis (every master of a cluster).
Expected<ResultTable> run_clock_audit(const AuditSetup& setup, Clock& clock);

}  // namespace limitscope::audit
