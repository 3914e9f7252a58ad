#pragma once
// The Tuner's what-if scenarios as its Scenarios panel shows them (ResultTable, core/common):
// the outage what-if (one row per failure mode against no outage) and the routing what-if
// (the trace as it was against routed).

#include "core/common/result_table.h"
#include "core/tuner/outage_whatif.h"
#include "core/tuner/routing_whatif.h"

namespace limitscope::tuner {

/// Rows: no outage, fail-open, fail-closed, local fallback; admitted, 429s served (in all and
/// in the window), requests over-admitted against the configured limit (the cost in the row's
/// detail), spend and extra spend.
ResultTable outage_table(const OutageWhatIf& w);
/// Rows: as it was, routed; admitted, 429s, spend; the verdict says what routing saves.
ResultTable routing_table(const RoutingWhatIf& w);

}  // namespace limitscope::tuner
