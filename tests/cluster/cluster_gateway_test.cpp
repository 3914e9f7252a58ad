// Verifies limitscope-gateway on a real Redis Cluster: two gateway processes started with
// --redis redis+cluster://... share each tier's limit over real HTTP (429s from the first
// request over the configured capacity, never 500 or X-Circuit-Open), and each tier's rule
// config and state keys live on the master owning the rule's slot and on no other; with no
// seed answering at start the gateway exits 1 naming the cluster; and a master killed under
// load: the fail-open gateway keeps answering 200 (X-Circuit-Open while the slot has no master,
// never 500 or 503), the fail-closed one 503 with Retry-After (never 500), the other shards'
// tiers decide as usual throughout, and the killed master's tier gets Redis decisions again
// once its replica is promoted. With --log-decisions, XADD on each tier's decision stream is
// checked at start on the tier's master.
#include <gtest/gtest.h>
#include <httplib.h>

#include <csignal>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cluster_test_support.h"
#include "core/gateway/redis_admission.h"
#include "support/child_process.h"
#include "support/exposition_sums.h"
#include "support/gateway_chat.h"
#include "support/ports.h"
#include "support/process.h"
#include "support/server_inbox.h"
#include "support/test_paths.h"

namespace limitscope::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Tiers whose rules ("gw-<tier>") land on three different masters, each 3 requests refilled
// one per minute: the 4th request within the test's second is refused.
std::string policy_json(const std::vector<std::string>& tiers, int capacity = 3) {
  json p;
  for (const auto& t : tiers) {
    p["tiers"][t] = {
        {"requests", {{"algorithm", "token-bucket"}, {"capacity", capacity}, {"refill", "1/min"}}}};
    p["keys"]["key-" + t] = t;
  }
  p["models"]["gemini-2.5-flash"] = {{"cost", 1}, {"price_per_million_tokens", 2.5}};
  return p.dump(2);
}

