#pragma once
// ChartData builders for chart widget tests: the frame of a chart as core/dashboard builds it,
// for a test to add its own lines to.

#include "core/dashboard/dashboard_charts.h"

namespace limitscope::test {

/// The 429 chart's frame as rejection_chart makes it (title, unit, the default 0.5/s rule's
/// threshold), with no line yet.
inline ChartData rejections_frame() {
  ChartData d;
  d.kind = ChartKind::rejections;
  d.title = "429 rate by tier";
  d.unit = "429/s";
  d.thresholds = {0.5};
  d.threshold_labels = {"0.5/s"};
  return d;
}

}  // namespace limitscope::test
