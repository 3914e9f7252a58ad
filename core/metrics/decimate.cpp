#include "core/metrics/decimate.h"

#include <algorithm>
#include <cmath>

namespace limitscope::metrics {

std::vector<Point> decimate_min_max(std::span<const Point> points, double x_begin, double x_end,
                                    int columns) {
  std::vector<Point> out;
  if (points.empty() || columns < 1 || !(x_end > x_begin)) return out;

  const auto first_in = std::lower_bound(points.begin(), points.end(), x_begin,
                                         [](const Point& p, double x) { return p.x < x; });
  const auto last_in = std::upper_bound(first_in, points.end(), x_end,
                                        [](double x, const Point& p) { return x < p.x; });
  out.reserve(static_cast<std::size_t>(columns) * 4 + 2);

  // The nearest finite point left of the range keeps the line reaching the left edge.
  for (auto it = first_in; it != points.begin();) {
    --it;
    if (!std::isnan(it->y)) {
      out.push_back(*it);
      break;
    }
  }

  const double width = (x_end - x_begin) / columns;
  auto it = first_in;
  while (it != last_in) {
    if (std::isnan(it->y)) {
      ++it;
      continue;
    }
    const int col = std::min(columns - 1, static_cast<int>((it->x - x_begin) / width));
    const Point first = *it;
    Point lo = first, hi = first, last = first;
    ++it;
    for (; it != last_in; ++it) {
      if (std::min(columns - 1, static_cast<int>((it->x - x_begin) / width)) != col) break;
      if (std::isnan(it->y)) continue;
      if (it->y < lo.y) lo = *it;
      if (it->y > hi.y) hi = *it;
      last = *it;
    }
    // Emit in x order without repeats: first, then min/max by time, then last.
    out.push_back(first);
    const Point& a = lo.x <= hi.x ? lo : hi;
    const Point& b = lo.x <= hi.x ? hi : lo;
    if (!(a == out.back())) out.push_back(a);
    if (!(b == out.back())) out.push_back(b);
    if (!(last == out.back())) out.push_back(last);
  }

  for (auto right = last_in; right != points.end(); ++right) {
    if (!std::isnan(right->y)) {
      out.push_back(*right);
      break;
    }
  }
  return out;
}

}  // namespace limitscope::metrics
