#pragma once
// A chart line in the plot's pixels, at most two points per pixel column: the lowest and the
// highest value that fall in it, in the order they came. The worker decimates to its own
// columns (1,100 for the live view, up to four points each), usually more than the plot has
// pixels: mapped and thinned here, a line is drawn with the pixels it covers and a fraction of
// the points (the raster engine's time grows with the points, not with the pixels drawn).

#include <QPolygonF>
#include <QRectF>
#include <vector>

#include "core/metrics/decimate.h"

namespace limitscope::ui {

/// How a chart maps values to pixels: x is linear in time, y linear or logarithmic.
struct PlotMapping {
  QRectF plot;                // in the painter's coordinates
  double start_ms = 0;        // the time at plot.left()
  double ms_per_px = 1;       // > 0
  double y_lo = 0, y_hi = 1;  // the values at plot.bottom() and plot.top()
  bool log = false;           // y on a log10 scale (values <= y_lo sit on the bottom edge)
};

/// Replaces `out` with `points` mapped by `m`, thinned to the lowest and highest point of
/// each pixel column (one point when they are the same). `points` is ordered by x.
void pixel_polyline(const std::vector<metrics::Point>& points, const PlotMapping& m,
                    QPolygonF& out);

}  // namespace limitscope::ui
