// Verifies the gateway's decision log on a real Redis (label e2e): with --log-decisions the
// decisions of the sampled API keys reach their tier's decision stream with the model and the
// token estimate, the tuner reads that stream as a priced trace, and at a fraction below 1 the
// same keys are sampled as decision_logged() says, every decision of a sampled key and none
// of the others.

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/common/sha256.h"
#include "core/gateway/redis_admission.h"
#include "core/limiter/policy.h"
#include "core/redis/connection.h"
#include "core/redis/redis_url.h"
#include "core/tuner/pricing.h"
#include "core/tuner/replay.h"
#include "core/tuner/stream_trace.h"
#include "support/child_process.h"
#include "support/limit_params_builders.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

int post(const GatewayProcess& gw, const std::string& key, const std::string& model,
         int max_tokens) {
  httplib::Client c(gw.url());
  c.set_read_timeout(10);
  const std::string body =
      json{{"model", model},
           {"max_tokens", max_tokens},
           {"messages", json::array({{{"role", "user"}, {"content", "hello there"}}})}}
          .dump();
  auto r = c.Post("/v1/chat/completions", {{"Authorization", "Bearer " + key}}, body,
                  "application/json");
  return r ? r->status : -1;
}

// The embedded default policy: unknown keys get the free tier (rule "gw-free").
TEST(GatewayDecisionLog, EveryDecisionIsLoggedWithModelAndTokensAndPricesAsATrace) {
  auto server = RedisServer::start();
  GatewayProcess gw({"--mock-upstream", "--redis", server->url(), "--log-decisions", "1"});
  ASSERT_TRUE(gw.running());
  ASSERT_EQ(post(gw, "alice", "gpt-4.1", 100), 200);
  ASSERT_EQ(post(gw, "alice", "deepseek-v3.2", 300), 200);
  ASSERT_EQ(post(gw, "bob", "gpt-4.1", 100), 200);

  auto c = connect(*server);
  auto load = tuner::trace_from_decision_stream(c, redis::KeySchema(), "gw-free");
  ASSERT_TRUE(load.ok()) << load.error().message;
  EXPECT_EQ(load->error_count, 0u);
  const trace::Trace& t = load->trace;
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.models[t.events[0].model], "gpt-4.1");
  EXPECT_EQ(t.models[t.events[1].model], "deepseek-v3.2");
  ASSERT_TRUE(t.tokens_of(0) && t.tokens_of(1) && t.tokens_of(2));
  EXPECT_EQ(*t.tokens_of(1) - *t.tokens_of(0), 200u)
      << "the estimate: the same prompt plus max_tokens";
  EXPECT_EQ(t.tokens_of(0), t.tokens_of(2));
  // No raw API key in Redis: the stream's keys are the gateway's hashed limited keys.
  EXPECT_EQ(t.keys[t.events[0].key], sha256_hex("alice").substr(0, 32) + ":gpt-4.1");
  EXPECT_NE(t.events[0].key, t.events[2].key);

  // The tuner prices it: 2 × gpt-4.1 at $8/M and deepseek at $0.42/M, all admitted.
  const tuner::PricingOptions pricing{&default_policy(), std::nullopt};
  tuner::ReplayOptions ro;
  ro.pricing = &pricing;
  auto r = tuner::replay(t, bucket(Algorithm::token_bucket, 100, 10), ro);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->spend.unpriced_requests, 0u);
  const double want = (2.0 * *t.tokens_of(0) * 8 + *t.tokens_of(1) * 0.42) / 1e6;
  EXPECT_NEAR(r->total.admitted_spend, want, 1e-12);
}

TEST(GatewayDecisionLog, AFractionSamplesWholeKeysTheSameWayEveryGatewayDoes) {
  auto server = RedisServer::start();
  GatewayProcess gw({"--mock-upstream", "--redis", server->url(), "--log-decisions", "0.5"});
  ASSERT_TRUE(gw.running());
  std::set<std::string> want;
  for (int k = 0; k < 24; ++k) {
    const std::string key = "client-" + std::to_string(k);
    for (int i = 0; i < 2; ++i) ASSERT_EQ(post(gw, key, "gemini-2.5-flash", 10), 200);
    if (gateway::decision_logged(sha256_hex(key), 0.5))
      want.insert(sha256_hex(key).substr(0, 32) + ":gemini-2.5-flash");
  }
  ASSERT_GT(want.size(), 0u);
  ASSERT_LT(want.size(), 24u);
  auto c = connect(*server);
  auto load = tuner::trace_from_decision_stream(c, redis::KeySchema(), "gw-free");
  ASSERT_TRUE(load.ok()) << load.error().message;
  std::map<std::string, int> seen;
  for (const auto& e : load->trace.events) ++seen[load->trace.keys[e.key]];
  std::set<std::string> got;
  for (const auto& [k, n] : seen) {
    got.insert(k);
    EXPECT_EQ(n, 2) << k << ": every decision of a sampled key";
  }
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace limitscope::test
