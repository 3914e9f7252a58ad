// Verifies which keys the per-key charts draw: the max_lines emptiest (bucket levels) or
// fullest (window occupancy) by each series' last number in the last 30 s, ties in label order,
// the whole window when the last 30 s hold no number, and every selected key wherever it ranks.
// Random stores (ties, NaNs, stale markers, series that stopped, selections) are compared with
// an oracle that sorts every series, as the charts did before they ranked in place.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/dashboard/dashboard_charts.h"
#include "core/metrics/metric_names.h"
#include "core/metrics/series_store.h"

namespace limitscope {
namespace {

using metrics::Labels;
using metrics::Sample;

constexpr std::int64_t kEnd = 600'000;

std::string key_name(int i) {
  char key[16];
  std::snprintf(key, sizeof key, "k%03d", i);
  return key;
}

Labels key_labels(std::string_view metric, int i) {
  return Labels{{"__name__", std::string(metric)}, {"api_key", key_name(i)}, {"tier", "free"}};
}

// The chosen keys by sorting everything: (rank value, label order), the first `n`, plus the
// selected keys among the series with a number in the window used.
std::set<std::string> oracle(const metrics::SeriesStore& store, std::string_view metric,
                             const ChartView& view, bool lowest) {
  const auto named =
      *metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal, std::string(metric));
  std::vector<std::pair<double, std::string>> ranked;  // select() lists in label order
  for (const std::int64_t from : {std::max(view.start_ms, view.end_ms - 30'000), view.start_ms}) {
    ranked.clear();
    for (const auto& s :
         store.select(std::vector<metrics::LabelMatcher>{named}, from, view.end_ms)) {
      for (auto it = s.samples.rbegin(); it != s.samples.rend(); ++it) {
        if (std::isnan(it->value)) continue;
        ranked.emplace_back(lowest ? it->value : -it->value, std::string(s.labels.get("api_key")));
        break;
      }
    }
    if (!ranked.empty()) break;
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::set<std::string> out;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const bool selected = std::find(view.selected_keys.begin(), view.selected_keys.end(),
                                    ranked[i].second) != view.selected_keys.end();
    if (i < static_cast<std::size_t>(view.max_lines) || selected) out.insert(ranked[i].second);
  }
  return out;
}

std::set<std::string> drawn(const ChartData& c, const ChartView& view) {
  std::set<std::string> out;
  for (const ChartLine& l : c.lines) {
    out.insert(l.api_key);
    const bool selected = std::find(view.selected_keys.begin(), view.selected_keys.end(),
                                    l.api_key) != view.selected_keys.end();
    EXPECT_EQ(l.selected, selected) << l.api_key;
  }
  return out;
}

TEST(ChartLines, TheEmptiestKeysTiesInLabelOrderAndTheSelectedOnes) {
  metrics::SeriesStore store;
  const std::vector<double> last{0.5, 0.1, 0.1, 0.9, 0.05, 0.1, 0.7};
  for (int i = 0; i < static_cast<int>(last.size()); ++i) {
    ASSERT_TRUE(store.append(key_labels(dashboard_series::kKeyLevel, i), {kEnd - 2000, 1}).ok());
    ASSERT_TRUE(
        store.append(key_labels(dashboard_series::kKeyLevel, i), {kEnd - 1000, last[i]}).ok());
  }
  ChartView view{kEnd - 300'000, kEnd, 100, 3, {}};
  // k004 (0.05), then of the three at 0.1 the first two by label: k001, k002.
  EXPECT_EQ(drawn(bucket_level_chart(store, view), view),
            (std::set<std::string>{"k004", "k001", "k002"}));
  // k000 ranks in the top 3 while the store lists k000..k003, then is pushed out: still drawn.
  view.selected_keys = {"k000", "k003"};
  EXPECT_EQ(drawn(bucket_level_chart(store, view), view),
            (std::set<std::string>{"k000", "k001", "k002", "k003", "k004"}));
  view.max_lines = 0;  // selected only
  EXPECT_EQ(drawn(bucket_level_chart(store, view), view), (std::set<std::string>{"k000", "k003"}));
}

TEST(ChartLines, AStaleOrStoppedSeriesRanksByItsLastNumber) {
  metrics::SeriesStore store;
  const Labels stale = key_labels(dashboard_series::kKeyOccupancy, 1);
  ASSERT_TRUE(store.append(stale, {kEnd - 5000, 0.95}).ok());
  ASSERT_TRUE(store.append_stale(stale, kEnd - 4000).ok());  // its source went down
  ASSERT_TRUE(
      store.append(key_labels(dashboard_series::kKeyOccupancy, 2), {kEnd - 1000, 0.5}).ok());
  ChartView view{kEnd - 300'000, kEnd, 100, 1, {}};
  EXPECT_EQ(drawn(window_occupancy_chart(store, view), view), (std::set<std::string>{"k001"}));
  // Nothing in the last 30 s: the whole window ranks, so the history stays on the chart.
  metrics::SeriesStore quiet;
  ASSERT_TRUE(quiet.append(key_labels(dashboard_series::kKeyLevel, 3), {kEnd - 200'000, 0.4}).ok());
  ASSERT_TRUE(quiet.append(key_labels(dashboard_series::kKeyLevel, 4), {kEnd - 100'000, 0.2}).ok());
  EXPECT_EQ(drawn(bucket_level_chart(quiet, view), view), (std::set<std::string>{"k004"}));
}

TEST(ChartLines, RandomStoresAgreeWithSortingEverySeries) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    metrics::SeriesStore store;
    const int keys = std::uniform_int_distribution<int>(0, 40)(rng);
    const bool recent = rng() % 4 != 0;  // else nothing in the last 30 s
    for (const std::string_view metric :
         {dashboard_series::kKeyLevel, dashboard_series::kKeyOccupancy}) {
      for (int i = 0; i < keys; ++i) {
        const Labels l = key_labels(metric, i);
        const int samples = 1 + static_cast<int>(rng() % 4);
        for (int s = 0; s < samples; ++s) {
          // The last sample in the last 30 s (or, in a quiet round, all of them before).
          const std::int64_t t = recent && s == samples - 1
                                     ? kEnd - 10'000 - static_cast<std::int64_t>(rng() % 1000)
                                     : kEnd - 250'000 + 1000 * s;
          const int kind = static_cast<int>(rng() % 10);
          const double v = static_cast<double>(rng() % 5) / 4;  // few values: many ties
          if (kind == 0) {
            ASSERT_TRUE(store.append_stale(l, t).ok());
          } else {
            ASSERT_TRUE(store.append(l, {t, kind == 1 ? NAN : v}).ok());
          }
        }
      }
    }
    ChartView view{kEnd - 300'000, kEnd, 100, static_cast<int>(rng() % 8), {}};
    for (int i = 0; i < keys; ++i) {
      if (rng() % 6 == 0) view.selected_keys.push_back(key_name(i));
    }
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_EQ(drawn(bucket_level_chart(store, view), view),
              oracle(store, dashboard_series::kKeyLevel, view, true));
    EXPECT_EQ(drawn(window_occupancy_chart(store, view), view),
              oracle(store, dashboard_series::kKeyOccupancy, view, false));
  }
}

}  // namespace
}  // namespace limitscope
