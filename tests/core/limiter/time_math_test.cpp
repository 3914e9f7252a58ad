// time_math's rounding without libm calls must equal std::ceil / std::llround wherever the
// algorithms use them (0 < ns < 2^61), or decisions would drift from the Lua scripts.

#include "core/limiter/time_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace limitscope {
namespace {

using time_math::ceil_ns;
using time_math::kFarNs;
using time_math::round_ns;

std::int64_t ceil_reference(double ns) {
  if (!(ns > 0)) return 0;
  if (ns >= static_cast<double>(kFarNs)) return kFarNs;
  return static_cast<std::int64_t>(std::ceil(ns));
}

std::int64_t round_reference(double ns) {
  if (!(ns > 0)) return 0;
  if (ns >= static_cast<double>(kFarNs)) return kFarNs;
  return std::llround(ns);
}

std::vector<double> edge_values() {
  std::vector<double> v = {0.0,
                           -0.0,
                           -1.0,
                           1e-300,
                           0.49999999999999994,
                           0.5,
                           0.5000000000000001,
                           1.0,
                           1.5,
                           2.5,
                           3.4999999999999996,
                           1e9 + 0.5,
                           4503599627370495.5,
                           4503599627370496.0,
                           4503599627370497.0,
                           9007199254740993.0,
                           static_cast<double>(kFarNs),
                           static_cast<double>(kFarNs) * 2,
                           std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  // Neighbours of whole and half numbers across the magnitudes, and of 2^52, 2^53, 2^61.
  for (double base : {1.0, 7.0, 1e3, 123456789.0, 4503599627370496.0, 9007199254740992.0,
                      static_cast<double>(kFarNs)}) {
    for (double x : {base, base + 0.5}) {
      double lo = x;
      double hi = x;
      for (int i = 0; i < 3; ++i) {
        lo = std::nextafter(lo, 0.0);
        hi = std::nextafter(hi, std::numeric_limits<double>::infinity());
        v.push_back(lo);
        v.push_back(hi);
      }
      v.push_back(x);
    }
  }
  return v;
}

TEST(TimeMath, CeilAndRoundEqualLibmOnEdges) {
  for (double x : edge_values()) {
    EXPECT_EQ(ceil_ns(x), ceil_reference(x)) << "ceil_ns(" << x << ")";
    EXPECT_EQ(round_ns(x), round_reference(x)) << "round_ns(" << x << ")";
  }
}

TEST(TimeMath, CeilAndRoundEqualLibmOnRandomDoubles) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-20, 63);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 200'000; ++i) {
    const double x = std::pow(2.0, exponent(rng)) * unit(rng);
    ASSERT_EQ(ceil_ns(x), ceil_reference(x)) << "ceil_ns(" << x << ")";
    ASSERT_EQ(round_ns(x), round_reference(x)) << "round_ns(" << x << ")";
  }
}

}  // namespace
}  // namespace limitscope
