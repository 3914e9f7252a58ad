#include "ui/charts/axis_range.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace limitscope::ui {
namespace {

constexpr int kNiceTicks = 5;  // QValueAxis's default

double nice_step(double x, bool round_up) {
  const double decade = std::pow(10.0, std::floor(std::log10(x)));
  const double f = x / decade;  // in [1, 10)
  const double nice = round_up ? (f <= 1   ? 1
                                  : f <= 2 ? 2
                                  : f <= 5 ? 5
                                           : 10)
                               : (f < 1.5 ? 1
                                  : f < 3 ? 2
                                  : f < 7 ? 5
                                          : 10);
  return nice * decade;
}

}  // namespace

AxisRange nice_range(double lo, double hi, int ticks) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || ticks < 2) return {lo, hi, ticks};
  const double step = nice_step(nice_step(hi - lo, true) / (ticks - 1), false);
  const double first = std::floor(lo / step), last = std::ceil(hi / step);
  return {first * step, last * step, static_cast<int>(last - first) + 1};
}

AxisRange y_range(const ChartData& data, bool log, int ticks, AxisLines lines) {
  const auto measured = [lines](const ChartLine& l) {
    return lines == AxisLines::all || (lines == AxisLines::shadow) == l.shadow_of.has_value();
  };
  const bool thresholds = lines != AxisLines::shadow;
  if (!log) {
    if (data.y_max) return {data.y_min, *data.y_max, ticks};
    double hi = 0;
    for (const ChartLine& l : data.lines) {
      if (!measured(l)) continue;
      for (const auto& p : l.points) hi = std::max(hi, p.y);
    }
    if (thresholds) {
      for (double t : data.thresholds) hi = std::max(hi, t);
    }
    return nice_range(data.y_min, hi <= 0 ? 1 : hi * 1.15, kNiceTicks);
  }
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  const auto take = [&](double v) {
    if (!(v > 0) || !std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  for (const ChartLine& l : data.lines) {
    if (!measured(l)) continue;
    for (const auto& p : l.points) take(p.y);
  }
  if (thresholds) {
    for (double t : data.thresholds) take(t);
  }
  if (hi <= 0) {
    lo = 0.1;
    hi = 1;
  }
  hi = std::pow(10.0, std::ceil(std::log10(hi) + 1e-9));
  lo = std::max(std::pow(10.0, std::floor(std::log10(lo))), hi / 1e6);  // at most six decades
  if (lo >= hi) lo = hi / 10;
  return {lo, hi, ticks};
}

}  // namespace limitscope::ui
