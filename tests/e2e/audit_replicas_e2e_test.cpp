// Verifies `limitscope-cli audit replicas` against real gateway processes: one key loaded
// through two gateways with in-process limiters is a leak of about 2x, named as per-replica
// counting (exit 1); the same load through two gateways on one Redis is not flagged (exit 0).

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "core/common/sha256.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/cli_usage.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// free: capacity 50 cost units, refill 1/s; gemini costs 1. 150 requests, alternating over
// the two gateways, ask three times what one limit admits.
void load_one_key(const GatewayProcess& a, const GatewayProcess& b) {
  const std::string body = e2e_chat_body("gemini-2.5-flash", 10);
  httplib::Client ca(a.url());
  httplib::Client cb(b.url());
  for (int i = 0; i < 150; ++i) {
    auto r = (i % 2 == 0 ? ca : cb)
                 .Post("/v1/chat/completions", {{"Authorization", "Bearer free-key"}}, body,
                       "application/json");
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->status == 200 || r->status == 429) << r->status << " " << r->body;
  }
}

json audit(const std::string& policy, const GatewayProcess& a, const GatewayProcess& b,
           int expected_exit) {
  auto r = run_cli("audit replicas --since-start --json --policy " + quoted(policy) +
                   " --metrics " + a.url() + "/metrics," + b.url() + "/metrics");
  EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
  return json::parse(r.out);
}

const json& free_key_row(const json& j) {
  for (const auto& k : j.at("keys")) {
    if (k.at("api_key_hash") == api_key_hash("free-key")) return k;
  }
  ADD_FAILURE() << "free-key not in " << j.dump();
  static const json none = json::object();
  return none;
}

TEST(AuditReplicasE2E, InProcessLimitersOnTwoGatewaysLeakAboutTwofold) {
  const std::string policy = write_temp("audit_policy.json", e2e_policy_json(50));
  GatewayProcess a({"--policy", policy, "--mock-upstream"});
  GatewayProcess b({"--policy", policy, "--mock-upstream"});
  ASSERT_TRUE(a.running() && b.running());
  load_one_key(a, b);
  const json j = audit(policy, a, b, 1);
  EXPECT_EQ(j.at("replicas"), 2);
  EXPECT_TRUE(j.at("leak").get<bool>());
  const json& k = free_key_row(j);
  EXPECT_TRUE(k.at("leak").get<bool>());
  EXPECT_EQ(k.at("replicas_admitting"), 2);
  EXPECT_EQ(k.at("tier"), "free");
  // Each gateway admitted its own 50 (+ refill): about twice what one limit admits.
  EXPECT_GT(k.at("ratio").get<double>(), 1.5) << k.dump();
  EXPECT_LT(k.at("ratio").get<double>(), 2.2) << k.dump();
  EXPECT_NE(j.at("likely_cause").get<std::string>().find("per replica"), std::string::npos);
}

TEST(AuditReplicasE2E, TwoGatewaysOnOneRedisAreNotFlagged) {
  auto redis = RedisServer::start();
  ASSERT_NE(redis, nullptr);
  const std::string policy = write_temp("audit_redis_policy.json", e2e_policy_json(50));
  GatewayProcess a({"--policy", policy, "--mock-upstream", "--redis", redis->url()});
  GatewayProcess b({"--policy", policy, "--mock-upstream", "--redis", redis->url()});
  ASSERT_TRUE(a.running() && b.running());
  load_one_key(a, b);
  const json j = audit(policy, a, b, 0);
  EXPECT_FALSE(j.at("leak").get<bool>());
  EXPECT_TRUE(j.at("likely_cause").is_null());
  const json& k = free_key_row(j);
  EXPECT_GE(k.at("admitted_cost").get<double>(), 50);
  EXPECT_LE(k.at("ratio").get<double>(), 1.0) << k.dump();
}

TEST(AuditReplicasE2E, BadInputIsAUsageErrorNamingIt) {
  expect_usage_errors(
      "audit replicas",
      {
          {"", "give one of --metrics"},
          {"--metrics http://127.0.0.1:1/metrics,ftp://x", "--metrics: \"ftp://x\""},
          {"--metrics http://127.0.0.1:1/metrics --policy /nonexistent.json", "--policy"},
          {"--metrics http://127.0.0.1:1/metrics --tolerance -1", "tolerance"},
          {"--metrics http://127.0.0.1:1/metrics --since-start", "127.0.0.1:1"},
      },
      /*one_line=*/true);
  EXPECT_EQ(run_cli("audit replicas --help").exit_code, 0);
  EXPECT_EQ(run_cli("audit --help").exit_code, 0);
  EXPECT_EQ(run_cli("audit nonsense").exit_code, 2);
}

}  // namespace
}  // namespace limitscope::test
