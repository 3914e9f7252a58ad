// Verifies limitscope-cli on a redis+cluster:// URL: config set/get/history on rules of every
// shard, decide, probe finding every limiter key on every shard with the node that holds it,
// several hammer processes on one key never over-admitting, and `audit clock` reading the TIME
// of every master, not only the first seed's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cluster_test_support.h"
#include "core/limiter/policy.h"
#include "support/child_process.h"
#include "support/hammer_processes.h"
#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope::test {
namespace {

class ClusterCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = RedisCluster::start().release(); }
  static void TearDownTestSuite() { delete cluster_; }
  static RedisCluster* cluster_;
};

RedisCluster* ClusterCli::cluster_ = nullptr;

TEST_F(ClusterCli, ConfigDecideAndProbeOnEveryShard) {
  const redis::KeySchema schema;  // the CLI's default prefix
  const auto per_master = rules_per_master(*cluster_, schema, "cli", 2);
  const std::string url = cluster_->url();
  std::map<std::string, int> rule_port;
  for (const auto& [port, rules] : per_master) {
    for (const std::string& rule : rules) {
      rule_port[rule] = port;
      auto set = run_cli("config set --redis " + url + " --rule " + rule +
                         " --algorithm token-bucket --capacity 10 --refill 1/min --json");
      ASSERT_EQ(set.exit_code, 0) << set.err;
      auto get = run_cli("config get --redis " + url + " --rule " + rule + " --json");
      ASSERT_EQ(get.exit_code, 0) << get.err;
      EXPECT_EQ(nlohmann::json::parse(get.out)["version"].get<int>(), 1);
      auto history = run_cli("config history --redis " + url + " --rule " + rule + " --json");
      ASSERT_EQ(history.exit_code, 0) << history.err;
      EXPECT_EQ(nlohmann::json::parse(history.out)["entries"].size(), 1u);
      for (const char* key : {"alice", "bob"}) {
        auto d = run_cli("decide --redis " + url + " --rule " + rule + " --key " + key + " --json");
        ASSERT_EQ(d.exit_code, 0) << d.err;
        auto j = nlohmann::json::parse(d.out);
        EXPECT_TRUE(j["allowed"].get<bool>());
        EXPECT_FALSE(j["degraded"].get<bool>());
        EXPECT_EQ(j["config_version"].get<int>(), 1);
        EXPECT_EQ(j["remaining"].get<double>(), 9);
      }
    }
  }
  auto probe = run_cli("probe --redis " + url + " --json");
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  auto j = nlohmann::json::parse(probe.out);
  EXPECT_TRUE(j["errors"].empty()) << probe.out;
  std::map<std::string, std::string> found;  // key → node
  for (const auto& k : j["keys"]) found[k["key"].get<std::string>()] = k["node"].get<std::string>();
  std::set<std::string> nodes;
  for (const auto& [rule, port] : rule_port) {
    for (const char* key : {"alice", "bob"}) {
      const std::string state = schema.state_key(rule, key);
      ASSERT_TRUE(found.count(state)) << state << " not found in " << probe.out;
      EXPECT_EQ(found[state], "127.0.0.1:" + std::to_string(port)) << state;
      nodes.insert(found[state]);
    }
  }
  EXPECT_EQ(nodes.size(), 3u);
  for (const auto& k : j["keys"]) {
    if (found.count(k["key"].get<std::string>()) &&
        k["key"].get<std::string>().find("{cli-") != std::string::npos) {
      // One token taken, refilled at 1/min since (the state key lives ~1 min).
      EXPECT_GE(k["level"].get<double>(), 9);
      EXPECT_LE(k["level"].get<double>(), 10);
    }
  }

  auto bad = run_cli("decide --redis redis+cluster://127.0.0.1:1,:x --rule r --key k");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("seed node 2"), std::string::npos) << bad.err;
}

TEST_F(ClusterCli, SeveralHammerProcessesOnOneKeyNeverOverAdmit) {
  const double capacity = 50;
  const double refill = 20;  // per second
  const std::string url = cluster_->url();
  auto set = run_cli("config set --redis " + url +
                     " --rule hot --algorithm token-bucket --capacity 50 --refill 20/s");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  const HammerTotals t = run_hammer_processes(url, "hot", 3, 3, "1500ms", "chammer");
  const long long admitted = t.admitted;
  const long long decided = t.decided;
  const double span_s = t.span_s;
  const double bound = capacity + refill * span_s;
  EXPECT_GT(decided, 500) << "the processes did not contend";
  EXPECT_GT(admitted, capacity * 0.9);
  EXPECT_LE(static_cast<double>(admitted), bound);
}

TEST_F(ClusterCli, AuditClockReadsEveryMaster) {
  GatewayProcess gw({"--policy",
                     write_temp("cluster_clock_policy.json", std::string(default_policy_json())),
                     "--mock-upstream"});
  ASSERT_TRUE(gw.running());
  auto r = run_cli("audit clock --json --redis " + cluster_->url() + " --metrics " + gw.url() +
                   "/metrics");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::set<int> masters;
  for (const auto& n : cluster_->nodes()) {
    if (n.master) masters.insert(n.port);
  }
  ASSERT_EQ(masters.size(), 3u);
  std::set<int> read;
  for (const auto& n : j.at("redis_nodes")) {
    const std::string node = n.at("node").get<std::string>();
    read.insert(std::stoi(node.substr(node.rfind(':') + 1)));
    EXPECT_TRUE(n.at("error").is_null()) << n.dump();
    EXPECT_FALSE(n.at("skewed").get<bool>()) << n.dump();  // one machine, one clock
    EXPECT_LT(std::abs(n.at("vs_workstation").at("offset_s").get<double>()), 1.0) << n.dump();
  }
  EXPECT_EQ(read, masters);
  EXPECT_FALSE(j.at("redis_reference").is_null());
  ASSERT_EQ(j.at("gateways").size(), 1u);
  EXPECT_FALSE(j.at("gateways")[0].at("skewed").get<bool>());
  // The text names every master too.
  auto text =
      run_cli("audit clock --redis " + cluster_->url() + " --metrics " + gw.url() + "/metrics");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (int port : masters)
    EXPECT_NE(text.out.find(":" + std::to_string(port)), std::string::npos) << text.out;
}

TEST(ClusterBenchCli, ClusterBesideSingleServerReportsThePerCpuRatio) {
  auto r = run_cli("bench-redis --cluster --duration 300ms --clients 4 --pipeline 4 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["masters"].get<int>(), 3);
  for (const char* phase : {"token_bucket", "gcra_batch"}) {
    const auto& p = j["phases"][phase];
    for (const char* target : {"single", "cluster"}) {
      EXPECT_GT(p[target]["decisions"].get<long long>(), 0) << phase << " " << target;
      EXPECT_EQ(p[target]["errors"].get<long long>(), 0) << phase << " " << target;
      EXPECT_GT(p[target]["server_cpu_s"].get<double>(), 0) << phase << " " << target;
    }
    EXPECT_GT(p["cluster_vs_single_decisions_per_server_cpu_s"].get<double>(), 0);
  }
  auto both = run_cli("bench-redis --cluster --redis redis://127.0.0.1:1");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--cluster"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace limitscope::test
