// Verifies that a TimeChart draws exactly the core chart data it is given: lines by name,
// replaced points, removed lines, alert shading for its own rules only.

#include "ui/charts/time_chart.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <memory>

#include "support/qt_app.h"
#include "ui/charts/axis_range.h"
#include "ui/theme.h"

namespace limitscope::ui {
namespace {

ChartData two_lines() {
  ChartData d;
  d.title = "levels";
  d.unit = "share";
  d.y_max = 1.0;
  d.thresholds = {0.5};
  ChartLine a;
  a.name = "alpha";
  a.points = {{1000, 0.2}, {2000, 0.4}, {3000, 0.6}};
  ChartLine b;
  b.name = "beta";
  b.points = {{1000, 0.9}, {3000, 0.1}};
  d.lines = {a, b};
  return d;
}

TEST(TimeChart, ShowsLinesAndReplacesPoints) {
  test::ensure_qt_app();
  TimeChart chart({QStringLiteral("RuleA")});
  chart.resize(800, 300);
  applyPalette(false);
  chart.setDark(false);
  chart.show();
  ChartData d = two_lines();
  chart.setData(d, {}, 0, 4000);
  ASSERT_EQ(chart.lineCount(), 2);
  EXPECT_EQ(chart.pointsOf(QStringLiteral("alpha")),
            (QList<QPointF>{{1000, 0.2}, {2000, 0.4}, {3000, 0.6}}));
  d.lines.pop_back();
  d.lines[0].points.push_back({3500, 0.7});
  chart.setData(d, {}, 0, 4000);
  EXPECT_EQ(chart.lineCount(), 1);
  EXPECT_EQ(chart.pointsOf(QStringLiteral("alpha")).size(), 4);
  EXPECT_TRUE(chart.pointsOf(QStringLiteral("beta")).isEmpty());
  // Every line is named in the legend.
  QApplication::processEvents();
  EXPECT_TRUE(chart.chart()->legend()->isVisible());
  EXPECT_GT(chart.chart()->legend()->geometry().width(), 10);
  const QString tip = chart.valuesAt(3200);
  EXPECT_TRUE(tip.contains(QStringLiteral("alpha: 0.6"))) << tip.toStdString();
}

// The chart as painted (grab: the same paintEvent as a repaint), its layouts settled.
QImage painted(TimeChart& chart, const ChartData& d) {
  chart.setData(d, {}, 0, 4000);
  chart.settleLayout();
  QApplication::processEvents();
  return chart.grab().toImage();
}

TEST(TimeChart, PaintsAfterAChangeWhatAChartShownOnceWithTheDataPaints) {
  // QtCharts' items are painted from a kept picture until the scene changes: a chart that
  // showed other data must paint what a new chart shows, whether its axes, title and legend
  // changed or only its lines.
  test::ensure_qt_app();
  applyPalette(false);
  const auto make = [] {
    auto c = std::make_unique<TimeChart>(QStringList{});
    c->resize(800, 300);
    c->setDark(false);
    c->show();
    return c;
  };
  ChartData first = two_lines();
  ChartData lines_moved = first;  // same axes, title and legend
  lines_moved.lines[0].points = {{1000, 0.7}, {2500, 0.1}, {3000, 0.3}};
  ChartData all_changed = first;  // another range, title, unit and legend entry
  all_changed.title = "levels, other";
  all_changed.unit = "tokens";
  all_changed.y_max = 250;
  all_changed.lines[1].name = "gamma";
  all_changed.lines[1].points = {{1000, 240}, {3000, 20}};
  for (const ChartData* next : {&lines_moved, &all_changed}) {
    auto shown = make();
    const QImage before = painted(*shown, first);
    const QImage after = painted(*shown, *next);
    auto fresh = make();
    const QImage expected = painted(*fresh, *next);
    ASSERT_EQ(after.size(), expected.size());
    EXPECT_NE(after, before) << next->title;
    EXPECT_EQ(after, expected) << "a chart that showed other data paints something else ("
                               << next->title << ")";
  }
}

TEST(TimeChart, ShadesOnlyItsRulesInsideTheWindow) {
  test::ensure_qt_app();
  TimeChart chart({QStringLiteral("RuleA")});
  chart.resize(800, 300);
  std::vector<AlertInterval> ivs{{"RuleA", 1000, 2000, false},
                                 {"RuleA", 2000, 3000, true},
                                 {"RuleB", 1000, 3000, true},
                                 {"RuleA", 9000, 9500, true}};
  chart.setData(two_lines(), ivs, 0, 4000);
  ASSERT_EQ(chart.shadedIntervals().size(), 2u);
  EXPECT_FALSE(chart.shadedIntervals()[0].firing);
  EXPECT_TRUE(chart.shadedIntervals()[1].firing);
  // The firing band is drawn: a pixel inside it is redder than one outside any band.
  chart.show();
  const QImage img = chart.grab().toImage();
  ASSERT_FALSE(img.isNull());
  const QRectF plot = chart.chart()->mapToScene(chart.chart()->plotArea()).boundingRect();
  const int y = static_cast<int>(plot.top() + plot.height() * 0.03);
  const auto x_at = [&](double t) {
    return static_cast<int>(plot.left() + plot.width() * t / 4000.0);
  };
  const QColor inside = img.pixelColor(x_at(2500), y);
  const QColor outside = img.pixelColor(x_at(500), y);
  EXPECT_GT(inside.red() - inside.green(), outside.red() - outside.green() + 20)
      << "inside " << inside.name().toStdString() << " outside " << outside.name().toStdString();
}

TEST(AxisRange, RoundsToWholeStepsAndKeepsAGivenMaximum) {
  const AxisRange r = nice_range(0, 1.15, 5);  // steps of 0.5: 0, 0.5, 1, 1.5
  EXPECT_DOUBLE_EQ(r.lo, 0);
  EXPECT_DOUBLE_EQ(r.hi, 1.5);
  EXPECT_EQ(r.ticks, 4);
  ChartData d;
  d.lines = {ChartLine{}};
  d.lines[0].points = {{0, 0.2}, {1, 1500}};
  d.thresholds = {0.5};
  const AxisRange linear = y_range(d, false, 5);  // 1,500 x 1.15 = 1,725: steps of 500
  EXPECT_DOUBLE_EQ(linear.lo, 0);
  EXPECT_DOUBLE_EQ(linear.hi, 2000);
  const AxisRange log = y_range(d, true, 5);  // whole decades around 0.2 .. 1,500
  EXPECT_DOUBLE_EQ(log.lo, 0.1);
  EXPECT_DOUBLE_EQ(log.hi, 10000);
  d.y_max = 1.0;
  const AxisRange fixed = y_range(d, false, 6);
  EXPECT_DOUBLE_EQ(fixed.hi, 1.0);
  EXPECT_EQ(fixed.ticks, 6);
}

}  // namespace
}  // namespace limitscope::ui
