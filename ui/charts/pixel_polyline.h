#pragma once
// A chart line in the plot's pixels, at most two points per pixel column: the lowest and the
// highest value that fall in it, in the order they came. The worker decimates to its own
// columns (1,100 for the live view, up to four points each), usually more than the plot has
// pixels: mapped and thinned here, a line is drawn with the pixels it covers and a fraction of
// the points (the raster engine's time grows with the points, not with the pixels drawn).

#include <QPolygonF>
#include <QRectF>
#include <cmath>
#include <vector>

#include "core/metrics/decimate.h"

namespace limitscope::ui {

/// A chart's y scale, linear or log10, from `lo` (the plot's bottom edge) to `hi` (its top):
/// the one rule by which the lines (pixel_polyline), the thresholds, the bands and
/// TimeChart::yPixel place a value. On a log scale a value at or below `lo` (zero, what is
/// below the lowest decade) sits on the bottom edge; a range with hi <= lo puts every value there.
class YScale {
 public:
  YScale() : YScale(0, 1, false) {}
  YScale(double lo, double hi, bool log);
  double lo() const { return m_lo; }
  double hi() const { return m_hi; }
  bool isLog() const { return m_log; }
  /// Where `value` sits, as a fraction of the plot's height: 0 at the bottom edge, 1 at the
  /// top (outside 0..1 when the value is outside the range, linear only).
  double fraction(double value) const {
    if (!m_log) return m_a * value + m_b;
    return value > m_lo ? m_a * std::log10(value) + m_b : 0;
  }

 private:
  double m_lo, m_hi;
  bool m_log;
  double m_a = 0, m_b = 0;  // fraction = m_a * value (or its log10) + m_b
};

/// How a chart maps points to pixels: x is linear in time, y by the chart's scale.
struct PlotMapping {
  QRectF plot;           // in the painter's coordinates
  double start_ms = 0;   // the time at plot.left()
  double ms_per_px = 1;  // > 0
  YScale y;
};

/// Replaces `out` with `points` mapped by `m`, thinned to the lowest and highest point of
/// each pixel column (one point when they are the same). `points` is ordered by x.
void pixel_polyline(const std::vector<metrics::Point>& points, const PlotMapping& m,
                    QPolygonF& out);

}  // namespace limitscope::ui
