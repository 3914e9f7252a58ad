#pragma once
// The alerts panel's rows and the charts' pending/firing bands, from an AlertEngine snapshot:
// what every source that evaluates rules (the simulation, the live sources) shows.

#include <cstdint>
#include <vector>

#include "core/metrics/alert_engine.h"
#include "core/sources/dashboard_snapshot.h"
#include "core/sources/key_names.h"

namespace limitscope {

/// An alert's labels as its row shows them (AlertRow::labels): without alertname and severity.
std::string alert_row_labels(const metrics::Labels& labels);

/// Appends one row per alert (firing, then pending, then resolved; newest first within a
/// state) and one band per rule and state (the union of its alerts' intervals).
/// @param now_ms where still-open bands end
/// @param names when given, an alert on one key (label api_key or api_key_hash) names it:
///        AlertRow::entity, and the summary says the name instead of the hash
void alert_view(const metrics::AlertSnapshot& alerts, std::int64_t now_ms, std::vector<AlertRow>& rows,
                std::vector<AlertInterval>& intervals, const KeyNames* names = nullptr);

/// Binds each chart to the alerting rules whose expressions read what it shows
/// (ChartData::rules), from the rules' metric names, not from their names or order, and draws
/// each one's threshold (add_rule_threshold): a --rules file's 3/s, not the default 0.5/s.
void bind_chart_rules(std::vector<ChartData>& charts, const metrics::AlertSnapshot& alerts);

}  // namespace limitscope
