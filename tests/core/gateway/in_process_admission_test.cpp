// Verifies the in-process RPM+TPM composite: both rules admit or neither consumes, token settlement
// refunds and charges within [-one hour of refill, capacity] (a debt), live policy reload, and the
// token bound under concurrency.

#include "core/gateway/in_process_admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "support/must.h"
#include "support/threads.h"

namespace limitscope::gateway {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const char* const kPolicy = R"({
  "default_tier": "free",
  "tiers": {
    "free": { "requests": { "algorithm": "token-bucket", "capacity": 10, "refill": "1/s" },
              "llm_tokens": { "algorithm": "token-bucket", "capacity": 1000, "refill": "1000/min" } },
    "plain": { "requests": { "algorithm": "fixed-window", "limit": 5, "window": "1s" } }
  },
  "models": { "m1": { "cost": 1 }, "m4": { "cost": 4 } },
  "keys": { "k": "free", "p": "plain" }
})";

Policy policy(const char* text = kPolicy) {
  auto p = parse_policy(text, "test-policy");
  EXPECT_TRUE(p.ok()) << p.error();
  return std::move(p).value();
}

AdmissionResult admit(InProcessAdmission& a, std::string_view key, std::string_view model,
                      std::int64_t tokens, Nanos now) {
  return a.admit(AdmissionRequest{key, model, tokens, now});
}

TEST(InProcessAdmission, BothRulesConsumeWhenBothAdmit) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  auto r = admit(a, "k", "m4", 300, Nanos{0});
  ASSERT_TRUE(r.allowed);
  EXPECT_EQ(r.requests.remaining, 6);
  ASSERT_TRUE(r.llm_tokens);
  EXPECT_EQ(r.llm_tokens->remaining, 700);
  EXPECT_EQ(r.tier->name, "free");
  EXPECT_EQ(r.model->name, "m4");
}

TEST(InProcessAdmission, TokenDenialConsumesNoRequestCost) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  ASSERT_TRUE(admit(a, "k", "m1", 900, Nanos{0}).allowed);
  auto denied = admit(a, "k", "m1", 200, Nanos{0});
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.denied_by, DeniedBy::llm_tokens);
  ASSERT_TRUE(denied.llm_tokens->retry_after);
  EXPECT_EQ(*denied.llm_tokens->retry_after, seconds(6));  // 100 tokens at 1000/min
  // The requests bucket still holds 9: the denial took nothing from it.
  auto small = admit(a, "k", "m1", 1, Nanos{0});
  ASSERT_TRUE(small.allowed);
  EXPECT_EQ(small.requests.remaining, 8);
}

TEST(InProcessAdmission, RequestDenialConsumesNoTokens) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(admit(a, "k", "m4", 10, Nanos{0}).allowed);
  auto denied = admit(a, "k", "m4", 10, Nanos{0});
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.denied_by, DeniedBy::requests);
  EXPECT_EQ(a.tokens_available("k", "m4", *denied.tier->llm_tokens, Nanos{0}), 980);
}

TEST(InProcessAdmission, RefusalsBeforeTheLimits) {
  auto p = policy();
  p.default_tier.reset();
  const auto a_owned = test::must(InProcessAdmission::create(std::move(p)));
  InProcessAdmission& a = *a_owned;
  EXPECT_EQ(admit(a, "stranger", "m1", 1, Nanos{0}).requests.reason, DenyReason::unknown_key);
  auto model = admit(a, "k", "nope", 1, Nanos{0});
  EXPECT_EQ(model.requests.reason, DenyReason::unknown_model);
  EXPECT_EQ(model.model, nullptr);
  auto huge = admit(a, "k", "m1", 1001, Nanos{0});
  EXPECT_FALSE(huge.allowed);
  EXPECT_EQ(huge.denied_by, DeniedBy::llm_tokens);
  EXPECT_EQ(huge.llm_tokens->reason, DenyReason::cost_above_capacity);
}

TEST(InProcessAdmission, TierWithoutTokenLimitDecidesOnRequestsOnly) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  auto r = admit(a, "p", "m1", 1'000'000, Nanos{0});
  EXPECT_TRUE(r.allowed);
  EXPECT_FALSE(r.llm_tokens.has_value());
  EXPECT_EQ(a.token_states(), 0u);
}

