// Verifies the metrics registry: registration checks, counters/gauges/histograms, the
// per-family series cap with its __overflow__ series, thread safety, and that render()
// parses back to the same values.

#include "core/metrics/metrics_registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <thread>

#include "core/metrics/metric_names.h"

namespace limitscope::metrics {
namespace {

// series text -> value, from a parse of the registry's output
std::map<std::string, double> parse_back(const MetricsRegistry& r) {
  const std::string text = r.render();
  const auto p = parse_exposition_collect(text);
  EXPECT_TRUE(p.errors.empty()) << (p.errors.empty() ? "" : p.errors[0].message) << "\n" << text;
  std::map<std::string, double> out;
  for (const auto& s : p.samples) out[s.labels.to_string()] = s.value;
  return out;
}

TEST(Registry, RefusesBadOrDuplicateNames) {
  MetricsRegistry r;
  ASSERT_TRUE(r.counter("ok_total", "h", {"a"}).ok());
  EXPECT_FALSE(r.counter("ok_total", "h", {}).ok());
  EXPECT_FALSE(r.gauge("ok_total", "h", {}).ok());
  EXPECT_FALSE(r.gauge("1bad", "h", {}).ok());
  EXPECT_FALSE(r.gauge("g", "h", {"a-b"}).ok());
  EXPECT_FALSE(r.gauge("g", "h", {"__x"}).ok());
  EXPECT_FALSE(r.gauge("g", "h", {"a", "a"}).ok());
  EXPECT_FALSE(r.histogram("h", "h", {"le"}, {1}).ok());
  EXPECT_FALSE(r.histogram("h", "h", {}, {2, 1}).ok());
  EXPECT_FALSE(r.histogram("h", "h", {}, {1, NAN}).ok());
  EXPECT_TRUE(r.histogram("h", "h", {}, {1, 2, INFINITY}).ok());
}

TEST(Registry, CountersGaugesHistogramsRenderAndParseBack) {
  MetricsRegistry r;
  auto* c = *r.counter("req_total", "Requests.", {"tier", "model"});
  auto* g = *r.gauge("level", "Level.", {"tier"});
  auto* h = *r.histogram("usage", "Usage.", {"tier"}, {0, 5, 10});
  c->with({"free", "gpt-4.1"}).inc();
  c->with({"free", "gpt-4.1"}).inc(2.5);
  c->with({"free", "gpt-4.1"}).inc(-7);  // ignored: counters never go down
  c->with({"pro", "m\"x\\y\nz"}).inc();
  g->with({"free"}).set(10);
  g->with({"free"}).dec();
  g->with({"pro"}).set(-INFINITY);
  for (double v : {0.0, 3.0, 5.0, 7.0, 100.0}) h->with({"free"}).observe(v);

  const auto got = parse_back(r);
  EXPECT_EQ(got.at("req_total{model=\"gpt-4.1\", tier=\"free\"}"), 3.5);
  EXPECT_EQ(got.at("req_total{model=\"m\\\"x\\\\y\\nz\", tier=\"pro\"}"), 1);
  EXPECT_EQ(got.at("level{tier=\"free\"}"), 9);
  EXPECT_EQ(got.at("level{tier=\"pro\"}"), -INFINITY);
  EXPECT_EQ(got.at("usage_bucket{le=\"0\", tier=\"free\"}"), 1);
  EXPECT_EQ(got.at("usage_bucket{le=\"5\", tier=\"free\"}"), 3);
  EXPECT_EQ(got.at("usage_bucket{le=\"10\", tier=\"free\"}"), 4);
  EXPECT_EQ(got.at("usage_bucket{le=\"+Inf\", tier=\"free\"}"), 5);
  EXPECT_EQ(got.at("usage_count{tier=\"free\"}"), 5);
  EXPECT_EQ(got.at("usage_sum{tier=\"free\"}"), 115);
  EXPECT_EQ(got.size(), 10u);
}

TEST(Registry, RenderHasHelpTypeAndSortedChildren) {
  MetricsRegistry r;
  auto* c = *r.counter("x_total", "Help text.", {"k"});
  c->with({"b"}).inc();
  c->with({"a"}).inc();
  EXPECT_EQ(r.render(),
            "# HELP x_total Help text.\n# TYPE x_total counter\n"
            "x_total{k=\"a\"} 1\nx_total{k=\"b\"} 1\n");
}

TEST(Registry, WrongNumberOfLabelValuesThrows) {
  MetricsRegistry r;
  auto* c = *r.counter("x_total", "h", {"a", "b"});
  EXPECT_THROW(c->with({"only-one"}), std::invalid_argument);
}

TEST(Registry, ChildrenAreCachedAndStable) {
  MetricsRegistry r;
  auto* g = *r.gauge("g", "h", {"a"});
  Gauge& first = g->with({"x"});
  for (int i = 0; i < 100; ++i) g->with({std::to_string(i)});
  EXPECT_EQ(&first, &g->with({"x"}));
}

TEST(CardinalityCap, OverflowGoesToOneSeriesAndIsCounted) {
  MetricsRegistry r;
  auto* c = *r.counter("hits_total", "h", {"key", "model"}, FamilyOptions{3});
  for (int i = 0; i < 10; ++i) c->with({"k" + std::to_string(i), "m"}).inc();
  c->with({"k0", "m"}).inc();  // an existing series still works past the cap
  EXPECT_EQ(c->series_count(), 3u);
  EXPECT_EQ(c->overflow_count(), 7u);
  const auto got = parse_back(r);
  EXPECT_EQ(got.at("hits_total{key=\"k0\", model=\"m\"}"), 2);
  EXPECT_EQ(got.at("hits_total{key=\"__overflow__\", model=\"__overflow__\"}"), 7);
  EXPECT_EQ(got.at(std::string(names::kSeriesOverflow) + "{family=\"hits_total\"}"), 7);
}

TEST(CardinalityCap, NoOverflowFamilyWhileUnderTheCap) {
  MetricsRegistry r;
  (*r.gauge("g", "h", {"a"}))->with({"x"}).set(1);
  EXPECT_EQ(r.render().find(names::kSeriesOverflow), std::string::npos);
}

TEST(ThreadSafety, ConcurrentObservationsAndRendersLoseNothing) {
  MetricsRegistry r;
  auto* c = *r.counter("c_total", "h", {"t"}, FamilyOptions{50});
  auto* h = *r.histogram("h", "h", {"t"}, {1, 10, 100});
  auto* g = *r.gauge("g", "h", {"t"});
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string label = std::to_string(i % 64);  // 64 > cap: some overflow
        c->with({label}).inc();
        h->with({std::to_string(t)}).observe(i % 200);
        g->with({"all"}).add(1);
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 50; ++i) {
      const auto p = parse_exposition_collect(r.render());
      EXPECT_TRUE(p.errors.empty());
    }
  });
  for (auto& t : threads) t.join();

  const auto got = parse_back(r);
  double counted = 0;
  for (const auto& [series, v] : got) {
    if (series.starts_with("c_total")) counted += v;
  }
  EXPECT_EQ(counted, kThreads * kPerThread);
  EXPECT_EQ(c->series_count(), 50u);
  EXPECT_EQ(got.at("g{t=\"all\"}"), kThreads * kPerThread);
  for (int t = 0; t < kThreads; ++t) {
    const std::string l = "t=\"" + std::to_string(t) + "\"";
    EXPECT_EQ(got.at("h_count{" + l + "}"), kPerThread);
    EXPECT_EQ(got.at("h_bucket{le=\"+Inf\", " + l + "}"), kPerThread);
  }
}

}  // namespace
}  // namespace limitscope::metrics
