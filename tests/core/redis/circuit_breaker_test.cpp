// Verifies CircuitBreaker's transitions on explicit times: it opens after N consecutive
// failures (a success in between resets the count), refuses calls during the cooldown, lets
// exactly one half-open probe through, and closes or re-opens on the probe's outcome.
#include "core/redis/circuit_breaker.h"

#include <gtest/gtest.h>

namespace limitscope::redis {
namespace {

using std::chrono::milliseconds;

CircuitBreaker make() {
  return CircuitBreaker(BreakerOptions{3, milliseconds(500)});
}

TEST(CircuitBreaker, OpensAfterConsecutiveFailuresOnly) {
  auto b = make();
  const Nanos t{0};
  b.record_failure(t);
  b.record_failure(t);
  b.record_success(t);  // resets the run
  b.record_failure(t);
  b.record_failure(t);
  EXPECT_EQ(b.state(t), BreakerState::closed);
  EXPECT_TRUE(b.allow(t));
  b.record_failure(t);
  EXPECT_EQ(b.state(t), BreakerState::open);
  EXPECT_EQ(b.counters().opened_total, 1u);
  EXPECT_EQ(b.counters().failures_total, 5u);
}

TEST(CircuitBreaker, CooldownThenOneProbeThatCloses) {
  auto b = make();
  for (int i = 0; i < 3; ++i) b.record_failure(Nanos{0});
  EXPECT_FALSE(b.allow(milliseconds(499)));
  EXPECT_TRUE(b.allow(milliseconds(500)));  // the probe
  EXPECT_EQ(b.state(milliseconds(500)), BreakerState::half_open);
  EXPECT_FALSE(b.allow(milliseconds(501)));  // only one probe at a time
  b.record_success(milliseconds(510));
  EXPECT_EQ(b.state(milliseconds(510)), BreakerState::closed);
  EXPECT_TRUE(b.allow(milliseconds(511)));
  EXPECT_EQ(b.counters().short_circuited_total, 2u);
}

TEST(CircuitBreaker, FailedProbeReopensForAnotherCooldown) {
  auto b = make();
  for (int i = 0; i < 3; ++i) b.record_failure(Nanos{0});
  ASSERT_TRUE(b.allow(milliseconds(600)));
  b.record_failure(milliseconds(650));
  EXPECT_EQ(b.state(milliseconds(650)), BreakerState::open);
  EXPECT_FALSE(b.allow(milliseconds(1100)));
  EXPECT_TRUE(b.allow(milliseconds(1150)));
  EXPECT_EQ(b.counters().opened_total, 2u);
}

}  // namespace
}  // namespace limitscope::redis
