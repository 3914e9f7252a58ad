// Verifies the per-key ring of recent decisions, and that the embedded source's rings hold
// exactly the last decisions an independent run of the same simulation made.

#include "core/dashboard/recent_decisions.h"

#include <gtest/gtest.h>

#include "core/sources/embedded_simulation_source.h"

namespace limitscope {
namespace {

DecisionRow row(const std::string& key, std::int64_t t_ns) {
  DecisionRow d;
  d.api_key = key;
  d.t_ns = t_ns;
  return d;
}

TEST(RecentDecisions, KeepsTheLastNPerKeyNewestFirst) {
  RecentDecisions r(3);
  for (int i = 0; i < 5; ++i) r.add(row("a", i));
  r.add(row("b", 10));
  const auto a = r.newest_first("a");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].t_ns, 4);
  EXPECT_EQ(a[2].t_ns, 2);
  EXPECT_EQ(r.newest_first("b").size(), 1u);
  EXPECT_TRUE(r.newest_first("nobody").empty());
  const auto both = r.for_keys({"a", "nobody"});
  EXPECT_EQ(both.at("a").size(), 3u);
  EXPECT_TRUE(both.at("nobody").empty());
}

TEST(RecentDecisions, SourceShowsTheDecisionsTheSimulationMade) {
  EmbeddedSimulationOptions o;
  o.scenario = "burst";
  o.seed = 5;
  o.scenario_length = std::chrono::minutes(4);
  auto src = EmbeddedSimulationSource::create(default_policy(), o);
  ASSERT_TRUE(src.ok());
  (*src)->advance(std::chrono::seconds(90));

  // The same run, built directly, keeping every request.
  auto scenario = make_scenario(o.scenario, o.scenario_length);
  SimulationOptions so;
  so.seed = o.seed;
  so.record_requests = true;
  auto sim = Simulation::create(default_policy(), std::move(*scenario), so);
  ASSERT_TRUE(sim.ok());
  for (int i = 0; i < 90; ++i) (*sim)->step();
  const auto epoch_ns = std::chrono::duration_cast<Nanos>(so.wall_epoch).count();

  for (const std::string key : {"pro-batch", "pro-startup"}) {
    std::vector<const RequestRecord*> expected;
    for (const RequestRecord& r : (*sim)->requests()) {
      if (r.api_key == key) expected.push_back(&r);
    }
    ASSERT_GT(expected.size(), 50u) << key;
    ChartView view;
    view.selected_keys = {key};
    const auto snap = (*src)->snapshot(view);
    const auto& shown = snap.decisions.at(key);
    ASSERT_EQ(shown.size(), 50u);
    for (std::size_t i = 0; i < shown.size(); ++i) {
      const RequestRecord& r = *expected[expected.size() - 1 - i];
      SCOPED_TRACE(key + " #" + std::to_string(i));
      EXPECT_EQ(shown[i].t_ns, epoch_ns + r.time.count());
      EXPECT_EQ(shown[i].model, r.model);
      EXPECT_EQ(shown[i].allowed, r.allowed);
      EXPECT_EQ(shown[i].cost, r.cost);
      EXPECT_EQ(shown[i].remaining, r.remaining);
      EXPECT_EQ(shown[i].reason, r.allowed ? "" : std::string(to_string(r.reason)));
      EXPECT_EQ(shown[i].retry_after_s.has_value(), !r.allowed && r.retry_after.has_value());
    }
  }
}

}  // namespace
}  // namespace limitscope
