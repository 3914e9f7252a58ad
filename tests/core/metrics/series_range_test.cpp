// SeriesStore's range search (a guess from the mean sample spacing, then gallop and bisect)
// must select exactly the samples a scan would, for steady and irregular spacing, wrapped
// rings and windows anywhere: before, inside, across and after the samples held.

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <limits>
#include <random>
#include <vector>

#include "core/metrics/series_store.h"

namespace limitscope::metrics {
namespace {

std::vector<std::int64_t> scan(const std::deque<Sample>& held, std::int64_t mint,
                               std::int64_t maxt) {
  std::vector<std::int64_t> out;
  for (const Sample& s : held) {
    if (s.t_ms >= mint && s.t_ms <= maxt) out.push_back(s.t_ms);
  }
  return out;
}

std::vector<std::int64_t> selected(const SeriesStore& store, std::int64_t mint, std::int64_t maxt,
                                   bool latest) {
  std::vector<std::int64_t> out;
  const auto series = latest ? store.select_latest({}, mint, maxt) : store.select({}, mint, maxt);
  for (const SeriesSamples& s : series) {
    for (const Sample& x : s.samples) out.push_back(x.t_ms);
  }
  return out;
}

TEST(SeriesRangeTest, SelectsWhatAScanSelects) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 60; ++round) {
    const std::size_t capacity = 1 + rng() % 300;
    SeriesStore store({.samples_per_series = capacity, .max_series = 10});
    const Labels l{{"__name__", "m"}};
    std::deque<Sample> held;
    const int kind = round % 3;  // steady, jittered, bursty spacing
    std::int64_t t = static_cast<std::int64_t>(rng() % 100'000) - 50'000;
    const std::size_t n = rng() % 700;
    for (std::size_t i = 0; i < n; ++i) {
      t += kind == 0   ? 15'000
           : kind == 1 ? 14'000 + static_cast<std::int64_t>(rng() % 2'000)
                       : (rng() % 10 == 0 ? 600'000 : 1 + static_cast<std::int64_t>(rng() % 50));
      ASSERT_TRUE(store.append(l, Sample{t, 1.0}).ok());
      held.push_back(Sample{t, 1.0});
      if (held.size() > capacity) held.pop_front();
    }
    const std::int64_t lo = held.empty() ? 0 : held.front().t_ms;
    const std::int64_t hi = held.empty() ? 0 : held.back().t_ms;
    for (int q = 0; q < 200; ++q) {
      const std::int64_t span = hi - lo + 40'000;
      std::int64_t a =
          lo - 20'000 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span));
      std::int64_t b = a + static_cast<std::int64_t>(rng() % 400'000);
      if (q % 10 == 0 && !held.empty()) a = held[rng() % held.size()].t_ms;  // exactly on a sample
      if (q % 10 == 1 && !held.empty()) b = held[rng() % held.size()].t_ms;
      if (q == 2) a = std::numeric_limits<std::int64_t>::min();
      if (q == 3) b = std::numeric_limits<std::int64_t>::max();
      if (b < a) continue;
      const std::vector<std::int64_t> want = scan(held, a, b);
      ASSERT_EQ(selected(store, a, b, false), want)
          << "round " << round << " [" << a << ", " << b << "]";
      const std::vector<std::int64_t> newest =
          want.empty() ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{want.back()};
      ASSERT_EQ(selected(store, a, b, true), newest)
          << "round " << round << " [" << a << ", " << b << "]";
    }
  }
}

}  // namespace
}  // namespace limitscope::metrics
