// Verifies Go-compatible number formatting against outputs recorded from promtool 2.42.

#include "core/metrics/go_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace limitscope::metrics::gofmt {
namespace {

// Each row was rendered by promtool 2.42 through an annotation using the same function.
struct Row {
  double v;
  const char* value;     // {{ $value }}
  const char* humanize;  // {{ $value | humanize }}
  const char* h1024;     // humanize1024
  const char* duration;  // humanizeDuration
  const char* percent;   // humanizePercentage
  const char* printf;    // printf "%.2f|%g|%e|%v|%5.1f|%s" v v v v v "s"
};

TEST(GoFormat, MatchesPromtoolOutputs) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Row rows[] = {
      {1234567, "1.234567e+06", "1.235M", "1.177Mi", "14d 6h 56m 7s", "1.235e+08%",
       "1234567.00|1.234567e+06|1.234567e+06|1.234567e+06|1234567.0|s"},
      {1e6, "1e+06", "1M", "976.6ki", "11d 13h 46m 40s", "1e+08%",
       "1000000.00|1e+06|1.000000e+06|1e+06|1000000.0|s"},
      {0.5, "0.5", "500m", "0.5", "500ms", "50%", "0.50|0.5|5.000000e-01|0.5|  0.5|s"},
      {123456, "123456", "123.5k", "120.6ki", "1d 10h 17m 36s", "1.235e+07%",
       "123456.00|123456|1.234560e+05|123456|123456.0|s"},
      {nan, "NaN", "NaN", "NaN", "NaN", "NaN%", "NaN|NaN|NaN|NaN|  NaN|s"},
      {-inf, "-Inf", "-Inf", "-Inf", "-Inf", "-Inf%", "-Inf|-Inf|-Inf|-Inf| -Inf|s"},
      {1e20, "1e+20", "100E", "86.74Ei", "-106751991167300d -15h -30m -8s", "1e+22%",
       "100000000000000000000.00|1e+20|1.000000e+20|1e+20|100000000000000000000.0|s"},
      {1e21, "1e+21", "1Z", "867.4Ei", "-106751991167300d -15h -30m -8s", "1e+23%",
       "1000000000000000000000.00|1e+21|1.000000e+21|1e+21|1000000000000000000000.0|s"},
      {0.0001, "0.0001", "100u", "0.0001", "100us", "0.01%",
       "0.00|0.0001|1.000000e-04|0.0001|  0.0|s"},
      {1.5e-7, "1.5e-07", "150n", "1.5e-07", "150ns", "1.5e-05%",
       "0.00|1.5e-07|1.500000e-07|1.5e-07|  0.0|s"},
      {-0.001, "-0.001", "-1m", "-0.001", "-1ms", "-0.1%",
       "-0.00|-0.001|-1.000000e-03|-0.001| -0.0|s"},
      {12345.678, "12345.678", "12.35k", "12.06ki", "3h 25m 45s", "1.235e+06%",
       "12345.68|12345.678|1.234568e+04|12345.678|12345.7|s"},
      {3, "3", "3", "3", "3s", "300%", "3.00|3|3.000000e+00|3|  3.0|s"},
      {1e-300, "1e-300", "1e-276y", "1e-300", "1e-276ys", "1e-298%",
       "0.00|1e-300|1.000000e-300|1e-300|  0.0|s"},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.value);
    EXPECT_EQ(format_float_v(r.v), r.value);
    EXPECT_EQ(humanize(r.v), r.humanize);
    EXPECT_EQ(humanize1024(r.v), r.h1024);
    EXPECT_EQ(humanize_duration(r.v), r.duration);
    EXPECT_EQ(humanize_percentage(r.v), r.percent);
    EXPECT_EQ(sprintf("%.2f|%g|%e|%v|%5.1f|%s", {r.v, r.v, r.v, r.v, r.v, std::string("s")}),
              r.printf);
  }
}

TEST(GoFormat, BriefExamples) {
  EXPECT_EQ(humanize(1234567), "1.235M");
  EXPECT_EQ(humanize_duration(90), "1m 30s");
  EXPECT_EQ(humanize_percentage(0.123), "12.3%");
  EXPECT_EQ(humanize_duration(0), "0s");
  EXPECT_EQ(humanize(0), "0");
}

TEST(GoFormat, UpperEAsPromtoolPrintsSamples) {
  EXPECT_EQ(format_float_upper_e(1234567), "1.234567E+06");
  EXPECT_EQ(format_float_upper_e(1e6), "1E+06");
  EXPECT_EQ(format_float_upper_e(0.30000000000000004), "3.0000000000000004E-01");
  EXPECT_EQ(format_float_upper_e(1), "1E+00");
  EXPECT_EQ(format_float_upper_e(std::nan("")), "NaN");
}

TEST(GoFormat, PrintfMismatchesRenderAsGo) {
  EXPECT_EQ(sprintf("%d", {1.5}), "%!d(float64=1.5)");
  EXPECT_EQ(sprintf("%f", {std::int64_t{90}}), "%!f(int=90)");
  EXPECT_EQ(sprintf("%s %s", {std::string("a")}), "a %!s(MISSING)");
  EXPECT_EQ(sprintf("x", {std::string("a")}), "x%!(EXTRA string=a)");
  EXPECT_EQ(sprintf("100%%", {}), "100%");
  EXPECT_EQ(sprintf("%q", {std::string("a\"b")}), "\"a\\\"b\"");
  EXPECT_EQ(sprintf("%05d|%-4d|%x", {std::int64_t{42}, std::int64_t{7}, std::int64_t{255}}),
            "00042|7   |ff");
  EXPECT_EQ(sprintf("%f", {std::numeric_limits<double>::infinity()}), "+Inf");
}

TEST(GoFormat, ParseFloatAsStrconv) {
  EXPECT_EQ(*parse_float("1e3"), 1000);
  EXPECT_TRUE(std::isinf(*parse_float("+Inf")));
  EXPECT_TRUE(std::isnan(*parse_float("NaN")));
  EXPECT_EQ(parse_float("abc").error(), "strconv.ParseFloat: parsing \"abc\": invalid syntax");
  EXPECT_FALSE(parse_float("").ok());
  EXPECT_FALSE(parse_float("1x").ok());
}

TEST(GoFormat, HumanizeTimestamp) {
  EXPECT_EQ(humanize_timestamp(1), "1970-01-01 00:00:01 +0000 UTC");
  EXPECT_EQ(humanize_timestamp(1.5), "1970-01-01 00:00:01.5 +0000 UTC");
  // 1700000000.123 * 1e9 truncates to ...122999808 ns, as in Go.
  EXPECT_EQ(humanize_timestamp(1700000000.123), "2023-11-14 22:13:20.122 +0000 UTC");
}

}  // namespace
}  // namespace limitscope::metrics::gofmt
