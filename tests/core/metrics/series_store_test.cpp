// Verifies SeriesStore: ring bounds, ordering rules, stale markers, selection and matchers.
#include "core/metrics/series_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>

namespace limitscope::metrics {
namespace {

LabelMatcher matcher(const std::string& name, MatchOp op, const std::string& value) {
  auto m = LabelMatcher::make(name, op, value);
  EXPECT_TRUE(m.ok()) << m.error();
  return *m;
}

TEST(SeriesStoreTest, StaleMarkerIsDistinctFromOrdinaryNaN) {
  EXPECT_TRUE(std::isnan(stale_marker()));
  EXPECT_TRUE(is_stale_marker(stale_marker()));
  EXPECT_FALSE(is_stale_marker(std::nan("")));
  EXPECT_FALSE(is_stale_marker(0.0));
}

TEST(SeriesStoreTest, RingDropsOldestAndCountsThem) {
  SeriesStore store({.samples_per_series = 4, .max_series = 10});
  Labels l{{"__name__", "m"}};
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(store.append(l, {i * 1000, double(i)}).ok());
  EXPECT_EQ(store.sample_count(), 4u);
  EXPECT_EQ(store.dropped_samples(), 6u);
  auto sel = store.select({}, 0, 100000);
  ASSERT_EQ(sel.size(), 1u);
  ASSERT_EQ(sel[0].samples.size(), 4u);
  EXPECT_EQ(sel[0].samples.front().t_ms, 6000);
  EXPECT_EQ(sel[0].samples.back().t_ms, 9000);
  EXPECT_EQ(store.sample_memory_bound_bytes(), 10u * 4u * sizeof(Sample));
}

// select_series reads exactly one series: not one whose labels are a superset, nothing for
// an unknown series or one without samples in range, and the same samples select() gives.
TEST(SeriesStoreTest, SelectSeriesReadsExactlyTheSeriesOfTheseLabels) {
  SeriesStore store;
  const Labels key{{"__name__", "level"}, {"api_key", "k1"}};
  const Labels wider{{"__name__", "level"}, {"api_key", "k1"}, {"model", "m"}};
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(store.append(key, {i * 1000, double(i)}).ok());
    ASSERT_TRUE(store.append(wider, {i * 1000, 100.0 + i}).ok());
  }
  const auto one = store.select_series(key, 2000, 5000);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->labels, key);
  ASSERT_EQ(one->samples.size(), 4u);
  EXPECT_EQ(one->samples.front().t_ms, 2000);
  EXPECT_EQ(one->samples.back().value, 5.0);
  const std::vector<LabelMatcher> exact{matcher("__name__", MatchOp::equal, "level"),
                                        matcher("api_key", MatchOp::equal, "k1")};
  const auto both = store.select(exact, 2000, 5000);
  ASSERT_EQ(both.size(), 2u) << "select() matches the wider series too";
  EXPECT_EQ(both[0].labels, key);
  ASSERT_EQ(both[0].samples.size(), one->samples.size());
  for (std::size_t i = 0; i < one->samples.size(); ++i) {
    EXPECT_EQ(both[0].samples[i].t_ms, one->samples[i].t_ms);
    EXPECT_EQ(both[0].samples[i].value, one->samples[i].value);
  }
  EXPECT_FALSE(store.select_series(key, 20'000, 30'000)) << "no sample in range";
  EXPECT_FALSE(store.select_series(key, 5000, 2000)) << "an empty range";
  EXPECT_FALSE(store.select_series(Labels{{"__name__", "level"}, {"api_key", "k2"}}, 0, 9000));
}

