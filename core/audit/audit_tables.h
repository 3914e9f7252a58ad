#pragma once
// The audits' results as the dashboard's Audits panel shows them: one verdict and one row per
// key, replica or clock, with tenant names where known (ResultTable, core/common).

#include <string>

#include "core/audit/clock_audit.h"
#include "core/audit/replica_audit.h"
#include "core/audit/retry_after_audit.h"
#include "core/common/result_table.h"

namespace limitscope::audit {

/// Per (key, model): tenant, tier and limit, admitted against the bound, ratio, replicas.
ResultTable replica_table(const ReplicaAudit& audit);
/// Per key: refusals, honoured, impatient, lies, unanswered; examples in each row's detail.
ResultTable retry_after_table(const RetryAfterAudit& audit, const DecisionRead& read,
                              const std::string& rule);
/// Per Redis node (a cluster's masters) and per gateway: offsets and the verdict.
ResultTable clock_table(const ClockAudit& audit);

}  // namespace limitscope::audit