httplib::Result post(const GatewayProcess& gw, const std::string& key) {
  const std::string body = json{{"model", "gemini-2.5-flash"},
                                {"max_tokens", 20},
                                {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}}
                               .dump();
  return post_chat(gw, key, body);
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

// One tier per master: rule names "<rule_prefix>-<n>" ("gw-t-<n>" gives tiers "t-<n>"), one
// on each master, keyed by the master's port.
std::map<int, std::string> tier_per_master(const RedisCluster& cluster,
                                           const redis::KeySchema& schema,
                                           const std::string& rule_prefix) {
  std::map<int, std::string> out;
  for (const auto& [port, rules] : rules_per_master(cluster, schema, rule_prefix, 1)) {
    out[port] = rules.front().substr(3);
  }
  return out;
}

std::vector<std::string> tiers_of(const std::map<int, std::string>& tier_on) {
  std::vector<std::string> tiers;
  for (const auto& [port, t] : tier_on) tiers.push_back(t);
  return tiers;
}

TEST(ClusterGateway, TwoGatewaysShareEachTiersLimitAndItsKeysLiveOnTheOwningShard) {
  auto cluster = RedisCluster::start();
  const redis::KeySchema schema;  // the gateway's default prefix
  const std::map<int, std::string> tier_on =
      tier_per_master(*cluster, schema, "gw-t");  // port → tier
  ASSERT_EQ(tier_on.size(), 3u);
  const std::vector<std::string> tiers = tiers_of(tier_on);
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

// Concurrent requests of tiers on three shards, coalesced while every master is paused: each
// batch holds one tier's requests (one shard's), so every request is decided by its own
// shard (no X-Circuit-Open, each tier's capacity exactly), in fewer round trips than requests.
TEST(ClusterGateway, ConcurrentDecisionsAreBatchedPerShard) {
  auto cluster = RedisCluster::start();
  const std::map<int, std::string> tier_on = tier_per_master(*cluster, redis::KeySchema{}, "gw-t");
  ASSERT_EQ(tier_on.size(), 3u);
  const std::vector<std::string> tiers = tiers_of(tier_on);
  const std::string policy = write_temp("cluster_gateway_batch_policy.json", policy_json(tiers));
  // Coalescing once 4 batches of a tier are in flight (by default: once every connection to
  // its master is busy, which 6 requests never make).
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", cluster->url(),
                     "--redis-timeout", "30s", "--redis-batch-window", "10ms",
                     "--redis-batches-in-flight", "4"});
  ASSERT_TRUE(gw.running());
  const auto sent = [&](const char* series) {
    httplib::Client c(gw.url());
    auto m = c.Get("/metrics");
    return m ? sum_samples(m->body, series) : -1;
  };
  // The paused masters' sockets wake the test as the gateway's decisions reach them.
  auto inbox = std::make_unique<ServerInbox>();
  for (const auto& [port, t] : tier_on) {
    cluster->pause(port);
    inbox->watch(cluster->pid(port), port);
  }
  constexpr int kPerTier = 6;
  std::vector<std::pair<std::string, httplib::Result>> answers;
  std::mutex mu;
  std::vector<std::thread> clients;
  for (const auto& t : tiers) {
    for (int i = 0; i < kPerTier; ++i) {
      clients.emplace_back([&, t] {
        auto r = post(gw, "key-" + t);
        std::lock_guard lock(mu);
        answers.emplace_back(t, std::move(r));
      });
    }
  }
  const double total = static_cast<double>(tiers.size() * kPerTier);
  // The gateway counts a decision before it sends it: checked again after each arrival.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);  // a safety net
  bool all_sent = false;
  while (!(all_sent = sent("limitscope_redis_batch_size_sum") >= total) && inbox->wait(deadline)) {
  }
  EXPECT_TRUE(all_sent);
  inbox.reset();  // done waiting: the masters' sockets are theirs alone again
  const double round_trips = sent("limitscope_redis_batch_size_count");
  for (const auto& [port, t] : tier_on) cluster->resume(port);
  for (auto& c : clients) c.join();
  EXPECT_LT(round_trips, total) << "concurrent decisions were not coalesced";
  std::map<std::string, std::map<int, int>> statuses;  // tier -> status -> count
  for (const auto& [t, r] : answers) {
    ASSERT_TRUE(r) << t;
    EXPECT_FALSE(r->has_header("X-Circuit-Open")) << t << ": " << r->body;
    ++statuses[t][r->status];
  }
  for (const auto& t : tiers) {
    EXPECT_EQ(statuses[t], (std::map<int, int>{{200, 3}, {429, 3}}))
        << t << ": capacity 3 decided on its shard";
  }
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

// --log-decisions on a cluster: the start-up check of XADD on each tier's decision stream runs
// on the master owning the tier's rule. XADD denied on one master refuses the start naming that
// tier's stream; allowed, the gateway starts and the check left no stream on any node.
TEST(ClusterGateway, TheDecisionLogWriteIsCheckedAtStartOnEachTiersMaster) {
  auto cluster = RedisCluster::start();
  const redis::KeySchema schema;
  const std::map<int, std::string> tier_on =
      tier_per_master(*cluster, schema, "gw-t");  // port → tier
  ASSERT_EQ(tier_on.size(), 3u);
  const std::vector<std::string> tiers = tiers_of(tier_on);
  const std::string policy = write_temp("cluster_gateway_xadd_policy.json", policy_json(tiers));
  const std::vector<std::string> args{"--listen",     "127.0.0.1:0",     "--policy",
                                      policy,         "--mock-upstream", "--redis",
                                      cluster->url(), "--log-decisions", "1"};
  const auto& [denied_port, denied_tier] = *tier_on.rbegin();
  auto deny = [&](const char* rule) {
    auto c = cluster->connect(denied_port);
    auto r = c.command({"ACL", "SETUSER", "default", rule});
    ASSERT_TRUE(r) << r.error().message;
  };
  {
    // The rules are written (audited, so with XADD) before XADD is taken away.
    GatewayProcess writer({"--policy", policy, "--mock-upstream", "--redis", cluster->url()});
    ASSERT_TRUE(writer.running());
  }
  deny("-xadd");
  auto refused = ChildProcess::start(binary_path("app/limitscope-gateway"), args);
  ASSERT_NE(refused, nullptr);
  if (const auto line = refused->read_line()) {
    ADD_FAILURE() << "it started: " << *line;
    refused->signal(SIGTERM);
  }
  EXPECT_EQ(refused->wait(), 1);
  const std::string err = refused->stderr_text();
  EXPECT_NE(err.find("may not XADD to the decision stream " +
                     schema.decisions_key(gateway::RedisAdmission::rule_name(denied_tier))),
            std::string::npos)
      << err;

  deny("+xadd");
  GatewayProcess gw(
      {"--policy", policy, "--mock-upstream", "--redis", cluster->url(), "--log-decisions", "1"});
  ASSERT_TRUE(gw.running());
  for (int port : cluster->ports()) {
    EXPECT_TRUE(scan(*cluster, port, "*:decisions").empty())
        << "the check left a stream on " << port;
  }
}

// The X-RateLimit-Remaining of a Redis decision, or -1 when the response has none.
long long remaining_of(const httplib::Result& r) {
  if (!r || !r->has_header("X-RateLimit-Remaining")) return -1;
  return std::stoll(r->get_header_value("X-RateLimit-Remaining"));
}

// A master killed under load, with the gateway in `mode` (fail-open or fail-closed): only its
// tier's requests take the failure policy, and Redis decides them again within 5 s of the
// replica's promotion.
void master_killed_under_load(const std::string& mode) {
  const bool open_mode = mode == "fail-open";
  RedisCluster::Options o;
  o.replicas = 1;
  o.node_timeout_ms = 1000;
  // The other shards keep serving while one slot range has no master.
  o.extra_args = {"--cluster-require-full-coverage", "no"};
  auto cluster = RedisCluster::start(o);
  const redis::KeySchema schema;
  const std::map<int, std::string> tier_on =
      tier_per_master(*cluster, schema, "gw-f");  // port → tier
  ASSERT_EQ(tier_on.size(), 3u);
  const std::vector<std::string> tiers = tiers_of(tier_on);
  const int victim = tier_on.begin()->first;
  const std::string victim_tier = tier_on.begin()->second;
  const std::string healthy_tier = std::next(tier_on.begin())->second;
  const int slot = redis::rule_slot(schema, gateway::RedisAdmission::rule_name(victim_tier));
  const int replica = cluster->replica_of(victim);
  ASSERT_NE(replica, 0);

  // Capacity far above the test's traffic: every Redis decision admits, and its remaining
  // count goes down one per request.
  constexpr int kCapacity = 100000;
  const std::string policy =
      write_temp("cluster_gateway_failover_policy.json", policy_json(tiers, kCapacity));
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", cluster->url(),
                     "--redis-failure-mode", mode, "--redis-timeout", "300ms", "--threads", "4"});
  ASSERT_TRUE(gw.running());
  for (const auto& t : tiers) {
    auto r = post(gw, "key-" + t);
    ASSERT_TRUE(r) << t;
    EXPECT_EQ(r->status, 200) << t;
    EXPECT_FALSE(r->has_header("X-Circuit-Open")) << t;
    EXPECT_EQ(remaining_of(r), kCapacity - 1) << t;
  }
  // The victim's rule config must have reached the replica before its master dies.
  ASSERT_TRUE(RedisCluster::wait_for([&] {
    auto c = cluster->connect(replica);
    // A failed READONLY shows as a failed read below, which wait_for retries.
    (void)c.command({"READONLY"});
    auto n =
        c.command({"EXISTS", schema.config_key(gateway::RedisAdmission::rule_name(victim_tier))});
    return n.ok() && n->integer == 1;
  }));

  cluster->kill(victim);
  SteadyClock& clock = SteadyClock::instance();
  CancelToken never;
  int requests = 0, circuit_open = 0, healthy_degraded = 0;
  std::vector<int> bad_statuses;
  std::optional<Nanos> promoted_at;
  std::optional<Nanos> resumed_at;
  long long resumed_remaining = -1;
  const Nanos deadline = clock.now() + 40s;
  // Bounded polling of the real processes: a request on each tier, then the promotion check,
  // ~20 ms apart, until the killed master's tier is decided by Redis after the promotion.
  while (clock.now() < deadline && !resumed_at) {
    auto v = post(gw, "key-" + victim_tier);
    ++requests;
    ASSERT_TRUE(v) << "no answer from the gateway; stderr: " << gw.process().stderr_text();
    const bool open = v->get_header_value("X-Circuit-Open") == "true";
    // fail-open: always 200; fail-closed: 503 with Retry-After while the circuit is open.
    if (v->status != (open && !open_mode ? 503 : 200)) bad_statuses.push_back(v->status);
    if (open) {
      ++circuit_open;
      if (open_mode) {
        EXPECT_EQ(remaining_of(v), -1) << "fail-open reports no limits";
      } else {
        EXPECT_TRUE(v->has_header("Retry-After")) << "a fail-closed 503 says when to retry";
      }
    }
    auto h = post(gw, "key-" + healthy_tier);
    ASSERT_TRUE(h);
    if (h->status != 200 || h->has_header("X-Circuit-Open")) ++healthy_degraded;
    if (!promoted_at && cluster->master_port_of_slot(slot) == replica) promoted_at = clock.now();
    if (promoted_at && !open && v->status == 200) {
      resumed_at = clock.now();
      resumed_remaining = remaining_of(v);
    }
    clock.wait_until(clock.now() + 20ms, never);
  }
  EXPECT_TRUE(bad_statuses.empty())
      << mode << " answered " << bad_statuses.size() << " non-200s, first " << bad_statuses.front();
  ASSERT_TRUE(promoted_at.has_value()) << "the replica was not promoted within 40 s";
  ASSERT_TRUE(resumed_at.has_value())
      << "Redis decisions did not resume after the promotion; " << circuit_open << " of "
      << requests << " requests took the failure policy";
  EXPECT_LE(*resumed_at - *promoted_at, 5s);
  // The outage as the clients saw it (in the XML report: --gtest_output=xml).
  ::testing::Test::RecordProperty("requests_after_kill", requests);
  ::testing::Test::RecordProperty("circuit_open", circuit_open);
  ::testing::Test::RecordProperty("resumed_after_promotion_ms",
                                  static_cast<int>((*resumed_at - *promoted_at) / 1ms));
  EXPECT_GT(circuit_open, 0) << "the failure policy never applied";
  EXPECT_EQ(healthy_degraded, 0) << "the other shards' tiers were not decided by Redis";
  // A Redis decision again: the promoted replica's state counts down one per request.
  ASSERT_GE(resumed_remaining, 0);
  EXPECT_LT(resumed_remaining, kCapacity);
  auto next = post(gw, "key-" + victim_tier);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
  EXPECT_FALSE(next->has_header("X-Circuit-Open"));
  EXPECT_EQ(remaining_of(next), resumed_remaining - 1);
}

TEST(ClusterGateway, AMasterKilledUnderLoadFailsOpenAndItsTierDecidesAgainAfterPromotion) {
  master_killed_under_load("fail-open");
}

TEST(ClusterGateway, AMasterKilledUnderLoadFailsClosedAndItsTierDecidesAgainAfterPromotion) {
  master_killed_under_load("fail-closed");
}

}  // namespace
}  // namespace limitscope::test
