// Verifies the limiter on a 3-master Redis Cluster: decisions (single, per-rule batch and
// multi-rule batch) and config get/set/history/undo on rules landing on every shard equal the
// single-server results at injected instants; the decision stream lands on the rule's shard;
// a rule whose slot moved is followed (MOVED); a non-cluster server is a clear error.
#include "core/redis/cluster_limiter.h"

#include <gtest/gtest.h>

#include "cluster_test_support.h"
#include "core/redis/guarded_limiter.h"
#include "support/redis_server.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;
using test::RedisServer;

class ClusterLimiterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = RedisCluster::start().release();
    single_ = RedisServer::start().release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    delete single_;
  }

  void SetUp() override {
    client_ = std::make_unique<ClusterClient>(test::cluster_url(*cluster_), test::cluster_options(),
                                              SteadyClock::instance());
    RedisUrl u;
    u.port = single_->port();
    auto c = Connection::open(u, {1s, 5s});
    ASSERT_TRUE(c.ok()) << c.error().message;
    conn_ = std::make_unique<Connection>(std::move(c).value());
  }

  // A composite and every algorithm the scripts have.
  static std::vector<RuleConfig> configs() {
    RuleConfig composite;
    composite.limits = {{"rpm", test::window(Algorithm::sliding_log, 5, 2s)},
                        {"tpm", test::bucket(Algorithm::token_bucket, 20, 10)}};
    return {single_limit(test::bucket(Algorithm::token_bucket, 10, 5)),
            single_limit(test::bucket(Algorithm::gcra, 8, 4)),
            single_limit(test::window(Algorithm::sliding_log, 6, 1s)),
            single_limit(test::window(Algorithm::sliding_counter, 7, 2s)),
            single_limit(test::window(Algorithm::fixed_window, 5, 1s)),
            composite};
  }

  // Two rules per master, each with one of configs(), stored on both backends.
  std::vector<std::string> put_rules(const std::string& stem) {
    const auto per_master = test::rules_per_master(*cluster_, schema_, stem, 2);
    std::vector<std::string> rules;
    for (const auto& [port, names] : per_master)
      rules.insert(rules.end(), names.begin(), names.end());
    const auto cfgs = configs();
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const RuleConfig& cfg = cfgs[i % cfgs.size()];
      const ChangeInfo who{"test", "setup", std::nullopt};
      auto a = set_config(*client_, schema_, rules[i], cfg, who);
      auto b = set_config(*conn_, schema_, rules[i], cfg, who);
      EXPECT_TRUE(a.ok()) << a.error().message;
      EXPECT_TRUE(b.ok()) << b.error().message;
    }
    return rules;
  }

  static void expect_same(const Result<RedisDecision>& a, const Result<RedisDecision>& b,
                          const std::string& where) {
    ASSERT_TRUE(a.ok()) << where << ": " << a.error().message;
    ASSERT_TRUE(b.ok()) << where << ": " << b.error().message;
    const Decision& x = a->decision;
    const Decision& y = b->decision;
    EXPECT_EQ(x.allowed, y.allowed) << where;
    EXPECT_EQ(x.remaining, y.remaining) << where;
    EXPECT_EQ(x.limit, y.limit) << where;
    EXPECT_EQ(x.reason, y.reason) << where;
    EXPECT_EQ(x.retry_after, y.retry_after) << where;
    EXPECT_EQ(x.reset_after, y.reset_after) << where;
    EXPECT_EQ(a->config_version, b->config_version) << where;
    EXPECT_EQ(a->binding_limit, b->binding_limit) << where;
  }

  static RedisCluster* cluster_;
  static RedisServer* single_;
  KeySchema schema_{"lstest:"};
  std::unique_ptr<ClusterClient> client_;
  std::unique_ptr<Connection> conn_;
};

RedisCluster* ClusterLimiterTest::cluster_ = nullptr;
RedisServer* ClusterLimiterTest::single_ = nullptr;

// Requests at µs instants 1.7e15 + 50 ms·i over a few keys, costs 1..3.
std::vector<DecideRequest> trace(std::size_t n, std::int64_t start_us) {
  std::vector<DecideRequest> out;
  for (std::size_t i = 0; i < n; ++i) {
    DecideRequest r;
    r.key = "k" + std::to_string(i % 3);
    r.costs = {static_cast<double>(1 + i % 3)};
    r.now_us = start_us + static_cast<std::int64_t>(i) * 50'000;
    out.push_back(r);
  }
  return out;
}

