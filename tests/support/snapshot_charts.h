#pragma once
// Finding a chart in a dashboard snapshot by what it shows.

#include <stdexcept>

#include "core/dashboard/dashboard_snapshot.h"

namespace limitscope::test {

/// The snapshot's chart of `kind`; throws when it has none (a test cannot go on without it).
inline const ChartData& chart(const DashboardSnapshot& s, ChartKind kind) {
  for (const ChartData& c : s.charts) {
    if (c.kind == kind) return c;
  }
  throw std::logic_error("no such chart");
}

}  // namespace limitscope::test
