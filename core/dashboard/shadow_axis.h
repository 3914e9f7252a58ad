#pragma once
// Where a chart draws its shadow configs' lines ("free: would refuse (shadow)", issue 19): on
// the live lines' y axis, or on an axis of their own at the right when the two are so far apart
// that on one axis the smaller would be a flat line along the bottom (a live 1,400 429/s beside
// a candidate that would refuse 3/s, or the other way round). A logarithmic axis shows both
// already, so it keeps them together.

#include "core/dashboard/dashboard_charts.h"

namespace limitscope {

/// Apart by more than this factor, the shadow lines get their own axis...
inline constexpr double kShadowOwnAxisAbove = 10.0;
/// ... and keep it until they are within this factor again, so a ratio wavering around 10
/// does not move the lines from one scale to the other on every refresh.
inline constexpr double kShadowSharedAxisBelow = 5.0;

struct ShadowAxisChoice {
  bool own_axis = false;  // the shadow lines on a right-hand axis of their own
  // The highest values in view (both 0 when the chart has no shadow line: not measured).
  double live_peak = 0;    // what the live axis must show: the live lines and thresholds
  double shadow_peak = 0;  // the shadow lines
};

/// Whether `chart`'s shadow lines (ChartLine::shadow_of) go on an axis of their own.
/// @param log the chart's y axis is logarithmic: never (it shows both scales)
/// @param own_axis_before what the last choice for this chart was (the hysteresis)
/// @return own_axis false when the chart has no shadow line, has a fixed range (y_max), or
///         either side is all zero (no scale to show apart: a zero line on the shared axis
///         says "would refuse nothing")
ShadowAxisChoice choose_shadow_axis(const ChartData& chart, bool log, bool own_axis_before);

}  // namespace limitscope
