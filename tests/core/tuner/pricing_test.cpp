// Verifies pricing for replay: a request costs its tokens at its model's price from the
// policy; unknown models, a price of 0 and requests without a token count are unpriced and
// counted (never free), an assumed tokens-per-request prices the latter; and each key's daily
// quota comes from the trace's tier, else from the policy's tier for the key.
#include "core/tuner/pricing.h"

#include <gtest/gtest.h>

namespace limitscope::tuner {
namespace {

TEST(Pricing, TokensAtTheModelsPrice) {
  trace::Trace t;
  t.add(0, "a", 8, "gpt-4.1", "", 1'000'000);      // $8
  t.add(1, "a", 1, "deepseek-v3.2", "", 500'000);  // $0.21
  t.add(2, "b", 1, "no-such-model", "", 1000);     // unpriced: unknown model
  t.add(3, "b", 1, "gpt-4.1");                     // unpriced: no token count
  t.add(4, "b", 1, "", "", 1000);                  // unpriced: no model
  PricingOptions options;
  options.policy = &default_policy();
  const Pricing p = Pricing::for_trace(t, options);
  EXPECT_TRUE(p.priced());
  EXPECT_DOUBLE_EQ(p.dollars(t, 0), 8.0);
  EXPECT_DOUBLE_EQ(p.dollars(t, 1), 0.21);
  EXPECT_EQ(p.dollars(t, 2), 0);
  EXPECT_EQ(p.dollars(t, 3), 0);
  EXPECT_EQ(p.dollars(t, 4), 0);
  EXPECT_EQ(p.priced_events(), 2u);
  EXPECT_EQ(p.unpriced_events(), 3u);
  const std::string why = p.unpriced_reason();
  EXPECT_NE(why.find("3 requests have no price"), std::string::npos) << why;
  EXPECT_NE(why.find("1 carry no token count"), std::string::npos) << why;
  EXPECT_NE(why.find("'no-such-model'"), std::string::npos) << why;
  EXPECT_NE(why.find("(none given)"), std::string::npos) << why;

  options.tokens_per_request = 2000;
  const Pricing assumed = Pricing::for_trace(t, options);
  EXPECT_DOUBLE_EQ(assumed.dollars(t, 3), 2000 * 8.0 / 1e6);
  EXPECT_DOUBLE_EQ(assumed.dollars(t, 0), 8.0);  // a known count wins over the assumption
  EXPECT_EQ(assumed.unpriced_events(), 2u);
}

TEST(Pricing, WithoutPolicyOrTokensNothingIsPriced) {
  trace::Trace t;
  t.add(0, "a", 1, "gpt-4.1");
  EXPECT_FALSE(Pricing::for_trace(t, PricingOptions{&default_policy(), std::nullopt}).priced());
  t.add(1, "a", 1, "gpt-4.1", "", 100);
  EXPECT_FALSE(Pricing::for_trace(t, PricingOptions{}).priced());
  EXPECT_TRUE(Pricing::for_trace(t, PricingOptions{&default_policy(), std::nullopt}).priced());
}

TEST(Pricing, KeyQuotasFromTheTierColumnOrThePolicy) {
  trace::Trace t;
  t.add(0, "anyone", 1, "", "pro");          // the trace names a tier the policy has
  t.add(1, "demo-enterprise-1", 1, "", "");  // listed in the policy
  t.add(2, "stranger", 1, "", "gold");       // unknown tier: the policy's default (free)
  const auto q = Pricing::key_quotas(t, default_policy());
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0], 50'000);
  EXPECT_EQ(q[1], 500'000);
  EXPECT_EQ(q[2], 1'000);
}

}  // namespace
}  // namespace limitscope::tuner
