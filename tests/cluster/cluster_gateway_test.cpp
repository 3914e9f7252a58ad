// Verifies limitscope-gateway on a real Redis Cluster: two gateway processes started with
// --redis redis+cluster://... share each tier's limit over real HTTP (429s from the first
// request over the configured capacity, never 500 or X-Circuit-Open), and each tier's rule
// config and state keys live on the master owning the rule's slot and on no other; with no
// seed answering at start the gateway exits 1 naming the cluster.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "cluster_test_support.h"
#include "core/gateway/redis_admission.h"
#include "support/child_process.h"
#include "support/ports.h"
#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// Tiers whose rules ("gw-<tier>") land on three different masters, each 3 requests refilled
// one per minute: the 4th request within the test's second is refused.
std::string policy_json(const std::vector<std::string>& tiers) {
  json p;
  for (const auto& t : tiers) {
    p["tiers"][t] = {
        {"requests", {{"algorithm", "token-bucket"}, {"capacity", 3}, {"refill", "1/min"}}}};
    p["keys"]["key-" + t] = t;
  }
  p["models"]["gemini-2.5-flash"] = {{"cost", 1}, {"price_per_million_tokens", 2.5}};
  return p.dump(2);
}

httplib::Result post(const GatewayProcess& gw, const std::string& key) {
  httplib::Client c(gw.url());
  c.set_read_timeout(10);
  const std::string body = json{{"model", "gemini-2.5-flash"},
                                {"max_tokens", 20},
                                {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}}
                               .dump();
  return c.Post("/v1/chat/completions", {{"Authorization", "Bearer " + key}}, body,
                "application/json");
}

// Every key on the node on `port` matching `pattern` (a full SCAN).
std::vector<std::string> scan(const RedisCluster& cluster, int port, const std::string& pattern) {
  auto c = cluster.connect(port);
  std::vector<std::string> out;
  std::string cursor = "0";
  do {
    auto r = c.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
    if (!r) throw std::runtime_error(r.error().message);
    cursor = r->elements[0].str;
    for (const auto& k : r->elements[1].elements) out.push_back(k.str);
  } while (cursor != "0");
  return out;
}

TEST(ClusterGateway, TwoGatewaysShareEachTiersLimitAndItsKeysLiveOnTheOwningShard) {
  auto cluster = RedisCluster::start();
  const redis::KeySchema schema;  // the gateway's default prefix
  // Rule names "gw-t-<n>" on every master give tiers "t-<n>".
  std::map<int, std::string> tier_on;  // master port → tier
  for (const auto& [port, rules] : rules_per_master(*cluster, schema, "gw-t", 1)) {
    tier_on[port] = rules.front().substr(3);
  }
  ASSERT_EQ(tier_on.size(), 3u);
  std::vector<std::string> tiers;
  for (const auto& [port, t] : tier_on) tiers.push_back(t);
  const std::string policy = write_temp("cluster_gateway_policy.json", policy_json(tiers));
  GatewayProcess a(
      {"--policy", policy, "--mock-upstream", "--redis", cluster->url(), "--threads", "4"});
  GatewayProcess b(
      {"--policy", policy, "--mock-upstream", "--redis", cluster->url(), "--threads", "4"});
  ASSERT_TRUE(a.running() && b.running());

  for (const auto& t : tiers) {
    std::vector<int> statuses;
    for (int i = 0; i < 6; ++i) {
      auto r = post(i % 2 == 0 ? a : b, "key-" + t);
      ASSERT_TRUE(r) << t;
      statuses.push_back(r->status);
      EXPECT_FALSE(r->has_header("X-Circuit-Open"))
          << t << ": Redis decided, not the failure policy";
      if (r->status == 429) {
        EXPECT_TRUE(r->has_header("Retry-After"));
      }
    }
    EXPECT_EQ(statuses, (std::vector<int>{200, 200, 200, 429, 429, 429}))
        << t
        << ": capacity 3 shared by both gateways; gateway stderr: " << a.process().stderr_text();
  }

  for (const auto& [port, t] : tier_on) {
    const std::string rule = gateway::RedisAdmission::rule_name(t);
    ASSERT_EQ(cluster->master_port_of_slot(redis::rule_slot(schema, rule)), port);
    const std::string limited =
        gateway::RedisAdmission::limited_key("key-" + t, "gemini-2.5-flash");
    for (int other : cluster->ports()) {
      const auto states = scan(*cluster, other, schema.state_key(rule, limited) + "*");
      const auto configs = scan(*cluster, other, schema.config_key(rule));
      if (other == port) {
        EXPECT_EQ(states.size(), 1u) << rule << " state on its master " << port;
        EXPECT_EQ(configs.size(), 1u) << rule << " config on its master " << port;
      } else {
        EXPECT_TRUE(states.empty()) << rule << " state on " << other;
        EXPECT_TRUE(configs.empty()) << rule << " config on " << other;
      }
    }
  }
  httplib::Client c(a.url());
  auto ready = c.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(json::parse(ready->body).at("backend"), "redis");
}

TEST(ClusterGateway, ExitsWhenNoSeedAnswersAtStart) {
  const int port = free_loopback_port();  // nothing listens there
  const std::string url = "redis+cluster://127.0.0.1:" + std::to_string(port);
  auto p = ChildProcess::start(binary_path("app/limitscope-gateway"),
                               {"--listen", "127.0.0.1:0", "--mock-upstream", "--redis", url});
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->wait(), 1);
  EXPECT_NE(p->stderr_text().find("cannot write the policy's rules to Redis: redis " + url),
            std::string::npos)
      << p->stderr_text();
}

}  // namespace
}  // namespace limitscope::test
