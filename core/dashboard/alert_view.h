#pragma once
// The alerts panel's rows and the charts' pending/firing bands, from an AlertEngine snapshot:
// what every source that evaluates rules (the simulation, the live sources) shows.

#include <cstdint>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/dashboard/key_names.h"
#include "core/metrics/alert_engine.h"

namespace limitscope {

/// An alert's labels as its row shows them (AlertRow::labels): without alertname and severity.
std::string alert_row_labels(const metrics::Labels& labels);

/// What an alert is about, in the operator's words (AlertRow::entity): its key by name (label
/// api_key or api_key_hash; without `names`, or without a name, its short hash), else its
/// tier as the rule's labels say it ("tier gw-free", with a model "tier free · gpt-4.1"), else
/// its model ("model gpt-4.1"); empty for an alert about the rule as a whole.
std::string alert_subject(const metrics::Labels& labels, const KeyNames* names);

/// The name every view gives an alert (the alert tree, the incident summary, the status line
/// and the desktop notice): AlertRow::entity; for a row without one (a recording made before
/// tiers had one) the subject its labels give; else its labels as they are; else "".
std::string alert_display_name(const AlertRow& a);

/// Appends one row per alert (in alert_severity_rank order; newest first within a state) and one
/// band per rule and state (the union of its alerts' intervals).
/// @param now_ms where still-open bands end
/// @param names when given, an alert on one key (label api_key or api_key_hash) names it; every
///        row's AlertRow::entity is alert_subject(), and the summary says the name instead of
///        the hash
void alert_view(const metrics::AlertSnapshot& alerts, std::int64_t now_ms,
                std::vector<AlertRow>& rows, std::vector<AlertInterval>& intervals,
                const KeyNames* names = nullptr);

/// Binds each chart to the alerting rules whose expressions read what it shows
/// (ChartData::rules), from the rules' metric names, not from their names or order, and draws
/// each one's threshold (add_rule_threshold): a --rules file's 3/s, not the default 0.5/s.
void bind_chart_rules(std::vector<ChartData>& charts, const metrics::AlertSnapshot& alerts);

}  // namespace limitscope