TEST(SeriesStoreTest, RefusesOutOfOrderAndDuplicateTimestampsWithReason) {
  SeriesStore store;
  Labels l{{"__name__", "m"}, {"a", "x"}};
  ASSERT_TRUE(store.append(l, {2000, 1}).ok());
  auto older = store.append(l, {1000, 2});
  EXPECT_EQ(older.status, AppendStatus::out_of_order);
  EXPECT_NE(older.reason.find("m{a=\"x\"}"), std::string::npos) << older.reason;
  EXPECT_NE(older.reason.find("older"), std::string::npos) << older.reason;
  auto dup = store.append(l, {2000, 3});
  EXPECT_EQ(dup.status, AppendStatus::duplicate_timestamp);
  EXPECT_EQ(store.rejected_samples(), 2u);
  EXPECT_EQ(store.sample_count(), 1u);
}

TEST(SeriesStoreTest, RefusesNamelessSeriesAndSeriesBeyondLimit) {
  SeriesStore store({.samples_per_series = 8, .max_series = 2});
  EXPECT_EQ(store.append(Labels{{"a", "x"}}, {0, 1}).status, AppendStatus::invalid_labels);
  EXPECT_TRUE(store.append(Labels{{"__name__", "a"}}, {0, 1}).ok());
  EXPECT_TRUE(store.append(Labels{{"__name__", "b"}}, {0, 1}).ok());
  auto third = store.append(Labels{{"__name__", "c"}}, {0, 1});
  EXPECT_EQ(third.status, AppendStatus::too_many_series);
  EXPECT_EQ(store.series_count(), 2u);
  // Existing series still accept samples at the limit.
  EXPECT_TRUE(store.append(Labels{{"__name__", "a"}}, {1, 2}).ok());
}

TEST(SeriesStoreTest, AppendStaleOnlyMarksKnownLiveSeries) {
  SeriesStore store;
  Labels l{{"__name__", "m"}};
  EXPECT_TRUE(store.append_stale(l, 1000).ok());  // unknown: no-op
  EXPECT_EQ(store.series_count(), 0u);
  ASSERT_TRUE(store.append(l, {1000, 5}).ok());
  ASSERT_TRUE(store.append_stale(l, 2000).ok());
  ASSERT_TRUE(store.append_stale(l, 3000).ok());  // already stale: no second marker
  auto sel = store.select({}, 0, 10000);
  ASSERT_EQ(sel[0].samples.size(), 2u);
  EXPECT_TRUE(is_stale_marker(sel[0].samples[1].value));
}

TEST(SeriesStoreTest, SelectBoundsAreInclusiveAndResultSorted) {
  SeriesStore store;
  for (const char* job : {"b", "a"}) {
    Labels l{{"__name__", "m"}, {"job", job}};
    for (int i = 0; i <= 4; ++i) ASSERT_TRUE(store.append(l, {i * 1000, double(i)}).ok());
  }
  auto sel = store.select({}, 1000, 3000);
  ASSERT_EQ(sel.size(), 2u);
  EXPECT_EQ(sel[0].labels.get("job"), "a");
  ASSERT_EQ(sel[0].samples.size(), 3u);
  EXPECT_EQ(sel[0].samples[0].t_ms, 1000);
  EXPECT_EQ(sel[0].samples[2].t_ms, 3000);
  EXPECT_TRUE(store.select({}, 5000, 9000).empty());
  ASSERT_TRUE(store.append(Labels{{"__name__", "other"}, {"job", "a"}}, {1000, 1}).ok());
  std::vector<LabelMatcher> by_name = {matcher("__name__", MatchOp::equal, "m"),
                                       matcher("job", MatchOp::regex_match, "a|b")};
  EXPECT_EQ(store.select(by_name, 0, 9000).size(), 2u);  // via the name index
  std::vector<LabelMatcher> by_job = {matcher("job", MatchOp::equal, "a")};
  EXPECT_EQ(store.select(by_job, 0, 9000).size(), 2u);  // m and other: full scan
  std::vector<LabelMatcher> unnamed = {matcher("__name__", MatchOp::equal, "")};
  EXPECT_TRUE(store.select(unnamed, 0, 9000).empty());
  EXPECT_TRUE(store.select({}, 3000, 1000).empty());
}

