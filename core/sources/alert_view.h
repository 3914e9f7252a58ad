#pragma once
// The alerts panel's rows and the charts' pending/firing bands, from an AlertEngine snapshot:
// what every source that evaluates rules (the simulation, the live sources) shows.

#include <cstdint>
#include <vector>

#include "core/metrics/alert_engine.h"
#include "core/sources/dashboard_snapshot.h"

namespace limitscope {

/// Appends one row per alert (firing, then pending, then resolved; newest first within a
/// state) and one band per rule and state (the union of its alerts' intervals).
/// @param now_ms where still-open bands end
void alert_view(const metrics::AlertSnapshot& alerts, std::int64_t now_ms, std::vector<AlertRow>& rows,
                std::vector<AlertInterval>& intervals);

}  // namespace limitscope
