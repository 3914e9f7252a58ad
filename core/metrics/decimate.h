#pragma once
// Per-pixel-column decimation for charts: rendering cost follows the chart's width, not the
// number of samples. Each column keeps its first, min, max and last sample in time order
// (the M4 scheme), so the drawn polyline is pixel-identical to drawing every sample.

#include <cstdint>
#include <span>
#include <vector>

namespace limitscope::metrics {

struct Point {
  double x = 0;  // time (any unit; the caller's)
  double y = 0;

  friend bool operator==(const Point&, const Point&) = default;
};

/// Decimates points sorted by x into at most 4 points per column.
/// @param points   sorted by x (ties allowed); NaN y values are dropped (gaps are the caller's)
/// @param x_begin  left edge of the visible range
/// @param x_end    right edge (> x_begin)
/// @param columns  pixel columns (>= 1)
/// @return the kept points in x order; points outside [x_begin, x_end] are dropped except the
///         nearest one on each side, so lines still reach the chart's edges.
std::vector<Point> decimate_min_max(std::span<const Point> points, double x_begin, double x_end,
                                    int columns);

}  // namespace limitscope::metrics