TEST_F(ClusterLimiterTest, SingleDecisionsOnEveryShardEqualTheSingleServer) {
  const auto rules = put_rules("one");
  ClusterLimiter cl(*client_, RedisLimiter(schema_));
  const RedisLimiter single(schema_);
  for (const std::string& rule : rules) {
    for (const DecideRequest& r : trace(60, 1'700'000'000'000'000)) {
      expect_same(cl.decide(rule, r), single.decide(*conn_, rule, r), rule + " " + r.key);
    }
  }
}

TEST_F(ClusterLimiterTest, BatchesSplitPerShardEqualTheSingleServer) {
  const auto rules = put_rules("batch");
  ClusterLimiter cl(*client_, RedisLimiter(schema_));
  const RedisLimiter single(schema_);
  // A multi-rule batch interleaving every rule (so every master gets a pipeline), per_call 4.
  std::vector<RuleRequest> mixed;
  const auto t = trace(40, 1'700'000'100'000'000);
  for (const DecideRequest& r : t) {
    for (const std::string& rule : rules) mixed.push_back(RuleRequest{rule, r});
  }
  const auto got = cl.decide_many(mixed, 4);
  ASSERT_EQ(got.size(), mixed.size());
  for (const std::string& rule : rules) {
    auto want = single.decide_batch(*conn_, rule, t, 4);
    ASSERT_TRUE(want.ok()) << want.error().message;
    std::size_t k = 0;
    for (std::size_t i = 0; i < mixed.size(); ++i) {
      if (mixed[i].rule != rule) continue;
      expect_same(got[i], (*want)[k++], rule + " request " + std::to_string(i));
    }
  }
  // decide_batch of one rule: the same path as one server's batch.
  const auto later = trace(30, 1'700'000'200'000'000);
  for (const std::string& rule : rules) {
    auto a = cl.decide_batch(rule, later, 16);
    auto b = single.decide_batch(*conn_, rule, later, 16);
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_TRUE(b.ok()) << b.error().message;
    for (std::size_t i = 0; i < later.size(); ++i) expect_same((*a)[i], (*b)[i], rule);
  }
}

TEST_F(ClusterLimiterTest, ErrorRepliesStayPerRequestAndUnknownRulesAreRefused) {
  const auto rules = put_rules("err");
  ClusterLimiter cl(*client_, RedisLimiter(schema_));
  std::vector<RuleRequest> mixed{{rules[0], {"a", {1.0}, false, 1'700'000'000'000'000}},
                                 {"no-such-rule", {"a", {1.0}, false, 1'700'000'000'000'000}},
                                 {"bad rule!", {"a", {1.0}, false, std::nullopt}},
                                 {rules[1], {"a", {1.0}, false, 1'700'000'000'000'000}}};
  const auto got = cl.decide_many(mixed, 16);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_TRUE(got[0].ok());
  ASSERT_FALSE(got[1].ok());
  EXPECT_EQ(got[1].error().kind, ErrorKind::reply);
  EXPECT_NE(got[1].error().message.find("LSCONFIG"), std::string::npos) << got[1].error().message;
  ASSERT_FALSE(got[2].ok());
  EXPECT_EQ(got[2].error().kind, ErrorKind::usage);
  EXPECT_TRUE(got[3].ok());
}

TEST_F(ClusterLimiterTest, ConfigHistoryAndUndoOnEveryShardEqualTheSingleServer) {
  const auto rules = put_rules("cfg");
  for (const std::string& rule : rules) {
    const RuleConfig next = single_limit(test::bucket(Algorithm::token_bucket, 99, 7));
    const ChangeInfo change{"alice", "raise", std::nullopt};
    auto a = set_config(*client_, schema_, rule, next, change);
    auto b = set_config(*conn_, schema_, rule, next, change);
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(a->version, b->version);

    auto stale = set_config(*client_, schema_, rule, next, ChangeInfo{"bob", "", a->version - 1});
    ASSERT_FALSE(stale.ok());
    EXPECT_TRUE(is_version_conflict(stale.error())) << stale.error().message;

    auto ga = get_config(*client_, schema_, rule);
    auto gb = get_config(*conn_, schema_, rule);
    ASSERT_TRUE(ga.ok() && gb.ok());
    ASSERT_TRUE(ga->has_value());
    EXPECT_EQ((*ga)->describe(), (*gb)->describe());
    EXPECT_EQ((*ga)->version, (*gb)->version);

    auto ua = undo_config(*client_, schema_, rule, ChangeInfo{"alice", "", std::nullopt});
    auto ub = undo_config(*conn_, schema_, rule, ChangeInfo{"alice", "", std::nullopt});
    ASSERT_TRUE(ua.ok()) << ua.error().message;
    ASSERT_TRUE(ub.ok()) << ub.error().message;
    EXPECT_EQ(ua->describe(), ub->describe());
    EXPECT_EQ(ua->version, ub->version);

    auto ha = config_history(*client_, schema_, rule, 10);
    auto hb = config_history(*conn_, schema_, rule, 10);
    ASSERT_TRUE(ha.ok() && hb.ok());
    ASSERT_EQ(ha->size(), hb->size());
    for (std::size_t i = 0; i < ha->size(); ++i) {
      EXPECT_EQ((*ha)[i].version, (*hb)[i].version);
      EXPECT_EQ((*ha)[i].action, (*hb)[i].action);
      auto fa = (*ha)[i].new_fields;
      auto fb = (*hb)[i].new_fields;
      fa.erase("updated_at");  // each server's own clock
      fb.erase("updated_at");
      EXPECT_EQ(fa, fb);
    }
  }
  auto none = get_config(*client_, schema_, "never-configured");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_FALSE(none->has_value());
}

TEST_F(ClusterLimiterTest, DecisionStreamLandsOnTheRuleShard) {
  const auto rules = put_rules("log");
  ClusterLimiter cl(*client_, RedisLimiter(schema_));
  for (const std::string& rule : rules) {
    std::vector<DecideRequest> logged = trace(7, 1'700'000'300'000'000);
    for (auto& r : logged) r.log = true;
    auto got = cl.decide_batch(rule, logged, 3);
    ASSERT_TRUE(got.ok()) << got.error().message;
    const int port = cluster_->master_port_of_slot(rule_slot(schema_, rule));
    auto owner = cluster_->connect(port);
    auto len = owner.command({"XLEN", schema_.decisions_key(rule)});
    ASSERT_TRUE(len.ok()) << len.error().message;
    EXPECT_EQ(len->integer, 7) << rule;
  }
}

TEST_F(ClusterLimiterTest, GuardedLimiterDecidesThroughTheCluster) {
  const auto rules = put_rules("guard");
  ClusterLimiter cl(*client_, RedisLimiter(schema_));
  GuardedLimiter guarded(cl, FailurePolicy{FailureMode::fail_closed, {}, 1min},
                         SteadyClock::instance());
  for (const std::string& rule : rules) {
    const auto d = guarded.decide(rule, "someone", 1);
    EXPECT_FALSE(d.guarded.degraded) << rule << ": " << d.guarded.error;
    EXPECT_TRUE(d.guarded.decision.allowed) << rule;
    EXPECT_GE(d.config_version, 1) << rule;
  }
}

TEST_F(ClusterLimiterTest, SettlementsOnEveryShardEqualTheSingleServer) {
  RuleConfig cfg;
  cfg.limits.push_back(NamedLimit{"requests", test::bucket(Algorithm::token_bucket, 100, 10)});
  cfg.limits.push_back(NamedLimit{"llm_tokens", test::bucket(Algorithm::token_bucket, 5000, 100)});
  ClusterLimiter cl(*client_, RedisLimiter(schema_));
  const RedisLimiter single(schema_);
  for (const auto& [port, names] : test::rules_per_master(*cluster_, schema_, "settle", 1)) {
    const std::string& rule = names.front();
    const ChangeInfo who{"test", "setup", std::nullopt};
    ASSERT_TRUE(set_config(*client_, schema_, rule, cfg, who).ok());
    ASSERT_TRUE(set_config(*conn_, schema_, rule, cfg, who).ok());
    DecideOptions o;
    o.now_us = 1'700'000'000'000'000;
    DecideRequest r{"k", {1, 4000}, false, std::nullopt};
    expect_same(cl.decide(rule, r, o), single.decide(*conn_, rule, r, o), rule);
    o.now_us = *o.now_us + 500'000;
    const SettleRequest refund{"k", "llm_tokens", -2500};
    auto a = cl.settle(rule, refund, o);
    auto b = single.settle(*conn_, rule, refund, o);
    ASSERT_TRUE(a.ok() && b.ok()) << rule << " on :" << port;
    ASSERT_TRUE(a->has_value() && b->has_value());
    EXPECT_EQ(**a, **b) << rule;
    EXPECT_EQ(**a, 1000 + 50 + 2500) << rule << ": 1000 left, half a second of refill, the refund";
  }
}

TEST_F(ClusterLimiterTest, MovedSlotIsFollowedAndTheMapRefreshed) {
  const auto rules = put_rules("moved");
  ClusterLimiter cl(*client_, RedisLimiter(schema_));
  const std::string& rule = rules.front();
  const DecideRequest r{"x", {1.0}, false, std::nullopt};
  ASSERT_TRUE(cl.decide(rule, r).ok());  // the map is now cached
  const int slot = rule_slot(schema_, rule);
  const int from = cluster_->master_port_of_slot(slot);
  int to = 0;
  for (const auto& n : cluster_->nodes()) {
    if (n.master && n.port != from) to = n.port;
  }
  ASSERT_NE(to, 0);
  cluster_->migrate_slot(slot, to);
  const auto before = client_->stats().moved;
  auto d = cl.decide(rule, r);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->config_version, 1);
  EXPECT_GT(client_->stats().moved, before);
  auto topo = client_->topology();
  ASSERT_TRUE(topo.ok());
  EXPECT_EQ((*topo)->master_of(slot)->port, to);
  auto cfg = get_config(*client_, schema_, rule);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_TRUE(cfg->has_value());
}

TEST_F(ClusterLimiterTest, NonClusterServerAndClusterUrlOnOneConnectionAreClearErrors) {
  RedisUrl u;
  u.port = single_->port();
  ClusterClient not_cluster(u, test::cluster_options(), SteadyClock::instance());
  auto r = not_cluster.refresh();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::usage);
  EXPECT_NE(r.error().message.find("not a cluster node"), std::string::npos) << r.error().message;

  auto direct = Connection::open(test::cluster_url(*cluster_));
  ASSERT_FALSE(direct.ok());
  EXPECT_EQ(direct.error().kind, ErrorKind::usage);
  EXPECT_NE(direct.error().message.find("redis+cluster://"), std::string::npos);
}

}  // namespace
}  // namespace limitscope::redis