TEST(SeriesStoreTest, SelectMatchesBruteForceOnWrappedRings) {
  std::mt19937 rng(5);
  for (int round = 0; round < 20; ++round) {
    SeriesStore store({.samples_per_series = 37, .max_series = 4});
    Labels l{{"__name__", "m"}};
    std::vector<Sample> kept;  // the samples the ring should still hold
    std::int64_t t = 0;
    int n = std::uniform_int_distribution<int>(0, 120)(rng);
    for (int i = 0; i < n; ++i) {
      t += std::uniform_int_distribution<int>(1, 30)(rng);
      ASSERT_TRUE(store.append(l, {t, double(i)}).ok());
      kept.push_back({t, double(i)});
      if (kept.size() > 37) kept.erase(kept.begin());
    }
    for (int q = 0; q < 200; ++q) {
      std::int64_t a = std::uniform_int_distribution<std::int64_t>(-10, t + 10)(rng);
      std::int64_t b = std::uniform_int_distribution<std::int64_t>(-10, t + 10)(rng);
      std::vector<Sample> want;
      for (const Sample& x : kept) {
        if (x.t_ms >= a && x.t_ms <= b) want.push_back(x);
      }
      auto got = store.select({}, a, b);
      auto latest = store.select_latest({}, a, b);
      ASSERT_EQ(got.size(), want.empty() ? 0u : 1u) << a << ".." << b;
      ASSERT_EQ(latest.size(), got.size());
      if (want.empty()) continue;
      ASSERT_EQ(got[0].samples.size(), want.size()) << a << ".." << b;
      for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[0].samples[i].t_ms, want[i].t_ms);
      ASSERT_EQ(latest[0].samples.size(), 1u);
      EXPECT_EQ(latest[0].samples[0].t_ms, want.back().t_ms);
    }
  }
}

struct MatcherRow {
  MatchOp op;
  const char* value;
  const char* label_value;  // "" = absent
  bool expected;
};

TEST(LabelMatcherTest, SemanticsIncludingAnchoringAndAbsentAsEmpty) {
  const MatcherRow rows[] = {
      {MatchOp::equal, "x", "x", true},
      {MatchOp::equal, "x", "xy", false},
      {MatchOp::equal, "", "", true},  // absent label matches ""
      {MatchOp::not_equal, "", "", false},
      {MatchOp::not_equal, "", "x", true},
      {MatchOp::regex_match, "x.*", "xyz", true},
      {MatchOp::regex_match, "y", "xyz", false},  // anchored: no substring match
      {MatchOp::regex_match, "a|b", "b", true},
      {MatchOp::regex_match, "a|b", "ab", false},  // ^(?:a|b)$, not ^a|b$
      {MatchOp::regex_match, ".*", "", true},
      {MatchOp::regex_match, ".+", "", false},
      {MatchOp::regex_no_match, "x", "x", false},
      {MatchOp::regex_no_match, "x", "", true},
      // Prometheus's regexes are Go's, that is RE2's: inline flags, UTF-8 characters, classes.
      {MatchOp::regex_match, "(?i)gpt-4.1", "GPT-4.1", true},
      {MatchOp::regex_match, ".", "\xc3\xa9", true},  // "é" is one character, not two bytes
      {MatchOp::regex_match, "\\pL+", "\xc3\xa9t\xc3\xa9", true},
      {MatchOp::regex_match, "[[:digit:]]+", "2025", true},
      {MatchOp::regex_match, "a.b", "a\nb", false},  // no (?s): '.' stops at a newline
  };
  for (const MatcherRow& r : rows) {
    LabelMatcher m = matcher("l", r.op, r.value);
    EXPECT_EQ(m.matches(std::string_view(r.label_value)), r.expected)
        << m.to_string() << " on \"" << r.label_value << "\"";
  }
  Labels without_l{{"__name__", "m"}};
  EXPECT_TRUE(matcher("l", MatchOp::equal, "").matches(without_l));
}

