#pragma once
// The alerts table's grouping: one group per rule (and per evaluator: limitscope's own engine,
// or a server such as Prometheus), with how many alerts it holds and the worst of them named,
// so twenty keys nearly empty read as one line, "LimiterKeyNearlyEmpty  20  worst: acme-prod".

#include <cstddef>
#include <string>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"

namespace limitscope {

struct AlertGroup {
  std::string rule;
  std::string origin;                ///< AlertRow::origin: "" for the local engine
  std::vector<std::size_t> members;  ///< indices into the grouped rows, worst first
  std::size_t active = 0;            ///< members firing, pending or without data
  /// The worst member: members.front().
  std::size_t worst() const { return members.front(); }
};

/// How bad an alert is, for ordering everywhere (the alerts panel's rows and groups, the
/// incident summary): firing, pending, no data, resolved, inactive. Lower is worse. Pending
/// is a breach measured now; no data is a rule that cannot tell (its source stopped
/// answering), so it ranks below what was measured and above what is quiet
/// (docs/alerts.md, "Order").
int alert_severity_rank(AlertState s);

/// Groups `rows` by rule and origin. Within a group the worst comes first: by state
/// (alert_severity_rank), then by value in the direction the rule alerts on
/// (AlertRow::higher_is_worse: the highest value first for "x > c", the lowest for "x < c"),
/// then the one in its state longest. Groups come worst first, then by rule name.
std::vector<AlertGroup> group_alerts(const std::vector<AlertRow>& rows);

/// What the group's line names: the worst member's alert_display_name() (its key by name,
/// "tier gw-free", ...).
std::string worst_entity(const AlertGroup& g, const std::vector<AlertRow>& rows);

}  // namespace limitscope
