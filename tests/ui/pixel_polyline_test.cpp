// Verifies that a chart line is mapped to the plot's pixels and thinned to the lowest and
// highest point of each pixel column, in the order they came, on a linear and a log scale, and
// the y scale every part of a chart places values by (YScale).

#include "ui/charts/pixel_polyline.h"

#include <gtest/gtest.h>

namespace limitscope::ui {
namespace {

PlotMapping plot_100x100() {
  PlotMapping m;
  m.plot = QRectF(10, 20, 100, 100);  // x 10..110, y 20 (top) .. 120 (bottom)
  m.start_ms = 1000;
  m.ms_per_px = 10;  // 1,000 ms across the plot
  m.y = YScale(0, 1, false);
  return m;
}

TEST(PixelPolyline, MapsTimeAndValueToPixels) {
  QPolygonF out;
  pixel_polyline({{1000, 0.0}, {1500, 0.5}, {2000, 1.0}}, plot_100x100(), out);
  EXPECT_EQ(out, QPolygonF({QPointF(10, 120), QPointF(60, 70), QPointF(110, 20)}));
}

TEST(PixelPolyline, KeepsEachColumnsLowestAndHighestInTheirOrder) {
  QPolygonF out;
  // Column 10 (1000..1009 ms): 0.5, 0.9 (highest), 0.2, 0.1 (lowest), 0.4: the highest came
  // first. Column 11: 0.3, then 0.3 again (one point). Column 12: 0.2, then 0.8.
  pixel_polyline({{1000, 0.5},
                  {1002, 0.9},
                  {1004, 0.2},
                  {1006, 0.1},
                  {1008, 0.4},
                  {1010, 0.3},
                  {1015, 0.3},
                  {1020, 0.2},
                  {1025, 0.8}},
                 plot_100x100(), out);
  ASSERT_EQ(out.size(), 5);
  EXPECT_EQ(out[0], QPointF(10.2, 30));   // 0.9 at 1002 ms
  EXPECT_EQ(out[1], QPointF(10.6, 110));  // 0.1 at 1006 ms
  EXPECT_EQ(out[2], QPointF(11, 90));     // 0.3, once
  EXPECT_EQ(out[3], QPointF(12, 100));    // 0.2, then
  EXPECT_EQ(out[4], QPointF(12.5, 40));   // 0.8
}

TEST(PixelPolyline, ALogScalePutsDecadesEvenlyAndWhatIsBelowOnTheBottomEdge) {
  PlotMapping m = plot_100x100();
  m.y = YScale(0.1, 1000, true);  // four decades, 25 px each
  QPolygonF out;
  pixel_polyline({{1000, 0.0}, {1100, 1.0}, {1200, 100.0}, {1300, 1000.0}}, m, out);
  ASSERT_EQ(out.size(), 4);
  EXPECT_EQ(out[0], QPointF(10, 120));
  EXPECT_DOUBLE_EQ(out[1].y(), 95);
  EXPECT_DOUBLE_EQ(out[2].y(), 45);
  EXPECT_DOUBLE_EQ(out[3].y(), 20);
}

TEST(YScale, ALinearScaleRunsFromLoToHiAndBeyond) {
  const YScale y(-2, 6, false);
  EXPECT_DOUBLE_EQ(y.fraction(-2), 0);
  EXPECT_DOUBLE_EQ(y.fraction(0), 0.25);
  EXPECT_DOUBLE_EQ(y.fraction(6), 1);
  EXPECT_DOUBLE_EQ(y.fraction(10), 1.5);  // above the range: above the top edge (clipped)
}

TEST(YScale, ALogScaleSpacesDecadesEvenlyAndPutsWhatIsAtOrBelowItsBottomOnTheEdge) {
  const YScale y(0.01, 100, true);  // four decades
  EXPECT_DOUBLE_EQ(y.fraction(0.1), 0.25);
  EXPECT_DOUBLE_EQ(y.fraction(10), 0.75);
  EXPECT_DOUBLE_EQ(y.fraction(100), 1);
  EXPECT_EQ(y.fraction(0.01), 0);
  EXPECT_EQ(y.fraction(0.001), 0);  // below the lowest decade: not below the plot
  EXPECT_EQ(y.fraction(0), 0);
  EXPECT_EQ(y.fraction(-3), 0);
}

TEST(YScale, AnEmptyRangePutsEveryValueOnTheBottomEdge) {
  EXPECT_EQ(YScale(5, 5, false).fraction(7), 0);
  EXPECT_EQ(YScale(1, 1, true).fraction(7), 0);
  EXPECT_EQ(YScale(0, 10, true).fraction(7), 0);  // no decade starts at zero
}

TEST(PixelPolyline, PlacesValuesWhereTheScaleDoes) {
  PlotMapping m = plot_100x100();
  m.y = YScale(0.05, 500, true);
  QPolygonF out;
  pixel_polyline({{1000, 0.02}, {1300, 0.7}, {1600, 42.0}}, m, out);
  ASSERT_EQ(out.size(), 3);
  EXPECT_DOUBLE_EQ(out[0].y(), 120);
  EXPECT_DOUBLE_EQ(out[1].y(), 120 - 100 * m.y.fraction(0.7));
  EXPECT_DOUBLE_EQ(out[2].y(), 120 - 100 * m.y.fraction(42.0));
}

TEST(PixelPolyline, AnEmptyLineIsEmpty) {
  QPolygonF out{QPointF(1, 1)};
  pixel_polyline({}, plot_100x100(), out);
  EXPECT_TRUE(out.isEmpty());
}

}  // namespace
}  // namespace limitscope::ui
