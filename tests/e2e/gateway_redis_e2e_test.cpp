// Verifies limitscope-gateway on a shared Redis (label e2e; each test starts its own redis-server):
// two gateways share one limit, the rules land in Redis, and when Redis is killed during load the
// gateways fail open (X-Circuit-Open) or closed (503) as configured, never 500, and recover once it
// is back.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "core/gateway/redis_admission.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"
#include "core/redis/rule_config.h"
#include "core/redis/state_codec.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/exposition_sums.h"
#include "support/gateway_chat.h"
#include "support/process.h"
#include "support/redis_monitor.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

httplib::Result post(const GatewayProcess& gw, const std::string& key,
                     const std::string& model = "gpt-4.1") {
  return post_chat(gw, key, e2e_chat_body(model));
}

std::unique_ptr<RedisServer> start_redis() {
  return RedisServer::start();
}

TEST(GatewayRedisE2E, TwoGatewaysShareOneLimit) {
  auto redis_server = start_redis();
  ASSERT_NE(redis_server, nullptr);
  const std::string policy = write_temp("e2e_redis_policy.json", e2e_policy_json());
  GatewayProcess a({"--policy", policy, "--mock-upstream", "--redis", redis_server->url()});
  GatewayProcess b({"--policy", policy, "--mock-upstream", "--redis", redis_server->url()});
  ASSERT_TRUE(a.running() && b.running());
  // free: capacity 3 cost units at 1/s; gemini costs 1. Six requests over both gateways, at
  // once: at most 3 (+ what refills meanwhile) are admitted in total, not 3 per gateway.
  int ok = 0;
  int limited = 0;
  for (int i = 0; i < 6; ++i) {
    auto r = post(i % 2 == 0 ? a : b, "free-key", "gemini-2.5-flash");
    ASSERT_TRUE(r);
    if (r->status == 200) ++ok;
    if (r->status == 429) {
      ++limited;
      EXPECT_TRUE(r->has_header("Retry-After"));
    }
    EXPECT_FALSE(r->has_header("X-Circuit-Open"));
  }
  EXPECT_GE(ok, 3);
  EXPECT_LE(ok, 4);
  EXPECT_EQ(ok + limited, 6);
  httplib::Client c(a.url());
  auto ready = c.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(json::parse(ready->body).at("backend"), "redis");
}

// The gateway admits on its estimate (prompt + max_tokens), then settles what the upstream
// reported (the mock: prompt + 16): the key's llm_tokens bucket in Redis gets the difference
// back, as the in-process limiter does.
TEST(GatewayRedisE2E, TokensAreSettledInRedisAfterTheUpstreamAnswers) {
  auto redis_server = start_redis();
  ASSERT_NE(redis_server, nullptr);
  const std::string policy = write_temp("e2e_redis_policy.json", e2e_policy_json());
  // Settled at once, by a call of its own (riding on the next decision is
  // gateway_redis_settle_e2e_test.cpp's).
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                     "--redis-settle-delay", "0"});
  ASSERT_TRUE(gw.running());
  auto r = post_chat(gw, "free-key", e2e_chat_body("gemini-2.5-flash", 5000));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const auto usage = json::parse(r->body).at("usage").at("total_tokens").get<double>();
  ASSERT_LT(usage, 100);

  auto c = redis::Connection::open(redis_server->redis_url(), {});
  ASSERT_TRUE(c.ok());
  const std::string state =
      redis::KeySchema().state_key(
          "gw-free", gateway::RedisAdmission::limited_key("free-key", "gemini-2.5-flash")) +
      ":llm_tokens";
  auto raw = c->command({"GET", state});
  ASSERT_TRUE(raw.ok() && raw->is_string()) << state;
  const auto decoded = redis::decode_token_bucket_state(raw->str);
  ASSERT_TRUE(decoded.has_value()) << state;
  const double level = decoded->tokens;
  // Capacity 20000: about 20000 - usage after settling (plus what refilled meanwhile, at most
  // the capacity); without settlement it would be 20000 - 5000 - prompt.
  EXPECT_LE(level, 20000);
  EXPECT_GE(level, 20000 - usage);
  EXPECT_LT(level, 20000 - usage + 400)
      << "a refill of 20000/min adds ~333 tokens a second at most";
}

TEST(GatewayRedisE2E, ALiveConfigChangeInRedisAppliesAtTheNextRequest) {
  auto redis_server = start_redis();
  ASSERT_NE(redis_server, nullptr);
  const std::string policy = write_temp("e2e_redis_live.json", e2e_policy_json());
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", redis_server->url()});
  ASSERT_TRUE(gw.running());
  auto before = post(gw, "pro-key");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->get_header_value("X-RateLimit-Limit"), "50");
  // What the tuner's "apply" does: a new config for the tier's rule, straight into Redis.
  auto url = redis::parse_redis_url(redis_server->url());
  ASSERT_TRUE(url.ok());
  auto conn = redis::Connection::open(*url);
  ASSERT_TRUE(conn.ok()) << conn.error().message;
  auto current = redis::get_config(*conn, redis::KeySchema{}, "gw-pro");
  ASSERT_TRUE(current.ok() && current->has_value());
  redis::RuleConfig changed = **current;
  changed.limits[0].params.capacity = 80;
  redis::ChangeInfo who;
  who.by = "e2e test";
  who.reason = "live change";
  ASSERT_TRUE(redis::set_config(*conn, redis::KeySchema{}, "gw-pro", changed, who).ok());
  auto after = post(gw, "pro-key");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(after->get_header_value("X-RateLimit-Limit"), "80");
}

