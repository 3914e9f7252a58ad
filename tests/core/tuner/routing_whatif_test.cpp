// Verifies the cost-aware routing what-if on a trace known by hand: small requests move to the
// cheaper model with its cost weight and price, large ones stay; spend saved and 429s follow;
// a model the policy lacks is refused by name.

#include "core/tuner/routing_whatif.h"

#include <gtest/gtest.h>

#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

// Default policy: gpt-4.1 costs 8 units and $8/M tokens; deepseek-v3.2 1 unit and $0.42/M.
// Ten small (500 tokens) and five large (5,000) gpt-4.1 requests within one second, one key.
trace::Trace trace() {
  trace::Trace t;
  for (int i = 0; i < 15; ++i) {
    t.add(1'000'000'000 + i * 10'000'000, "tenant-a", 8, "gpt-4.1", "", i < 10 ? 500u : 5000u);
  }
  return t;
}

TEST(RoutingWhatIf, SmallRequestsMoveWithTheirCostAndPrice) {
  const trace::Trace t = trace();
  std::uint64_t routed = 0;
  std::uint64_t without = 0;
  auto r = route_trace(t, {1000, "deepseek-v3.2"}, default_policy(), std::nullopt, routed, without);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(routed, 10u);
  EXPECT_EQ(without, 0u);
  EXPECT_EQ(r->models[r->events[0].model], "deepseek-v3.2");
  EXPECT_DOUBLE_EQ(r->events[0].cost, 1);
  EXPECT_EQ(r->models[r->events[14].model], "gpt-4.1");
  EXPECT_DOUBLE_EQ(r->events[14].cost, 8);
}

TEST(RoutingWhatIf, SpendSavedAndFewer429sUnderATightLimit) {
  const trace::Trace t = trace();
  const PricingOptions pricing{&default_policy(), std::nullopt};
  // Unlimited in practice: spend only. 10 x 500 x $8/M + 5 x 5000 x $8/M = $0.24 as it was;
  // routed: 10 x 500 x $0.42/M + $0.20 = $0.2021.
  auto loose = whatif_routing(t, test::bucket(Algorithm::token_bucket, 1000, 1),
                              {1000, "deepseek-v3.2"}, pricing);
  ASSERT_TRUE(loose.ok()) << loose.error();
  EXPECT_NEAR(loose->as_was.admitted_spend, 0.24, 1e-12);
  EXPECT_NEAR(loose->routed.admitted_spend, 0.2021, 1e-12);
  EXPECT_NEAR(loose->spend_saved, 0.0379, 1e-12);
  EXPECT_EQ(loose->extra_429s, 0);
  // A bucket of 40 units: as it was, 5 requests of 8 fit; routed, the 10 small ones (10 units)
  // and 3 large (24 units) fit: 2 429s instead of 10.
  auto tight = whatif_routing(t, test::bucket(Algorithm::token_bucket, 40, 0.001),
                              {1000, "deepseek-v3.2"}, pricing);
  ASSERT_TRUE(tight.ok()) << tight.error();
  EXPECT_EQ(tight->as_was.rejected, 10u);
  EXPECT_EQ(tight->routed.rejected, 2u);
  EXPECT_EQ(tight->extra_429s, -8);
}

TEST(RoutingWhatIf, UnknownModelAndNoPolicyAreRefused) {
  const PricingOptions pricing{&default_policy(), std::nullopt};
  auto bad = whatif_routing(trace(), test::bucket(Algorithm::token_bucket, 10, 1), {1000, "gpt-9"},
                            pricing);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("gpt-9"), std::string::npos) << bad.error();
  EXPECT_FALSE(whatif_routing(trace(), test::bucket(Algorithm::token_bucket, 10, 1),
                              {1000, "deepseek-v3.2"}, {})
                   .ok());
}

}  // namespace
}  // namespace limitscope::tuner
