// Verifies the outage what-if: the window parses from "D@HH:MM" (UTC, first at or after the
// trace's start) and "D@+OFFSET"; a steady overload through a 10-minute outage is admitted
// whole under fail-open, refused whole under fail-closed, and held near the limit by a local
// fallback (plus one fresh bucket per replica); spend follows the admitted requests.

#include "core/tuner/outage_whatif.h"

#include <gtest/gtest.h>

#include "overload_trace.h"
#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

constexpr std::int64_t k14h = test::kOverload14h;

// One key asking 10 requests/s from 13:50 to 14:30, for a limit of 1/s (capacity 10).
trace::Trace overload() {
  return test::overload_until(k14h + 1'800'000'000'000);
}

TEST(OutageWhatIf, WindowParsesAsUtcTimeOfDayOrOffset) {
  const trace::Trace t = overload();
  auto w = parse_outage("10m@14:00", t);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->start_ns, k14h);
  EXPECT_EQ(w->end_ns, k14h + 600'000'000'000);
  auto off = parse_outage("90s@+5m", t);
  ASSERT_TRUE(off.ok()) << off.error();
  EXPECT_EQ(off->start_ns, k14h - 300'000'000'000);
  EXPECT_EQ(off->end_ns, off->start_ns + 90'000'000'000);
  for (const char* bad : {"10m", "10m@25:00", "0s@14:00", "10m@13:00", "ten@14:00", "10m@+1d"}) {
    auto r = parse_outage(bad, t);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().find(std::string("--outage ") + bad), std::string::npos) << r.error();
  }
}

TEST(OutageWhatIf, EachModeOverTenMinutesOfOverload) {
  const trace::Trace t = overload();
  auto w = test::priced_outage(t, "10m@14:00");
  ASSERT_TRUE(w.ok()) << w.error();
  ASSERT_EQ(w->modes.size(), 3u);
  EXPECT_EQ(w->baseline_in_outage.admitted + w->baseline_in_outage.rejected, 6000u);
  EXPECT_NEAR(static_cast<double>(w->baseline_in_outage.admitted), 600, 2);  // 1/s
  const auto& open = w->modes[0];
  const auto& closed = w->modes[1];
  const auto& local = w->modes[2];
  EXPECT_EQ(open.mode, OutageMode::fail_open);
  EXPECT_EQ(open.in_outage.admitted, 6000u);
  // Fail-open admits every request of the window: ~5,400 more than the limit would have.
  EXPECT_NEAR(static_cast<double>(open.over_admitted_requests), 5400, 15);
  EXPECT_GT(open.extra_spend, 0);
  // gpt-4.1 at $8 per million tokens, 1,000 tokens a request.
  EXPECT_NEAR(open.extra_spend, static_cast<double>(open.over_admitted_requests) * 0.008, 1e-6);
  EXPECT_EQ(closed.in_outage.admitted, 0u);
  EXPECT_EQ(closed.in_outage.rejected, 6000u);
  EXPECT_LT(closed.extra_spend, 0);
  // Two replicas at half the limit each: the limit's rate again, plus each replica's fresh
  // bucket of 5 when the outage begins.
  EXPECT_NEAR(static_cast<double>(local.in_outage.admitted), 600 + 10, 5);
  EXPECT_LT(local.over_admitted_requests, 20);
  // The shared state was not touched during the outage: after it the limiter is full again,
  // in every mode alike.
  EXPECT_EQ(open.total.admitted - open.in_outage.admitted,
            closed.total.admitted - closed.in_outage.admitted);
}

TEST(OutageWhatIf, BadParametersAreRefused) {
  const trace::Trace t = overload();
  OutageOptions o;
  o.window = *parse_outage("10m@14:00", t);
  o.replicas = 0;
  EXPECT_FALSE(whatif_outage(t, test::bucket(Algorithm::token_bucket, 10, 1), o).ok());
  o.replicas = 1;
  EXPECT_FALSE(whatif_outage(t, test::bucket(Algorithm::token_bucket, -1, 1), o).ok());
}

}  // namespace
}  // namespace limitscope::tuner
