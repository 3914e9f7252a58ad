// Verifies that min/max decimation keeps every column's extremes and endpoints, in x order.

#include "core/metrics/decimate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace limitscope::metrics {
namespace {

TEST(Decimate, KeepsExtremesPerColumnAndBoundsOutput) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> v(-100, 100);
  std::vector<Point> pts;
  for (int i = 0; i < 100'000; ++i) pts.push_back({i * 0.01, v(rng)});
  const int columns = 640;
  auto out = decimate_min_max(pts, 0, 1000, columns);
  ASSERT_LE(out.size(), static_cast<std::size_t>(columns) * 4);
  ASSERT_TRUE(std::is_sorted(out.begin(), out.end(),
                             [](const Point& a, const Point& b) { return a.x < b.x; }));
  // For every column, the min and max of the input appear in the output.
  const double w = 1000.0 / columns;
  for (int c = 0; c < columns; ++c) {
    double lo = INFINITY, hi = -INFINITY, olo = INFINITY, ohi = -INFINITY;
    for (const auto& p : pts) {
      const int pc = std::min(columns - 1, static_cast<int>(p.x / w));
      if (pc == c) lo = std::min(lo, p.y), hi = std::max(hi, p.y);
    }
    for (const auto& p : out) {
      const int pc = std::min(columns - 1, static_cast<int>(p.x / w));
      if (pc == c) olo = std::min(olo, p.y), ohi = std::max(ohi, p.y);
    }
    ASSERT_EQ(lo, olo) << "column " << c;
    ASSERT_EQ(hi, ohi) << "column " << c;
  }
}

TEST(Decimate, SmallInputsPassThroughAndNeighboursReachEdges) {
  std::vector<Point> pts{{-5, 1}, {1, 2}, {2, 3}, {20, 4}};
  auto out = decimate_min_max(pts, 0, 10, 100);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out.front(), (Point{-5, 1}));
  EXPECT_EQ(out.back(), (Point{20, 4}));
}

TEST(Decimate, DropsNaNAndHandlesDegenerateArguments) {
  std::vector<Point> pts{{0, NAN}, {1, 1}, {1.5, NAN}, {2, 2}};
  auto out = decimate_min_max(pts, 0, 10, 1);
  for (const auto& p : out) EXPECT_FALSE(std::isnan(p.y));
  EXPECT_EQ(out.size(), 2u);
  EXPECT_TRUE(decimate_min_max(pts, 5, 5, 10).empty());
  EXPECT_TRUE(decimate_min_max(pts, 0, 10, 0).empty());
  EXPECT_TRUE(decimate_min_max({}, 0, 10, 10).empty());
}

}  // namespace
}  // namespace limitscope::metrics
