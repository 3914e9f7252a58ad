#pragma once
// The one state of an alert, shared by the rule engine (metrics::AlertEngine) and what the
// dashboard lists (AlertRow): the engine moves an alert through inactive, pending and firing,
// as Prometheus does; resolved and no_data are the dashboard's readings of an alert (a firing
// one that stopped, or one whose source stopped answering) and never come out of the engine.

#include <string_view>

namespace limitscope {

enum class AlertState { inactive, pending, firing, resolved, no_data };

/// "inactive", "pending", "firing", "resolved", "no data".
std::string_view to_string(AlertState s);

/// The ALERTS series' alertstate label: "pending" or "firing"; every other state "inactive".
std::string_view alert_state_name(AlertState s);

}  // namespace limitscope
