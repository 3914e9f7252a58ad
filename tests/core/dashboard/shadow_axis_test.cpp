// Verifies where the 429 chart draws a shadow config's "would refuse" line: on an axis of its
// own when it and the live lines are more than 10x apart (either way round), on the live axis
// otherwise, never apart on a log axis or when one side is all zero, and that once apart the
// lines stay apart until they are within 5x (so a ratio near 10 does not flip every refresh).

#include "core/dashboard/shadow_axis.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace limitscope {
namespace {

ChartLine flat(const std::string& name, double value, bool shadow) {
  ChartLine l;
  l.name = name;
  l.points = {{0.0, 0.0}, {1000.0, value}, {2000.0, value / 2}};
  if (shadow) l.shadow_of = "gw-pro";
  return l;
}

// The 429 chart with a live tier at `live` 429/s and its shadow at `shadow`/s.
ChartData rejections(double live, double shadow) {
  ChartData c;
  c.kind = ChartKind::rejections;
  c.lines = {flat("gw-pro", live, false), flat("gw-pro: would refuse (shadow)", shadow, true)};
  return c;
}

TEST(ShadowAxis, ALiveRunawayBesideASmallShadowPutsTheShadowOnItsOwnAxis) {
  const ShadowAxisChoice c = choose_shadow_axis(rejections(1400, 3), false, false);
  EXPECT_TRUE(c.own_axis);
  EXPECT_DOUBLE_EQ(c.live_peak, 1400);
  EXPECT_DOUBLE_EQ(c.shadow_peak, 3);
}

TEST(ShadowAxis, AShadowFarAboveTheLiveLinesGetsItsOwnAxisToo) {
  EXPECT_TRUE(choose_shadow_axis(rejections(2, 500), false, false).own_axis);
}

TEST(ShadowAxis, WithinTenTimesTheyShareTheLiveAxis) {
  EXPECT_FALSE(choose_shadow_axis(rejections(1400, 500), false, false).own_axis);
  EXPECT_FALSE(choose_shadow_axis(rejections(100, 10), false, false).own_axis);  // exactly 10x
  EXPECT_TRUE(choose_shadow_axis(rejections(100, 9.9), false, false).own_axis);
}

TEST(ShadowAxis, OnceApartTheyStayApartUntilWithinFiveTimes) {
  struct Row {
    double shadow;
    bool before, own;
  };
  for (const Row& r : {Row{14, false, false}, Row{14, true, true}, Row{19.9, true, true},
                       Row{20, true, false}, Row{20, false, false}, Row{9, false, true}}) {
    SCOPED_TRACE(testing::Message()
                 << "live 100/s, shadow " << r.shadow << "/s, apart before " << r.before);
    EXPECT_EQ(choose_shadow_axis(rejections(100, r.shadow), false, r.before).own_axis, r.own);
  }
}

TEST(ShadowAxis, ALogAxisKeepsThemTogether) {
  EXPECT_FALSE(choose_shadow_axis(rejections(1400, 3), true, false).own_axis);
  EXPECT_FALSE(choose_shadow_axis(rejections(1400, 3), true, true).own_axis);
}

TEST(ShadowAxis, AnAllZeroSideHasNoScaleToShowApart) {
  // A candidate that would refuse nothing: its zero line on the live axis says so.
  EXPECT_FALSE(choose_shadow_axis(rejections(1400, 0), false, false).own_axis);
  EXPECT_FALSE(choose_shadow_axis(rejections(0, 3), false, true).own_axis);
}

TEST(ShadowAxis, TheLiveAxisKeepsRoomForItsThreshold) {
  // Live 0.2/s, five times the shadow's 0.04/s, under a 0.5/s threshold: the live axis
  // reaches 0.5, twelve times the shadow.
  ChartData c = rejections(0.2, 0.04);
  EXPECT_FALSE(choose_shadow_axis(c, false, false).own_axis);
  c.thresholds = {0.5};
  const ShadowAxisChoice with = choose_shadow_axis(c, false, false);
  EXPECT_TRUE(with.own_axis);
  EXPECT_DOUBLE_EQ(with.live_peak, 0.5);
}

TEST(ShadowAxis, AChartWithoutAShadowOrWithAFixedRangeHasOneAxis) {
  ChartData c = rejections(1400, 3);
  c.lines.pop_back();
  EXPECT_FALSE(choose_shadow_axis(c, false, true).own_axis);
  ChartData fractions = rejections(0.9, 0.01);
  fractions.y_max = 1.0;
  EXPECT_FALSE(choose_shadow_axis(fractions, false, false).own_axis);
}

}  // namespace
}  // namespace limitscope
