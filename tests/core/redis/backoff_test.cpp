// Verifies Backoff: delays grow by the factor up to the cap, stay within the jitter band,
// reset after a success, and repeat exactly for the same seed.
#include "core/redis/backoff.h"

#include <gtest/gtest.h>

namespace limitscope::redis {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, GrowsWithinTheJitterBandUpToTheCap) {
  BackoffOptions o;
  o.initial = milliseconds(100);
  o.max = milliseconds(1000);
  o.factor = 2;
  o.jitter = 0.5;
  Backoff b(o, 7);
  const double nominal[] = {100, 200, 400, 800, 1000, 1000, 1000};
  for (double n : nominal) {
    const double d = static_cast<double>(b.next_delay().count()) / 1e6;
    EXPECT_GE(d, n * 0.5 - 1e-6);
    EXPECT_LE(d, n + 1e-6);
  }
  EXPECT_EQ(b.attempts(), 7);
  b.reset();
  const double first = static_cast<double>(b.next_delay().count()) / 1e6;
  EXPECT_LE(first, 100.0);
}

TEST(Backoff, NoJitterIsExactAndSameSeedRepeats) {
  BackoffOptions o;
  o.initial = milliseconds(10);
  o.max = milliseconds(70);
  o.jitter = 0;
  Backoff exact(o);
  EXPECT_EQ(exact.next_delay(), milliseconds(10));
  EXPECT_EQ(exact.next_delay(), milliseconds(20));
  EXPECT_EQ(exact.next_delay(), milliseconds(40));
  EXPECT_EQ(exact.next_delay(), milliseconds(70));

  BackoffOptions j;
  Backoff a(j, 99);
  Backoff b(j, 99);
  Backoff c(j, 100);
  bool differs = false;
  for (int i = 0; i < 8; ++i) {
    const Nanos da = a.next_delay();
    EXPECT_EQ(da, b.next_delay());
    differs = differs || da != c.next_delay();
  }
  EXPECT_TRUE(differs) << "two seeds gave the same jitter sequence";
}

}  // namespace
}  // namespace limitscope::redis
