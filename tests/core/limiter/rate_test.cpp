// Verifies that rates and durations parse only with units and name the bad input.

#include "core/limiter/rate.h"

#include <gtest/gtest.h>

namespace limitscope {
namespace {

struct RateRow {
  const char* text;
  double per_second;
};

class RateParse : public ::testing::TestWithParam<RateRow> {};

TEST_P(RateParse, ConvertsUnits) {
  auto r = parse_rate(GetParam().text);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_DOUBLE_EQ(r->per_second(), GetParam().per_second);
}

INSTANTIATE_TEST_SUITE_P(Units, RateParse,
                         ::testing::Values(RateRow{"50/s", 50}, RateRow{"100/min", 100.0 / 60},
                                           RateRow{"1000/h", 1000.0 / 3600}, RateRow{"86400/d", 1},
                                           RateRow{" 2.5 / sec ", 2.5}, RateRow{"100/10s", 10},
                                           RateRow{"1/ms", 1000}));

TEST(RateParseErrors, RefusesBareNumbersAndBadUnits) {
  for (const char* bad :
       {"100", "100/", "/s", "abc/s", "-1/s", "0/s", "nan/s", "inf/s", "10/fortnight", "1e400/s"}) {
    auto r = parse_rate(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().find(bad), std::string::npos) << r.error();
    }
  }
}

TEST(DurationParse, ParsesAndFormats) {
  EXPECT_EQ(parse_duration("60s").value(), std::chrono::seconds(60));
  EXPECT_EQ(parse_duration("1.5s").value(), std::chrono::milliseconds(1500));
  EXPECT_EQ(parse_duration("5m").value(), std::chrono::minutes(5));
  EXPECT_EQ(format_duration(std::chrono::minutes(5)), "5m");
  EXPECT_EQ(format_duration(std::chrono::milliseconds(250)), "250ms");
  EXPECT_FALSE(parse_duration("60").ok());
  EXPECT_FALSE(parse_duration("-1s").ok());
  EXPECT_FALSE(parse_duration("0s").ok());
}

TEST(RateFormat, RoundTrips) {
  EXPECT_EQ(parse_rate("100/min")->to_string(), "100/min");
  EXPECT_EQ(parse_rate("50/s")->to_string(), "50/s");
}

}  // namespace
}  // namespace limitscope
