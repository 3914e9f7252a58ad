// Verifies, on the real limitscope-gateway (in-process and on a real redis-server), that LLM
// tokens an upstream reports above the estimate are charged as a debt the key waits out (not
// forgiven at an empty bucket), down to the bound of one hour of refill, and that text in any
// field of the body (tools here) is charged before the call.

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "e2e/e2e_policy.h"
#include "support/canned_http_server.h"
#include "support/child_process.h"
#include "support/exposition_sums.h"
#include "support/gateway_chat.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// 5,000 LLM tokens per minute (83.3 a second): the debt bound is 300,000 (one hour of refill).
const std::string kPolicy =
    e2e_one_tier_policy("tpm", {1000, "100/s"}, {5000, "5000/min"}, {"attacker", "bystander"});

std::string chat(const json& extra = json::object()) {
  json body = json::parse(e2e_chat_body("m", 10));
  body.update(extra);
  return body.dump();
}

// An upstream that bills 100,000 tokens for every call, whatever max_tokens said.
std::unique_ptr<CannedHttpServer> greedy_upstream() {
  return e2e_billing_upstream(10, 99'990);
}

void expect_usage_is_owed(const GatewayProcess& gw) {
  auto first = post_chat(gw, "attacker", chat());
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  // Charged 100,000 against 5,000 available: 95,000 owed. The next request (an estimate of
  // about 16) waits until the debt is refilled: ~1,140 s at 83.3 tokens/s. Forgiving the
  // usage at an empty bucket would have asked for less than a second.
  auto second = post_chat(gw, "attacker", chat());
  ASSERT_TRUE(second);
  ASSERT_EQ(second->status, 429) << second->body;
  const json err = json::parse(second->body).at("error");
  EXPECT_EQ(err.at("limit"), "llm_tokens");
  const double wait = err.at("retry_after").get<double>();
  EXPECT_GT(wait, 1100) << "the whole usage is owed";
  EXPECT_LT(wait, 1141);
  EXPECT_GE(std::stoi(second->get_header_value("Retry-After")), 1100);
  // A third call's usage would go past the bound; none is admitted meanwhile anyway, and
  // another key is not affected.
  auto other = post_chat(gw, "bystander", chat());
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200) << other->body;
  httplib::Client c(gw.url());
  auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(sum_samples(metrics->body, "limitscope_llm_tokens_total", {{"tier", "tpm"}}), 200'000)
      << "both calls billed their reported usage";
}

TEST(GatewayTokenDebtE2E, UsageAboveTheEstimateIsOwedInProcess) {
  auto upstream = greedy_upstream();
  const std::string policy = write_temp("e2e_debt_policy.json", kPolicy);
  GatewayProcess gw({"--policy", policy, "--upstream", upstream->url("")});
  ASSERT_TRUE(gw.running());
  expect_usage_is_owed(gw);
}

TEST(GatewayTokenDebtE2E, UsageAboveTheEstimateIsOwedOnRedis) {
  auto redis_server = RedisServer::start();
  ASSERT_NE(redis_server, nullptr);
  auto upstream = greedy_upstream();
  const std::string policy = write_temp("e2e_debt_policy_redis.json", kPolicy);
  GatewayProcess gw(
      {"--policy", policy, "--upstream", upstream->url(""), "--redis", redis_server->url()});
  ASSERT_TRUE(gw.running());
  expect_usage_is_owed(gw);
}

TEST(GatewayTokenDebtE2E, TextInToolsIsChargedBeforeTheCall) {
  const std::string policy = write_temp("e2e_debt_policy_tools.json", kPolicy);
  GatewayProcess gw({"--policy", policy, "--mock-upstream"});
  ASSERT_TRUE(gw.running());
  // 200 KB of tool descriptions: about 50,000 tokens, more than the tier's 5,000 at once.
  json tools = json::array();
  for (int i = 0; i < 2000; ++i) {
    tools.push_back(
        {{"type", "function"},
         {"function",
          {{"name", "f" + std::to_string(i)}, {"description", std::string(100, 'd')}}}});
  }
  auto r = post_chat(gw, "attacker", chat({{"tools", tools}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(json::parse(r->body).at("error").at("code"), "request_too_large");
  auto small = post_chat(gw, "attacker", chat({{"tools", json::array({tools[0]})}}));
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, 200) << small->body;
}

}  // namespace
}  // namespace limitscope::test
