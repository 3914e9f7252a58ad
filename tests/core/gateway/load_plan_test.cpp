// Verifies the open-loop load plan: deterministic Poisson arrivals per seed, key splitting and rate
// scaling, retries per RetryPolicy (Retry-After honoured with backoff, ignored, given up); a
// trace played as a plan sends each event once at its own (scaled) time, never retried; and a
// seed plans the first tries the simulation of the same scenario decides (one arrival model).

#include "core/gateway/load_plan.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/sim/simulation.h"
#include "scenario_support.h"

namespace limitscope::gateway {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

ScenarioSpec one_client(RetryBehaviour behaviour, double rate = 10) {
  ScenarioSpec s = test::single_client_scenario();
  s.clients[0].traffic.rate_per_s = rate;
  s.clients[0].retry.behaviour = behaviour;
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

TEST(LoadPlan, PlansTheSimulationsArrivalsForASeed) {
  // Clients that give up after a 429 draw nothing for retries, so the simulation's refusals
  // leave its arrivals as the load plan draws them: same times, keys, models and tokens.
  const Nanos duration = seconds(60);
  auto spec = make_scenario("mixed", duration);
  ASSERT_TRUE(spec.ok()) << spec.error();
  spec->incidents.clear();
  for (ClientSpec& c : spec->clients) c.retry.behaviour = RetryBehaviour::give_up;
  LoadPlanOptions o;
  o.duration = duration;
  o.seed = 9;
  auto plan = LoadPlan::create(*spec, o);
  ASSERT_TRUE(plan.ok()) << plan.error();
  SimulationOptions so;
  so.seed = 9;
  so.record_requests = true;
  auto sim = Simulation::create(default_policy(), *spec, so);
  ASSERT_TRUE(sim.ok()) << sim.error();
  while ((*sim)->now() < duration) (*sim)->step();

  const auto planned = drain(**plan, duration);
  const auto& decided = (*sim)->requests();
  ASSERT_GT(planned.size(), 100u);
  ASSERT_EQ(planned.size(), decided.size());
  const auto& clients = (*plan)->clients();
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const PlannedRequest& p = planned[i];
    const RequestRecord& d = decided[i];
    ASSERT_EQ(d.attempt, 0);
    EXPECT_EQ(p.at, d.time) << i;
    EXPECT_EQ(p.client, d.client) << i;
    EXPECT_EQ(clients[p.client].api_key, d.api_key) << i;
    EXPECT_EQ(clients[p.client].models[p.share].model, d.model) << i;
    EXPECT_EQ(p.llm_tokens, d.llm_tokens) << i;
    EXPECT_EQ(p.request_id, d.request_id) << i;
  }
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

TEST(LoadPlan, TraceEventsAreSentAtTheirTimesAndNeverRetried) {
  trace::Trace trace;
  trace.add(10'000'000'000, "a", 1, "m1", "pro");
  trace.add(10'250'000'000, "b", 3, "", "free");
  trace.add(11'000'000'000, "a", 2.4, "m2", "pro");
  trace.add(11'000'000'000, "a", 1, "m1", "pro");
  auto plan = LoadPlan::from_trace(trace, {"fallback", 2.0});
  ASSERT_TRUE(plan.ok()) << plan.error();
  LoadPlan& p = **plan;
  ASSERT_EQ(p.clients().size(), 2u);
  EXPECT_EQ(p.clients()[0].api_key, "a");
  EXPECT_EQ(p.clients()[0].tier, "pro");
  ASSERT_EQ(p.clients()[0].models.size(), 2u);
  EXPECT_EQ(p.clients()[1].models.at(0).model, "fallback");  // no model in the trace line
  EXPECT_TRUE(drain(p, Nanos{-1}).empty());
  // Speed 2: the event 250 ms after the first is due at 125 ms, not before.
  ASSERT_EQ(drain(p, milliseconds(124)).size(), 1u);
  const auto b = drain(p, milliseconds(125));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].client, 1u);
  EXPECT_EQ(b[0].llm_tokens, 3);
  const auto rest = drain(p, seconds(10));
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].at, milliseconds(500));
  EXPECT_EQ(p.clients()[0].models.at(rest[0].share).model, "m2");
  EXPECT_EQ(rest[0].llm_tokens, 2);  // the cost, rounded, is the request's token estimate
  EXPECT_EQ(p.on_rate_limited(rest[0], milliseconds(600), seconds(1)), RetryVerdict::gave_up);
  EXPECT_FALSE(p.next_time().has_value());
}

TEST(LoadPlan, RefusesAnEmptyTraceAMissingModelAndABadSpeed) {
  trace::Trace empty;
  EXPECT_FALSE(LoadPlan::from_trace(empty, {"m", 1}).ok());
  trace::Trace no_model;
  no_model.add(0, "a", 1);
  const auto missing = LoadPlan::from_trace(no_model, {"", 1});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("no model"), std::string::npos) << missing.error();
  for (double speed : {0.0, -1.0, std::nan(""), 1e9}) {
    EXPECT_FALSE(LoadPlan::from_trace(no_model, {"m", speed}).ok()) << speed;
  }
}

}  // namespace
}  // namespace limitscope::gateway
