// Verifies a long live session's memory bound on simulated time: the per-key series keep
// key_samples_per_series samples while aggregate series keep samples_per_series, and the series
// of keys no longer read are removed once idle for idle_series_ms (a day of key churn leaves
// the series of the keys followed now, not of every key seen).
#include <gtest/gtest.h>

#include "core/sources/session_state.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {
namespace {

metrics::Labels level_of(const std::string& key) {
  return {{"__name__", std::string(dashboard_series::kKeyLevel)},
          {"api_key", key},
          {"tier", "gw"},
          {"model", ""}};
}

TEST(SessionRetention, PerKeySeriesKeepTheirOwnBoundAndIdleOnesGo) {
  SessionOptions o;
  o.samples_per_series = 100;
  o.key_samples_per_series = 20;
  o.idle_series_ms = 10 * 60 * 1000;  // 10 minutes
  auto made = SessionState::create(o);
  ASSERT_TRUE(made.ok()) << made.error();
  SessionState& s = **made;
  const std::int64_t t0 = 1'800'000'000'000;
  const metrics::Labels tier{{"__name__", std::string(dashboard_series::kTierRejectedRate)},
                             {"tier", "gw"}};
  // Six simulated hours at one refresh a minute; 5 keys, each replaced by a new one every hour.
  std::size_t most_series = 0;
  for (int minute = 0; minute < 6 * 60; ++minute) {
    const std::int64_t t = t0 + minute * 60'000;
    s.writing_as("redis");
    for (int k = 0; k < 5; ++k) {
      ASSERT_TRUE(s.append(
          level_of("key-" + std::to_string(k) + "-gen" + std::to_string(minute / 60)), {t, 0.5}));
    }
    ASSERT_TRUE(s.append(tier, {t, 1.0}));
    s.refreshed(t);
    most_series = std::max(most_series, s.store().series_count());
  }
  const auto levels =
      s.store().select({{*metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal,
                                                      std::string(dashboard_series::kKeyLevel))}},
                       0, t0 + 24 * 3'600'000);
  ASSERT_EQ(levels.size(), 5u) << "only this hour's keys are left";
  for (const auto& l : levels) EXPECT_EQ(l.samples.size(), 20u) << l.labels.to_string();
  const auto tiers = s.store().select(
      {{*metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal,
                                     std::string(dashboard_series::kTierRejectedRate))}},
      0, t0 + 24 * 3'600'000);
  ASSERT_EQ(tiers.size(), 1u);
  EXPECT_EQ(tiers[0].samples.size(), 100u);
  // At most two generations of keys (the new one, and the last one until it has been idle
  // for 10 minutes and a once-a-minute look finds it), plus the tier series.
  EXPECT_LE(most_series, 11u);
}

TEST(SessionRetention, WithoutAnIdleLimitNothingIsRemoved) {
  auto made = SessionState::create(SessionOptions{});
  ASSERT_TRUE(made.ok());
  SessionState& s = **made;
  const std::int64_t t0 = 1'800'000'000'000;
  ASSERT_TRUE(s.append(level_of("old"), {t0, 1.0}));
  for (int h = 1; h <= 30; ++h) {
    ASSERT_TRUE(s.append(level_of("new"), {t0 + h * 3'600'000, 1.0}));
    s.refreshed(t0 + h * 3'600'000);
  }
  EXPECT_EQ(s.store().series_count(), 2u);
}

}  // namespace
}  // namespace limitscope