TEST(InProcessAdmission, SettlementRefundsAndChargesWithinBounds) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  const Policy p = policy();
  const LimitParams& tokens = *p.find_tier("free")->llm_tokens;
  ASSERT_TRUE(admit(a, "k", "m1", 600, Nanos{0}).allowed);
  EXPECT_EQ(a.tokens_available("k", "m1", tokens, Nanos{0}), 400);
  a.settle("k", "m1", -200, Nanos{0});  // used 400 of the 600 reserved
  EXPECT_EQ(a.tokens_available("k", "m1", tokens, Nanos{0}), 600);
  a.settle("k", "m1", -5000, Nanos{0});  // a refund never goes above capacity
  EXPECT_EQ(a.tokens_available("k", "m1", tokens, Nanos{0}), 1000);
  // A usage report beyond any estimate is charged whole, down to the debt bound of one hour
  // of refill (1000/min: 60,000 tokens), never forgiven at empty.
  a.settle("k", "m1", 5000, Nanos{0});
  EXPECT_EQ(a.tokens_available("k", "m1", tokens, Nanos{0}), -4000);
  a.settle("k", "m1", 1e12, Nanos{0});
  EXPECT_EQ(a.tokens_available("k", "m1", tokens, Nanos{0}), -60'000);
  a.settle("k", "m1", -60'000, Nanos{0});  // refunds pay a debt back
  // An extra charge on a key with no state (expired: full) starts from a full bucket.
  a.settle("k", "m4", 300, Nanos{0});
  EXPECT_EQ(a.tokens_available("k", "m4", tokens, Nanos{0}), 700);
}

TEST(InProcessAdmission, ADebtIsWaitedOutBeforeTheNextAdmission) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  ASSERT_TRUE(admit(a, "k", "m1", 100, Nanos{0}).allowed);
  a.settle("k", "m1", 99'900, Nanos{0});  // used 100,000: 900 - 99,900, bounded at -60,000
  EXPECT_EQ(a.tokens_available("k", "m1", *policy().find_tier("free")->llm_tokens, Nanos{0}),
            -60'000);
  // 60,000 owed + 100 for the next estimate at 1000/min: 3606 s.
  auto refused = admit(a, "k", "m1", 100, seconds(1));
  ASSERT_FALSE(refused.allowed);
  EXPECT_EQ(refused.denied_by, DeniedBy::llm_tokens);
  ASSERT_TRUE(refused.llm_tokens->retry_after.has_value());
  EXPECT_EQ(*refused.llm_tokens->retry_after, seconds(3606 - 1));
  EXPECT_FALSE(admit(a, "k", "m1", 100, seconds(3606) - milliseconds(1)).allowed);
  EXPECT_TRUE(admit(a, "k", "m1", 100, seconds(3606)).allowed);
  EXPECT_EQ(a.token_states(), 1u) << "a key in debt is never swept as idle";
}

TEST(InProcessAdmission, ReloadChangesLimitsAndKeepsState) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  ASSERT_TRUE(admit(a, "k", "m1", 500, Nanos{0}).allowed);
  std::string bigger = kPolicy;
  bigger.replace(bigger.find("\"capacity\": 1000"), 16, "\"capacity\": 2000");
  ASSERT_EQ(a.set_policy(policy(bigger.c_str()), Nanos{0}), Status{});
  auto r = admit(a, "k", "m1", 100, Nanos{0});
  ASSERT_TRUE(r.allowed);
  // Same fraction of capacity carried over (500/1000 -> 1000/2000), then 100 taken.
  EXPECT_EQ(r.llm_tokens->remaining, 900);
  EXPECT_EQ(r.llm_tokens->limit, 2000);
}

// A policy the keyed limiter cannot take is an error of the factory, not an exception the
// gateway's main has to catch.
TEST(InProcessAdmission, CreateRefusesMoreTiersThanTheKeyedLimiterTakes) {
  Policy big = policy();
  for (std::size_t i = big.tiers.size(); i <= KeyedLimiter::kMaxTiers; ++i) {
    big.tiers.push_back(TierPolicy{"t" + std::to_string(i), big.tiers[0].requests, {}});
  }
  const auto refused = InProcessAdmission::create(big);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("test-policy: the keyed limiter takes at most 255 tiers, got 256"),
            std::string::npos)
      << refused.error();
  big.tiers.pop_back();
  EXPECT_TRUE(InProcessAdmission::create(big).ok()) << "255 tiers are allowed";
}

TEST(InProcessAdmission, IdleTokenStatesExpire) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(admit(a, "k" + std::to_string(i) + "x", "m1", 10, Nanos{0}).allowed);
  }
  EXPECT_EQ(a.token_states(), 300u);
  EXPECT_EQ(a.sweep_idle(milliseconds(100)), 0u);  // not refilled yet: distinguishable from fresh
  // A minute later every bucket is full again.
  EXPECT_EQ(a.sweep_idle(seconds(61)), 300u);
  EXPECT_EQ(a.token_states(), 0u);
}

TEST(InProcessAdmission, ConcurrentRequestsStayWithinBothBounds) {
  const auto a_owned = test::must(InProcessAdmission::create(policy()));
  InProcessAdmission& a = *a_owned;
  std::atomic<int> allowed{0};
  test::on_threads(4, [&](int) {
    for (int i = 0; i < 2000; ++i) {
      if (a.admit(AdmissionRequest{"k", "m1", 70, Nanos{0}}).allowed) allowed.fetch_add(1);
    }
  });
  // At t = 0: requests bucket 10, token bucket 1000 / 70 = 14; the requests rule binds.
  EXPECT_EQ(allowed.load(), 10);
  const Policy p = policy();
  EXPECT_EQ(a.tokens_available("k", "m1", *p.find_tier("free")->llm_tokens, Nanos{0}), 300);
}

}  // namespace
}  // namespace limitscope::gateway
