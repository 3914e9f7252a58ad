// Verifies the algorithm comparison: the exact sliding log never admits beyond L in any window,
// the fixed window admits up to 2L across a boundary (and the comparison measures it), counts
// equal each algorithm's replay, and state sizes are reported (the log's grows with L).
#include "core/tuner/compare.h"

#include <gtest/gtest.h>

namespace limitscope::tuner {
namespace {

TEST(Compare, MeasuresOverAdmissionAgainstTheExactWindow) {
  trace::Trace t;
  // 10 requests just before a 1 s boundary, 10 just after: a fixed window of L = 10 admits all
  // 20 within 2 ms; the log admits 10.
  for (int i = 0; i < 10; ++i) t.add(999'000'000 + i * 100'000, "a", 1);
  for (int i = 0; i < 10; ++i) t.add(1'000'000'000 + i * 100'000, "a", 1);
  auto r = compare_algorithms(t, 10, std::chrono::seconds(1));
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->size(), 5u);
  for (const auto& c : *r) {
    SCOPED_TRACE(c.params.describe());
    auto plain = replay(t, c.params);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(c.total.admitted, plain->total.admitted);
    EXPECT_GT(c.state_bytes_per_key, 0);
    if (c.params.algorithm == Algorithm::sliding_log) {
      EXPECT_EQ(c.max_window_cost, 10);
      EXPECT_EQ(c.over_admission, 0);
      EXPECT_GE(c.state_bytes_per_key, 10 * 16);
    }
    if (c.params.algorithm == Algorithm::fixed_window) {
      EXPECT_EQ(c.max_window_cost, 20);
      EXPECT_DOUBLE_EQ(c.over_admission, 1.0);
    }
  }
  EXPECT_FALSE(compare_algorithms(trace::Trace{}, 10, std::chrono::seconds(1)).ok());
  EXPECT_FALSE(compare_algorithms(t, -1, std::chrono::seconds(1)).ok());
}

}  // namespace
}  // namespace limitscope::tuner
