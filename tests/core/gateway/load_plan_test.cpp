// Verifies the open-loop load plan: deterministic Poisson arrivals per seed, key splitting and rate
// scaling, retries per RetryPolicy (Retry-After honoured with backoff, ignored, given up).

#include "core/gateway/load_plan.h"

#include <gtest/gtest.h>

namespace limitscope::gateway {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

ScenarioSpec one_client(RetryBehaviour behaviour, double rate = 10) {
  ScenarioSpec s;
  s.name = "test";
  ClientSpec c;
  c.api_key = "key";
  c.tier = "free";
  c.models = {default_model_share("gpt-4.1", 1)};
  c.traffic.rate_per_s = rate;
  c.retry.behaviour = behaviour;
  s.clients.push_back(c);
  return s;
}

std::vector<PlannedRequest> drain(LoadPlan& plan, Nanos until) {
  std::vector<PlannedRequest> out;
  while (auto r = plan.pop_due(until)) out.push_back(*r);
  return out;
}

TEST(LoadPlan, SameSeedSameScheduleAndRateIsKept) {
  LoadPlanOptions o;
  o.duration = seconds(100);
  o.seed = 42;
  auto a = LoadPlan::create(one_client(RetryBehaviour::give_up), o);
  auto b = LoadPlan::create(one_client(RetryBehaviour::give_up), o);
  ASSERT_TRUE(a.ok() && b.ok());
  const auto ra = drain(**a, seconds(100));
  const auto rb = drain(**b, seconds(100));
  ASSERT_EQ(ra.size(), rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) {
    EXPECT_EQ(ra[i].at, rb[i].at);
    EXPECT_EQ(ra[i].llm_tokens, rb[i].llm_tokens);
  }
  EXPECT_NEAR(static_cast<double>(ra.size()), 1000, 120);  // 10/s for 100 s, Poisson
  for (std::size_t i = 1; i < ra.size(); ++i) EXPECT_LE(ra[i - 1].at, ra[i].at);
  EXPECT_LT(ra.back().at, seconds(100));
  EXPECT_FALSE((*a)->next_time().has_value());
}

TEST(LoadPlan, NothingIsDueBeforeItsTime) {
  LoadPlanOptions o;
  o.duration = seconds(10);
  auto p = LoadPlan::create(one_client(RetryBehaviour::give_up), o);
  ASSERT_TRUE(p.ok());
  const Nanos first = *(*p)->next_time();
  EXPECT_FALSE((*p)->pop_due(first - Nanos{1}).has_value());
}

TEST(LoadPlan, KeysSplitTheRateAndRateScales) {
  LoadPlanOptions o;
  o.duration = seconds(10);
  o.keys_per_client = 4;
  o.total_rate = 20;
  auto p = LoadPlan::create(one_client(RetryBehaviour::give_up, 10), o);
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_EQ((*p)->clients().size(), 4u);
  EXPECT_EQ((*p)->clients()[0].api_key, "key-1");
  EXPECT_EQ((*p)->clients()[3].api_key, "key-4");
  EXPECT_DOUBLE_EQ((*p)->rate_scale(), 2);
  EXPECT_DOUBLE_EQ((*p)->clients()[0].traffic.rate_per_s, 5);
}

TEST(LoadPlan, RefusesBadOptions) {
  LoadPlanOptions o;
  o.keys_per_client = 0;
  EXPECT_FALSE(LoadPlan::create(one_client(RetryBehaviour::give_up), o).ok());
  o.keys_per_client = 1;
  o.duration = Nanos{0};
  EXPECT_FALSE(LoadPlan::create(one_client(RetryBehaviour::give_up), o).ok());
  o.duration = seconds(1);
  o.total_rate = -1;
  EXPECT_FALSE(LoadPlan::create(one_client(RetryBehaviour::give_up), o).ok());
}

TEST(LoadPlan, RetriesFollowTheClientsPolicy) {
  LoadPlanOptions o;
  o.duration = seconds(100);
  {
    auto p = LoadPlan::create(one_client(RetryBehaviour::honour_retry_after, 0.001), o);
    ASSERT_TRUE(p.ok());
    PlannedRequest r;
    r.at = seconds(1);
    r.request_id = 99;
    EXPECT_EQ((*p)->on_rate_limited(r, seconds(1), seconds(3)), RetryVerdict::retry_scheduled);
    auto due = (*p)->pop_due(seconds(100));
    ASSERT_TRUE(due.has_value());
    // Never before Retry-After (3 s); the jittered backoff of attempt 0 is at most 500 ms.
    EXPECT_EQ(due->at, seconds(4));
    EXPECT_EQ(due->attempt, 1);
    EXPECT_EQ(due->request_id, 99u);
    EXPECT_EQ((*p)->on_rate_limited(r, seconds(1), std::nullopt), RetryVerdict::gave_up);
    r.attempt = 4;  // max_retries reached
    EXPECT_EQ((*p)->on_rate_limited(r, seconds(1), seconds(1)), RetryVerdict::gave_up);
    r.attempt = 0;
    EXPECT_EQ((*p)->on_rate_limited(r, seconds(99), seconds(5)), RetryVerdict::past_end);
  }
  {
    auto p = LoadPlan::create(one_client(RetryBehaviour::ignore_retry_after, 0.001), o);
    ASSERT_TRUE(p.ok());
    PlannedRequest r;
    r.at = seconds(1);
    EXPECT_EQ((*p)->on_rate_limited(r, seconds(1), seconds(30)), RetryVerdict::retry_scheduled);
    auto due = (*p)->pop_due(seconds(100));
    ASSERT_TRUE(due.has_value());
    EXPECT_EQ(due->at, seconds(1) + milliseconds(5));  // its fixed interval, deaf to the 30 s
  }
  {
    auto p = LoadPlan::create(one_client(RetryBehaviour::give_up, 0.001), o);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ((*p)->on_rate_limited(PlannedRequest{}, seconds(1), seconds(1)),
              RetryVerdict::gave_up);
  }
}

}  // namespace
}  // namespace limitscope::gateway
