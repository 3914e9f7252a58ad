#include "core/dashboard/shadow_axis.h"

#include <algorithm>
#include <cmath>

namespace limitscope {

ShadowAxisChoice choose_shadow_axis(const ChartData& chart, bool log, bool own_axis_before) {
  ShadowAxisChoice c;
  // Most charts have no shadow line, and hundreds of lines to measure: none measured then.
  if (std::none_of(chart.lines.begin(), chart.lines.end(),
                   [](const ChartLine& l) { return l.shadow_of.has_value(); }))
    return c;
  for (const ChartLine& l : chart.lines) {
    double& peak = l.shadow_of ? c.shadow_peak : c.live_peak;
    for (const metrics::Point& p : l.points) {
      if (std::isfinite(p.y)) peak = std::max(peak, p.y);
    }
  }
  for (const double t : chart.thresholds) c.live_peak = std::max(c.live_peak, t);
  if (log || chart.y_max || !(c.live_peak > 0) || !(c.shadow_peak > 0)) return c;
  const double ratio = std::max(c.live_peak, c.shadow_peak) / std::min(c.live_peak, c.shadow_peak);
  c.own_axis = ratio > (own_axis_before ? kShadowSharedAxisBelow : kShadowOwnAxisAbove);
  return c;
}

}  // namespace limitscope