TEST(LabelMatcherTest, InvalidAndPathologicalRegexesAreRefused) {
  auto bad = LabelMatcher::make("l", MatchOp::regex_match, "(");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("invalid regex"), std::string::npos) << bad.error();
  EXPECT_FALSE(LabelMatcher::make("l", MatchOp::regex_match, std::string(600, 'a')).ok());
  EXPECT_FALSE(
      LabelMatcher::make("l", MatchOp::regex_match, std::string(40, '(') + std::string(40, ')'))
          .ok());
  EXPECT_EQ(matcher("l", MatchOp::regex_no_match, "a\"b").to_string(), "l!~\"a\\\"b\"");
  // Nested repetition and backreferences are refused as Go's regexp refuses them.
  for (const char* nested : {"\\1", "f**", "f*+", "a+*", "a{2}+", "x*??", "f*****.+y"}) {
    auto r = LabelMatcher::make("l", MatchOp::regex_match, nested);
    EXPECT_FALSE(r.ok()) << nested;
    if (!r.ok()) {
      EXPECT_NE(r.error().find("invalid regex \"" + std::string(nested) + "\" for label l: "),
                std::string::npos)
          << r.error();
      EXPECT_TRUE(r.error().find("bad repetition operator") != std::string::npos ||
                  r.error().find("invalid escape sequence: \\1") != std::string::npos)
          << r.error();
    }
  }
  for (const char* fine : {"a*?", ".+?", "\\**", "[*+]+", "(a*)?b", "a{2,3}?", "(?:x)*"}) {
    EXPECT_TRUE(LabelMatcher::make("l", MatchOp::regex_match, fine).ok()) << fine;
  }
}

// RE2 never backtracks: patterns that make a backtracking engine take exponential time (here
// 2^60 ways to split the a's) are answered at once, so a hostile selector cannot hang a query.
TEST(LabelMatcherTest, CatastrophicBacktrackingPatternsMatchInLinearTime) {
  const std::string almost = std::string(60, 'a') + "!";
  EXPECT_FALSE(matcher("l", MatchOp::regex_match, "(a+)+$").matches(std::string_view(almost)));
  EXPECT_TRUE(matcher("l", MatchOp::regex_no_match, "(a|aa)+").matches(std::string_view(almost)));
  EXPECT_FALSE(matcher("l", MatchOp::regex_match, "(a*)*b")
                   .matches(std::string_view(std::string(100'000, 'a'))));
  EXPECT_TRUE(matcher("l", MatchOp::regex_match, "(a+)+$")
                  .matches(std::string_view(std::string(100'000, 'a'))));
}

TEST(CounterResetTest, CorrectionAddsBackTheValueBeforeEachDrop) {
  std::vector<Sample> s = {{0, 0}, {1, 10}, {2, 20}, {3, 5}, {4, 15}, {5, 2}};
  EXPECT_EQ(counter_resets(s), 2u);
  EXPECT_DOUBLE_EQ(counter_reset_correction(s), 20 + 15);
  EXPECT_EQ(counter_reset_correction(std::span<const Sample>(s.data(), 1)), 0);
}

TEST(SeriesStoreTest, OneWriterManyReadersSeeConsistentSeries) {
  SeriesStore store({.samples_per_series = 256, .max_series = 100});
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  auto reader = [&] {
    while (!done.load()) {
      for (const SeriesSamples& s : store.select({}, 0, 1 << 30)) {
        for (std::size_t i = 1; i < s.samples.size(); ++i) {
          if (s.samples[i].t_ms <= s.samples[i - 1].t_ms) ++bad;
        }
      }
    }
  };
  std::thread r1(reader);
  std::thread r2(reader);
  for (int i = 0; i < 5000; ++i) {
    Labels l{{"__name__", "m"}, {"k", std::to_string(i % 10)}};
    ASSERT_TRUE(store.append(l, {i, double(i)}).ok());
  }
  done = true;
  r1.join();
  r2.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(store.series_count(), 10u);
  EXPECT_EQ(store.sample_count(), 10u * 256u);
}

}  // namespace
}  // namespace limitscope::metrics
