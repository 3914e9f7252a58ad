// Verifies the store's retention for long sessions: a metric given its own ring capacity keeps
// exactly that many samples (the rest the default), and drop_idle removes the series whose
// newest sample is older than the cut, from selections too, and nothing else.
#include <gtest/gtest.h>

#include "core/metrics/series_store.h"

namespace limitscope::metrics {
namespace {

Labels series(const std::string& name, const std::string& key) {
  return Labels{{"__name__", name}, {"api_key", key}};
}

std::vector<LabelMatcher> by_name(const std::string& name) {
  return {*LabelMatcher::make("__name__", MatchOp::equal, name)};
}

TEST(SeriesRetention, AMetricsOwnCapacityBoundsItsSeries) {
  SeriesStoreOptions o;
  o.samples_per_series = 50;
  o.samples_by_name = {{"key_level", 10}};
  SeriesStore store(o);
  for (std::int64_t t = 1; t <= 200; ++t) {
    ASSERT_TRUE(store.append(series("key_level", "a"), {t, 1.0}).ok());
    ASSERT_TRUE(store.append(series("tier_rate", "a"), {t, 2.0}).ok());
  }
  const auto key = store.select(by_name("key_level"), 0, 1000);
  const auto tier = store.select(by_name("tier_rate"), 0, 1000);
  ASSERT_EQ(key.size(), 1u);
  ASSERT_EQ(tier.size(), 1u);
  EXPECT_EQ(key[0].samples.size(), 10u);
  EXPECT_EQ(key[0].samples.front().t_ms, 191);  // the newest ten
  EXPECT_EQ(tier[0].samples.size(), 50u);
  EXPECT_EQ(store.sample_count(), 60u);
  EXPECT_EQ(store.sample_memory_bound_bytes(), o.max_series * 50 * sizeof(Sample));
}

TEST(SeriesRetention, DropIdleRemovesOnlySeriesNotWrittenSinceTheCut) {
  SeriesStore store;
  ASSERT_TRUE(store.append(series("key_level", "gone"), {100, 1.0}).ok());
  ASSERT_TRUE(store.append(series("key_level", "edge"), {500, 1.0}).ok());
  ASSERT_TRUE(store.append(series("key_level", "live"), {100, 1.0}).ok());
  ASSERT_TRUE(store.append(series("key_level", "live"), {900, 0.5}).ok());
  ASSERT_TRUE(store.append(series("other", "gone"), {50, 3.0}).ok());
  const std::vector<Labels> dropped = store.drop_idle(500);
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(store.series_count(), 2u);
  const auto left = store.select(by_name("key_level"), 0, 1000);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].labels.get("api_key"), "edge");  // its newest sample is at the cut: kept
  EXPECT_EQ(left[1].labels.get("api_key"), "live");
  EXPECT_TRUE(store.select(by_name("other"), 0, 1000).empty());
  // A dropped series comes back as a new one when its key is read again.
  ASSERT_TRUE(store.append(series("key_level", "gone"), {1000, 0.0}).ok());
  EXPECT_EQ(store.select(by_name("key_level"), 0, 2000).size(), 3u);
}

}  // namespace
}  // namespace limitscope::metrics
