// Verifies the tuner's Redis work on a redis+cluster:// URL: `replay --redis` reads the decision
// stream of rules on every master from the master holding it, and `config override` gives one
// key its own parameters on a rule of every shard, which `decide` then uses for that key only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_test_support.h"
#include "support/process.h"

namespace limitscope::test {
namespace {

TEST(ClusterTuner, ReplayFromTheStreamAndOneKeysOverrideOnEveryShard) {
  auto cluster = RedisCluster::start();
  const redis::KeySchema schema;
  const std::string url = cluster->url();
  for (const auto& [port, rules] : rules_per_master(*cluster, schema, "tune", 1)) {
    const std::string& rule = rules.front();
    SCOPED_TRACE(rule + " on port " + std::to_string(port));
    // Five logged decisions of key a, 1 ms apart, written on the rule's master.
    auto master = cluster->connect(port);
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(
          master
              .command({"XADD", schema.decisions_key(rule), "*", "t", std::to_string(1000 * i),
                        "key", "a", "cost", "1", "allowed", "1", "level", "0"})
              .ok());
    }
    auto r = run_cli("replay --redis " + url + " --rule " + rule +
                     " --algorithm token-bucket --capacity 2 --refill 1/s --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["admitted"], 2);
    EXPECT_EQ(j["rejected"], 3);

    ASSERT_EQ(run_cli("config set --redis " + url + " --rule " + rule +
                      " --algorithm token-bucket --capacity 2 --refill 1/h")
                  .exit_code,
              0);
    auto o = run_cli("config override --redis " + url + " --rule " + rule +
                     " --key vip --capacity 4 --refill 1/h --json");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(nlohmann::json::parse(o.out)["overrides"]["vip"]["capacity"], 4.0);
    for (const auto& [key, admitted] : {std::pair{"vip", 4}, std::pair{"someone", 2}}) {
      int n = 0;
      for (int i = 0; i < 6; ++i) {
        auto d = run_cli("decide --redis " + url + " --rule " + rule + " --key " + key + " --json");
        ASSERT_TRUE(d.exit_code == 0 || d.exit_code == 1) << d.err;  // 1: refused
        const bool allowed = nlohmann::json::parse(d.out)["allowed"].get<bool>();
        EXPECT_EQ(allowed, d.exit_code == 0);
        if (allowed) ++n;
      }
      EXPECT_EQ(n, admitted) << key;
    }
  }
}

}  // namespace
}  // namespace limitscope::test
