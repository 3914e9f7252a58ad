// Verifies durations rounded up to whole seconds and milliseconds, and the Retry-After a wait
// gives (at least 1 s).

#include "core/common/duration_round.h"

#include <gtest/gtest.h>

namespace limitscope {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct Row {
  Nanos in;
  std::int64_t out;
};

TEST(WholeSecondsUp, RoundsUp) {
  for (const Row& r :
       {Row{Nanos{0}, 0}, Row{Nanos{-5}, 0}, Row{Nanos{1}, 1}, Row{milliseconds(999), 1},
        Row{seconds(1), 1}, Row{seconds(1) + Nanos{1}, 2}, Row{milliseconds(2500), 3}}) {
    EXPECT_EQ(whole_seconds_up(r.in), r.out) << r.in.count();
  }
}

TEST(WholeMillisUp, RoundsUp) {
  for (const Row& r :
       {Row{Nanos{0}, 0}, Row{Nanos{-5}, 0}, Row{Nanos{1}, 1}, Row{milliseconds(1), 1},
        Row{milliseconds(1) + Nanos{1}, 2}, Row{milliseconds(2734), 2734}}) {
    EXPECT_EQ(whole_millis_up(r.in), r.out) << r.in.count();
  }
}

TEST(RetryAfterSeconds, RoundsUpAndIsAtLeastOne) {
  for (const Row& r : {Row{Nanos{0}, 1}, Row{Nanos{-5}, 1}, Row{Nanos{1}, 1}, Row{seconds(1), 1},
                       Row{milliseconds(1001), 2}, Row{seconds(60), 60}}) {
    EXPECT_EQ(retry_after_seconds(r.in), r.out) << r.in.count();
  }
}

}  // namespace
}  // namespace limitscope
