#pragma once
// The y range a dashboard chart draws its data on, worked out before QtCharts is given it: an
// axis given a range re-lays out the whole chart and its rich-text labels, so TimeChart hands
// it one only when it differs from the last.

#include "core/dashboard/dashboard_snapshot.h"

namespace limitscope::ui {

struct AxisRange {
  double lo = 0, hi = 1;
  int ticks = 5;
};

/// From lo to hi with about `ticks` ticks at round steps (1, 2 or 5 times a power of ten:
/// Heckbert's nice numbers, as QValueAxis::applyNiceNumbers), widened to whole steps.
AxisRange nice_range(double lo, double hi, int ticks);

/// Which of a chart's lines an axis is for: all of them, or, while the shadow configs' lines
/// have an axis of their own (choose_shadow_axis), the live lines or the shadow lines.
enum class AxisLines { all, live, shadow };

/// Linear: from the data's y_min to its y_max, or to a nice range over the lines and
/// thresholds with 15% headroom (`ticks` kept when y_max is set). Logarithmic: whole decades
/// around the positive values (zero sits on the bottom edge), at most six. `lines` picks the
/// lines measured; a shadow axis measures no threshold (the rules' numbers are live 429s).
AxisRange y_range(const ChartData& data, bool log, int ticks, AxisLines lines = AxisLines::all);

}  // namespace limitscope::ui
