// Verifies the 429 chart's shadow line on real widgets offscreen: beside a live 1,400 429/s a
// shadow that would refuse 3/s is attached to a right-hand axis of its own, titled for it, and
// its peak is drawn high in the plot in its dashed colour (on the shared axis it would lie
// within two pixels of zero); within 10x it stays on the live axis; a log scale takes it back
// to the one axis and a linear one gives it its own again; the legend entry of a line on the
// right-hand axis says "(right axis)", and only then; in the dashboard's stack of charts
// the other charts' plots end where the 429 chart's ends, left of its second axis.

#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QLogValueAxis>
#include <QValueAxis>
#include <cstdlib>

#include "support/chart_data.h"
#include "support/qt_app.h"
#include "ui/charts/chart_stack.h"
#include "ui/charts/time_chart.h"
#include "ui/theme.h"

namespace limitscope::ui {
namespace {

constexpr std::int64_t kT0 = 1'800'000'000'000;
const QString kLive = QStringLiteral("gw-pro");
const QString kShadow = QStringLiteral("gw-pro: would refuse (shadow)");

// The 429 chart as rejection_chart builds it for a live rule with a shadow config: the rule's
// tier at `live`/s and its shadow at `shadow`/s from the 30th second on.
ChartData rejections(double live, double shadow) {
  ChartData d = test::rejections_frame();
  ChartLine l, s;
  l.name = kLive.toStdString();
  s.name = kShadow.toStdString();
  s.shadow_of = l.name;
  for (std::int64_t t = 0; t <= 60'000; t += 1'000) {
    l.points.push_back({static_cast<double>(kT0 + t), live});
    s.points.push_back({static_cast<double>(kT0 + t), t >= 30'000 ? shadow : 0.0});
  }
  d.lines = {l, s};
  return d;
}

void show(TimeChart& chart, const ChartData& d) {
  chart.setData(d, {}, kT0, kT0 + 60'000);
  chart.settleLayout();
  QApplication::processEvents();
}

TEST(ShadowAxisChart, ASmallShadowBesideALiveRunawayIsDrawnOnItsOwnRightHandAxis) {
  test::ensure_qt_app();
  applyPalette(false);
  TimeChart chart({});
  chart.resize(900, 320);
  chart.setDark(false);
  chart.show();
  show(chart, rejections(1400, 3));

  ASSERT_TRUE(chart.hasShadowAxis());
  QAbstractAxis* right = chart.lineAxisY(kShadow);
  ASSERT_NE(right, nullptr);
  EXPECT_EQ(right, chart.shadowAxis());
  EXPECT_EQ(right->alignment(), Qt::AlignRight);
  EXPECT_TRUE(chart.chart()->axes(Qt::Vertical).contains(right));
  EXPECT_TRUE(right->titleText().contains(QStringLiteral("shadow")))
      << right->titleText().toStdString();
  EXPECT_TRUE(right->titleText().contains(QStringLiteral("would refuse")));
  EXPECT_GE(chart.shadowAxis()->max(), 3.0);
  EXPECT_LE(chart.shadowAxis()->max(), 5.0) << "the shadow's axis is not fitted to its 3/s";
  QAbstractAxis* left = chart.lineAxisY(kLive);
  ASSERT_NE(left, nullptr);
  EXPECT_EQ(left->alignment(), Qt::AlignLeft);
  EXPECT_GE(qobject_cast<QValueAxis*>(left)->max(), 1400.0);

  // Drawn: the shadow's 3/s stands in the upper half of the plot, in its colour, where the
  // live axis would put it on the bottom edge.
  const QRectF plot = chart.chart()->mapToScene(chart.chart()->plotArea()).boundingRect();
  EXPECT_LT(chart.yPixel(0) - chart.yPixel(3), 2.0) << "3/s is off the live axis's zero";
  const double y = chart.yPixel(3, kShadow);
  EXPECT_LT(y, plot.top() + plot.height() / 2) << "the shadow's peak is low in the plot";
  const QImage img = chart.grab().toImage();
  const QColor color = chart.lineColor(kShadow);
  ASSERT_TRUE(color.isValid());
  int hits = 0;  // dashed: some of the columns along its peak carry its colour
  const int x0 = static_cast<int>(plot.left() + plot.width() * 0.6);
  const int x1 = static_cast<int>(plot.left() + plot.width() * 0.9);
  for (int x = x0; x < x1; ++x) {
    for (int dy = -1; dy <= 1; ++dy) {
      const QColor at = img.pixelColor(x, static_cast<int>(std::lround(y)) + dy);
      if (std::abs(at.red() - color.red()) + std::abs(at.green() - color.green()) +
              std::abs(at.blue() - color.blue()) <
          40) {
        ++hits;
        break;
      }
    }
  }
  EXPECT_GT(hits, (x1 - x0) / 4) << "the shadow line is not drawn at its peak";
}

TEST(ShadowAxisChart, TheShadowAxisTitleFitsAShortChart) {
  test::ensure_qt_app();
  for (const int height : {320, 150}) {
    SCOPED_TRACE(testing::Message() << "900x" << height);
    TimeChart chart({});
    chart.resize(900, height);
    chart.setDark(false);
    chart.show();
    for (int i = 0; i < 2; ++i) show(chart, rejections(1400, 3));  // titled by the laid-out plot
    QValueAxis* right = chart.shadowAxis();
    const int title = QFontMetrics(right->titleFont()).horizontalAdvance(right->titleText());
    EXPECT_LE(title, chart.chart()->plotArea().height())
        << "\"" << right->titleText().toStdString() << "\" is cut";
    EXPECT_TRUE(right->titleText().contains(QStringLiteral("shadow")));
    if (height == 320) {
      EXPECT_EQ(right->titleText(), QStringLiteral("would refuse/s (shadow)"));
    }
  }
}

TEST(ShadowAxisChart, WithinTenTimesTheShadowSharesTheLiveAxis) {
  test::ensure_qt_app();
  TimeChart chart({});
  chart.resize(900, 320);
  chart.setDark(false);
  show(chart, rejections(1400, 500));
  EXPECT_FALSE(chart.hasShadowAxis());
  EXPECT_EQ(chart.lineAxisY(kShadow), chart.lineAxisY(kLive));
  EXPECT_FALSE(chart.chart()->axes(Qt::Vertical).contains(chart.shadowAxis()));
  // The shadow falls to 3/s: it moves to its own axis, and back when it rises to 500/s.
  show(chart, rejections(1400, 3));
  EXPECT_TRUE(chart.hasShadowAxis());
  EXPECT_EQ(chart.lineAxisY(kShadow), chart.shadowAxis());
  show(chart, rejections(1400, 500));
  EXPECT_FALSE(chart.hasShadowAxis());
  EXPECT_EQ(chart.lineAxisY(kShadow), chart.lineAxisY(kLive));
  EXPECT_EQ(chart.chart()->axes(Qt::Vertical).size(), 1);
}

TEST(ShadowAxisChart, ALogScaleShowsBothOnOneAxisAndLinearSplitsThemAgain) {
  test::ensure_qt_app();
  TimeChart chart({});
  chart.resize(900, 320);
  chart.setDark(false);
  chart.setLogScaleToggle(true);
  show(chart, rejections(1400, 3));
  ASSERT_TRUE(chart.hasShadowAxis());
  chart.setLogScale(true);
  QApplication::processEvents();
  EXPECT_FALSE(chart.hasShadowAxis());
  EXPECT_EQ(chart.chart()->axes(Qt::Vertical).size(), 1);
  QAbstractAxis* log = chart.lineAxisY(kShadow);
  ASSERT_NE(log, nullptr);
  EXPECT_NE(qobject_cast<QLogValueAxis*>(log), nullptr);
  EXPECT_EQ(chart.lineAxisY(kLive), log);
  chart.setLogScale(false);
  QApplication::processEvents();
  EXPECT_TRUE(chart.hasShadowAxis());
  EXPECT_EQ(chart.lineAxisY(kShadow), chart.shadowAxis());
  EXPECT_NE(qobject_cast<QValueAxis*>(chart.lineAxisY(kLive)), nullptr);
  EXPECT_EQ(chart.chart()->axes(Qt::Vertical).size(), 2);
}

TEST(ShadowAxisChart, TheLegendSaysWhichLineIsOnTheRightAxis) {
  test::ensure_qt_app();
  TimeChart chart({});
  chart.resize(900, 320);
  chart.setDark(false);
  chart.setLogScaleToggle(true);
  chart.show();
  const QString right = QStringLiteral("(right axis)");
  // The legend entry of the shadow line, and of the live line (sorted, it comes first).
  const auto shadow_entry = [&] {
    QString out;
    for (const QString& l : chart.legendLabels()) {
      if (l.contains(QStringLiteral("would refuse"))) out = l;
    }
    return out;
  };
  const auto live_entry = [&] { return chart.legendLabels().value(0); };

  show(chart, rejections(1400, 500));  // within 10x: one axis
  ASSERT_FALSE(chart.hasShadowAxis());
  EXPECT_EQ(shadow_entry(), kShadow);
  EXPECT_FALSE(live_entry().contains(right));

  show(chart, rejections(1400, 3));  // its own axis, on the right
  ASSERT_TRUE(chart.hasShadowAxis());
  EXPECT_TRUE(shadow_entry().endsWith(right)) << shadow_entry().toStdString();
  // In the legend's width, and no word of it elided: "(shadow, right axis)" where it fits.
  const QFontMetrics fm(chart.chart()->legend()->font());
  EXPECT_LE(fm.horizontalAdvance(shadow_entry()), 210) << shadow_entry().toStdString();
  EXPECT_FALSE(shadow_entry().contains(QChar(0x2026))) << shadow_entry().toStdString();
  EXPECT_TRUE(shadow_entry().startsWith(QStringLiteral("gw-pro: would refuse (")));
  EXPECT_EQ(
      shadow_entry() == QStringLiteral("gw-pro: would refuse (shadow, right axis)"),
      fm.horizontalAdvance(QStringLiteral("gw-pro: would refuse (shadow, right axis)")) <= 210)
      << shadow_entry().toStdString();
  EXPECT_EQ(live_entry(), kLive) << "the live line is on the left";
  if (const char* dir = std::getenv("LIMITSCOPE_SCREENSHOT_DIR")) {
    EXPECT_TRUE(
        chart.grab().save(QString::fromUtf8(dir) + QStringLiteral("/shadow_right_axis.png")));
  }

  chart.setLogScale(true);  // one log axis shows both: no right axis
  QApplication::processEvents();
  EXPECT_FALSE(shadow_entry().contains(right)) << shadow_entry().toStdString();
  chart.setLogScale(false);
  QApplication::processEvents();
  EXPECT_TRUE(shadow_entry().endsWith(right));

  show(chart, rejections(1400, 500));  // back on the live axis
  ASSERT_FALSE(chart.hasShadowAxis());
  EXPECT_EQ(shadow_entry(), kShadow);
}

TEST(ShadowAxisChart, TheStacksPlotsShareTheirRightEdgeBesideTheShadowAxis) {
  test::ensure_qt_app();
  ChartStack stack;
  stack.resize(900, 900);
  stack.setDark(false);
  stack.show();
  ChartData levels;
  levels.kind = ChartKind::bucket_levels;
  levels.title = "Bucket levels (lowest keys)";
  levels.unit = "of capacity";
  levels.y_max = 1.0;
  ChartLine key;
  key.name = "acme-chat / gpt-4.1 / requests";
  key.points = {{double(kT0), 0.5}, {double(kT0 + 60'000), 0.2}};
  levels.lines = {key};
  ChartData occupancy = levels;
  occupancy.kind = ChartKind::window_occupancy;
  ChartData burn = levels;
  burn.kind = ChartKind::quota_burn;
  const auto right_edges = [&] {
    std::vector<double> out;
    for (int i = 0; i < 4; ++i) {
      TimeChart* c = stack.chart(i);
      out.push_back(c->chart()->mapToScene(c->chart()->plotArea()).boundingRect().right());
    }
    return out;
  };
  for (const double shadow : {3.0, 500.0}) {
    SCOPED_TRACE(testing::Message() << "shadow at " << shadow << "/s beside 1,400/s");
    for (int i = 0; i < 3; ++i) {  // the stack aligns on the update after a layout
      stack.setData({levels, occupancy, rejections(1400, shadow), burn}, {}, kT0, kT0 + 60'000);
      QApplication::processEvents();
    }
    ASSERT_EQ(stack.chart(2)->hasShadowAxis(), shadow < 10);
    const std::vector<double> edges = right_edges();
    for (int i : {0, 1, 3})
      EXPECT_NEAR(edges[static_cast<std::size_t>(i)], edges[2], 1.0) << "chart " << i;
    if (shadow >= 10) {
      // No shadow axis: no chart keeps a pad on the right.
      EXPECT_NEAR(edges[0], stack.chart(0)->naturalPlotRight(), 1.0);
    }
  }
}

}  // namespace
}  // namespace limitscope::ui
