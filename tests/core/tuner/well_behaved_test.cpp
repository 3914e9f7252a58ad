// Verifies the well-behaved-keys constraint: a runaway key (far above the median key's rate)
// is left out; every cell of the well-behaved sweep equals the plain replay of the trace
// restricted to those keys; the recommendation meets the constraint with the least admitted
// cost, where the overall 429 ratio (dominated by the runaway) would find nothing.
#include "core/tuner/well_behaved.h"

#include <gtest/gtest.h>

#include <random>

#include "core/tuner/replay.h"
#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

// Five steady keys at ~2 requests/s and one runaway at ~200/s, over 60 s.
trace::Trace with_runaway() {
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> steady(10.0), runaway(200.0);
  std::vector<std::pair<double, int>> events;
  for (int k = 0; k < 6; ++k) {
    double t = 0;
    while (true) {
      t += k == 5 ? runaway(rng) : steady(rng) * 5;
      if (t > 60) break;
      events.emplace_back(t, k);
    }
  }
  std::sort(events.begin(), events.end());
  trace::Trace trace;
  for (const auto& [t, k] : events)
    trace.add(static_cast<std::int64_t>(t * 1e9), k == 5 ? "runaway" : "k" + std::to_string(k), 1);
  return trace;
}

TEST(WellBehaved, TheRunawayIsLeftOut) {
  const trace::Trace t = with_runaway();
  const auto keep = well_behaved_keys(t);
  for (std::size_t k = 0; k < t.keys.size(); ++k)
    EXPECT_EQ(keep[k], t.keys[k] != "runaway") << t.keys[k];
  trace::Trace two;
  two.add(0, "a", 1);
  two.add(1, "b", 100);
  EXPECT_EQ(well_behaved_keys(two), (std::vector<bool>{true, true}));
}

TEST(WellBehaved, CellsEqualTheReplayOfTheRestrictedTraceAndTheRecommendationMeetsIt) {
  const trace::Trace t = with_runaway();
  for (const Algorithm a : {Algorithm::token_bucket, Algorithm::sliding_log}) {
    SCOPED_TRACE(std::string(to_string(a)));
    SweepSpec spec;
    spec.base = test::typical(a);
    spec.x = is_window_algorithm(a) ? SweepAxis{0.5, 4, 4} : SweepAxis{1, 16, 4};
    spec.y = is_window_algorithm(a) ? SweepAxis{1, 16, 4} : SweepAxis{0.5, 8, 4};
    const auto g = sweep_with_well_behaved(t, spec);
    ASSERT_TRUE(g.ok()) << g.error();
    EXPECT_EQ(g->well_behaved_keys, 5u);
    const trace::Trace sub = restrict_to_keys(t, well_behaved_keys(t));
    for (std::size_t i = 0; i < g->all.cells.size(); ++i) {
      const auto r = replay(sub, g->all.cells[i].params);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(g->well_behaved.cells[i].total.rejected, r->total.rejected) << i;
      EXPECT_EQ(g->well_behaved.cells[i].total.admitted, r->total.admitted) << i;
    }
    OperatorConstraints c;
    c.max_well_behaved_429 = 0.01;
    const auto rec = recommend(*g, c);
    ASSERT_TRUE(rec.best.has_value());
    EXPECT_LE(g->well_behaved.cells[*rec.best].total.ratio_429(), 0.01);
    for (std::size_t i = 0; i < g->all.cells.size(); ++i) {
      if (g->well_behaved.cells[i].total.ratio_429() <= 0.01) {
        EXPECT_GE(g->all.cells[i].total.admitted_cost, g->all.cells[*rec.best].total.admitted_cost);
      }
    }
    OperatorConstraints overall;
    overall.core.max_ratio_429 = 0.01;  // the runaway's 429s make this unreachable
    EXPECT_FALSE(recommend(*g, overall).best.has_value());
  }
}

TEST(WellBehaved, CancelStopsBothSweeps) {
  trace::Trace t;  // more than one chunk of events (the sweep checks between chunks)
  for (int i = 0; i < 70'000; ++i) t.add(i * 1'000'000LL, "k" + std::to_string(i % 3), 1);
  SweepSpec spec;
  spec.base = test::typical(Algorithm::token_bucket);
  spec.x = {1, 16, 4};
  spec.y = {0.5, 8, 4};
  std::atomic<bool> cancel{true};
  EXPECT_FALSE(sweep_with_well_behaved(t, spec, 10, &cancel).ok());
}

}  // namespace
}  // namespace limitscope::tuner
