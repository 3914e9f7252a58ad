#include "ui/charts/pixel_polyline.h"

#include <algorithm>
#include <cmath>

namespace limitscope::ui {

YScale::YScale(double lo, double hi, bool log) : m_lo(lo), m_hi(hi), m_log(log) {
  const double from = log ? std::log10(lo) : lo, to = log ? std::log10(hi) : hi;
  if (hi > lo && std::isfinite(from) && std::isfinite(to)) {
    m_a = 1 / (to - from);
    m_b = -m_a * from;
  }
}

void pixel_polyline(const std::vector<metrics::Point>& points, const PlotMapping& m,
                    QPolygonF& out) {
  out.clear();
  if (points.empty()) return;
  const auto columns = static_cast<std::size_t>(std::max(0.0, m.plot.width())) + 2;
  out.reserve(static_cast<qsizetype>(std::min(points.size(), 2 * columns)));
  const double left = m.plot.left(), sx = 1 / m.ms_per_px;
  const auto x_of = [&](double t) { return left + (t - m.start_ms) * sx; };
  const double base = m.plot.bottom(), h = m.plot.height();
  const auto y_of = [&](double v) { return base - h * m.y.fraction(v); };
  // The current pixel column's first extreme and its other one (screen y: smaller is higher).
  QPointF first(x_of(points.front().x), y_of(points.front().y)), second = first;
  double column = std::floor(first.x());
  bool two = false;
  const auto flush = [&] {
    out.append(first);
    if (two) out.append(second);
  };
  for (std::size_t i = 1; i < points.size(); ++i) {
    const QPointF p(x_of(points[i].x), y_of(points[i].y));
    const double c = std::floor(p.x());
    if (c != column) {
      flush();
      column = c;
      first = second = p;
      two = false;
      continue;
    }
    // Keep the column's lowest and highest, in the order they came.
    const double top = std::min(first.y(), second.y()), bottom = std::max(first.y(), second.y());
    if (!two) {
      if (p.y() == first.y()) continue;
      second = p;
      two = true;
    } else if (p.y() < top) {
      if (first.y() == top) {
        first = second;
      }
      second = p;
    } else if (p.y() > bottom) {
      if (first.y() == bottom) {
        first = second;
      }
      second = p;
    }
  }
  flush();
}

}  // namespace limitscope::ui