TEST(GatewayRedisE2E, RedisKilledDuringLoadFailsOpenOrClosedAndRecovers) {
  auto redis_server = start_redis();
  ASSERT_NE(redis_server, nullptr);
  const std::string policy = write_temp("e2e_redis_fail.json", e2e_policy_json());
  GatewayProcess open_gw({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                          "--redis-failure-mode", "fail-open"});
  GatewayProcess closed_gw({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                            "--redis-failure-mode", "fail-closed"});
  ASSERT_TRUE(open_gw.running() && closed_gw.running());
  auto before = post(open_gw, "pro-key");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 200);

  redis_server->kill();
  for (int i = 0; i < 10; ++i) {
    auto o = post(open_gw, "pro-key");
    ASSERT_TRUE(o);
    EXPECT_EQ(o->status, 200) << o->body;
    EXPECT_EQ(o->get_header_value("X-Circuit-Open"), "true");
    auto c = post(closed_gw, "pro-key");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->status, 503) << c->body;
    EXPECT_EQ(json::parse(c->body).at("error").at("code"), "limiter_unavailable");
    EXPECT_EQ(c->get_header_value("X-Circuit-Open"), "true");
    EXPECT_TRUE(c->has_header("Retry-After"));
  }
  httplib::Client m(open_gw.url());
  auto metrics = m.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(sum_samples(metrics->body, "limitscope_circuit_state", {{"backend", "redis"}}), 2);
  EXPECT_EQ(sum_samples(metrics->body, "limitscope_requests_total", {{"decision", "degraded"}}),
            10);
  EXPECT_EQ(sum_samples(metrics->body, "limitscope_gateway_responses_total", {{"code", "500"}}), 0);

  // Back (empty: no persistence): the breaker lets a probe through after its 1 s cooldown,
  // the gateway writes its rules again, and Redis decides once more. Each probe is a request.
  redis_server->restart();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  bool recovered = false;
  while (!recovered && std::chrono::steady_clock::now() < deadline) {
    auto c = post(closed_gw, "pro-key");
    ASSERT_TRUE(c);
    ASSERT_NE(c->status, 500);
    recovered = c->status == 200 && !c->has_header("X-Circuit-Open");
  }
  EXPECT_TRUE(recovered) << closed_gw.process().stderr_text();
  bool open_recovered = false;
  while (!open_recovered && std::chrono::steady_clock::now() < deadline) {
    auto o = post(open_gw, "pro-key");
    ASSERT_TRUE(o);
    open_recovered =
        o->status == 200 && !o->has_header("X-Circuit-Open") && o->has_header("X-RateLimit-Limit");
  }
  EXPECT_TRUE(open_recovered) << open_gw.process().stderr_text();
}

// Redis stopped (SIGSTOP) while a decision is in flight: the gateway gives up after
// --redis-timeout and refuses (fail-closed 503). When Redis resumes it runs the queued call,
// which is past its deadline on the server's clock: nothing is decided or charged (before,
// the refused request's cost was taken).
TEST(GatewayRedisE2E, ADecisionTheGatewayGaveUpOnChargesNothingWhenRedisResumes) {
  auto redis_server = start_redis();
  ASSERT_NE(redis_server, nullptr);
  const std::string policy = write_temp("e2e_redis_stall.json", e2e_policy_json());
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                     "--redis-failure-mode", "fail-closed", "--redis-timeout", "100ms"});
  ASSERT_TRUE(gw.running());
  auto url = redis::parse_redis_url(redis_server->url());
  ASSERT_TRUE(url.ok());
  auto admin = redis::Connection::open(*url);
  ASSERT_TRUE(admin.ok()) << admin.error().message;
  // The limiter's calls: FCALL of its function library (EVALSHA where Functions are missing).
  const auto limiter_calls = [&] {
    long long n = 0;
    for (const char* stat : {"cmdstat_fcall", "cmdstat_evalsha"}) {
      n += e2e_info_count(*admin, "commandstats", stat, "calls") +
           e2e_info_count(*admin, "commandstats", stat, "failed_calls");
    }
    return n;
  };
  const long long calls_before = limiter_calls();
  RedisMonitor monitor(redis_server->port());
  ASSERT_TRUE(monitor.ok());

  redis_server->pause();
  auto refused = post(gw, "pro-key", "gemini-2.5-flash");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503) << refused->body;
  redis_server->resume();
  // The queued call has run (succeeded or not) once the server reports it; then it counts it.
  ASSERT_TRUE(monitor.wait_for_command({"FCALL", "EVALSHA"}));
  ASSERT_GT(limiter_calls(), calls_before);
  EXPECT_EQ(e2e_info_count(*admin, "errorstats", "errorstat_LSLATE", "count"), 1);
  EXPECT_EQ(e2e_pro_state_keys(*admin), 0) << "the refused request was charged";
  auto after = post(gw, "pro-key", "gemini-2.5-flash");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200) << after->body;
  EXPECT_EQ(after->get_header_value("X-RateLimit-Remaining"), "49");
}

}  // namespace
}  // namespace limitscope::test
