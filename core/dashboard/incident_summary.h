#pragma once
// The incident summary an operator pastes into the incident channel (issue 16, item 8):
// Markdown made from one dashboard snapshot, its time range, the sources with their down
// intervals, each fail-open interval with the requests admitted without a limit check, the
// keys by 429s, and the alerts, every key by its name.

#include <string>

#include "core/dashboard/dashboard_snapshot.h"

namespace limitscope {

struct IncidentSummaryOptions {
  std::size_t max_keys = 20;  ///< rows of the "Keys by 429s" table
  std::string png_name;       ///< the picture written beside it, linked when set
};

/// The summary of `s` (times in UTC, HH:MM:SS).
std::string incident_summary_markdown(const DashboardSnapshot& s,
                                      const IncidentSummaryOptions& options = {});

}  // namespace limitscope
