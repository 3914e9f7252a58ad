// Verifies how the gateway's Redis backend writes its rules (sync_rules), on a real
// redis-server: with compare-and-set on the version it read, so a change made between its read
// and its write (an operator's config set, another gateway) is not overwritten blindly; and a
// stored config that cannot be read is repaired from the policy, audited, without stopping the
// other rules.
#include <gtest/gtest.h>

#include <functional>

#include "core/gateway/redis_admission.h"
#include "core/redis/decision_backend.h"
#include "support/redis_server.h"

namespace limitscope::gateway {
namespace {

using std::chrono::milliseconds;
using test::RedisServer;

const char* const kPolicy = R"({
  "tiers": { "free": { "requests": { "algorithm": "token-bucket", "capacity": 100, "refill": "10/s" } },
             "pro": { "requests": { "algorithm": "token-bucket", "capacity": 500, "refill": "50/s" } } },
  "models": { "m": { "cost": 1 } },
  "keys": { "k": "free", "p": "pro" }
})";

Policy policy() {
  auto p = parse_policy(kPolicy, "sync-test-policy");
  EXPECT_TRUE(p.ok()) << p.error();
  return std::move(p).value();
}

// PooledDecisions with a hook run right after each get_config: where another writer races.
class RacingBackend final : public redis::DecisionBackend {
 public:
  explicit RacingBackend(redis::ConnectionPool& pool) : inner_(pool, redis::RedisLimiter()) {}
  std::function<void(const std::string& rule)> after_read;
  std::function<void(const std::string& rule)> after_version_read;

  redis::Result<redis::RedisDecision> decide(const std::string& rule,
                                             const redis::DecideRequest& request,
                                             const redis::DecideOptions& options) override {
    return inner_.decide(rule, request, options);
  }
  redis::Result<std::vector<redis::Result<redis::RedisDecision>>> decide_batch(
      const std::string& rule, const std::vector<redis::DecideRequest>& requests,
      std::size_t per_call, const redis::DecideOptions& options) override {
    return inner_.decide_batch(rule, requests, per_call, options);
  }
  redis::Result<std::optional<double>> settle(const std::string& rule,
                                              const redis::SettleRequest& request,
                                              const redis::DecideOptions& options) override {
    return inner_.settle(rule, request, options);
  }
  const redis::RedisLimiter& limiter() const override { return inner_.limiter(); }
  redis::Result<std::optional<redis::RuleConfig>> get_config(const std::string& rule) override {
    auto r = inner_.get_config(rule);
    if (after_read) after_read(rule);
    return r;
  }
  redis::Result<redis::RuleConfig> set_config(const std::string& rule,
                                              const redis::RuleConfig& config,
                                              const redis::ChangeInfo& change) override {
    return inner_.set_config(rule, config, change);
  }
  redis::Result<std::string> stored_version_field(const std::string& rule) override {
    auto r = inner_.stored_version_field(rule);
    if (after_version_read) after_version_read(rule);
    return r;
  }
  std::string peer() const override { return inner_.peer(); }

 private:
  redis::PooledDecisions inner_;
};

struct Fixture {
  Fixture() {
    server = RedisServer::start();
    EXPECT_NE(server, nullptr);
    url.port = server->port();
    redis::PoolOptions po;
    po.size = 2;
    po.connect = {milliseconds(500), milliseconds(500)};
    pool = std::make_unique<redis::ConnectionPool>(url, po, clock);
    backend = std::make_unique<RacingBackend>(*pool);
    admission =
        std::make_unique<RedisAdmission>(policy(), *backend, RedisAdmissionOptions(), clock,
                                         [this](const std::string& line) { log += line + "\n"; });
  }
  redis::Connection admin() {
    auto c = redis::Connection::open(url);
    EXPECT_TRUE(c.ok()) << c.error().message;
    return std::move(*c);
  }
  std::unique_ptr<RedisServer> server;
  redis::RedisUrl url;
  ManualClock clock;
  std::unique_ptr<redis::ConnectionPool> pool;
  std::unique_ptr<RacingBackend> backend;
  std::unique_ptr<RedisAdmission> admission;
  std::string log;
};

TEST(RedisAdmissionSync, AChangeMadeBetweenTheReadAndTheWriteIsNotOverwritten) {
  Fixture f;
  ASSERT_NE(f.server, nullptr);
  ASSERT_EQ(f.admission->sync_rules(), Status{});
  auto c = f.admin();
  // gw-free drifted to capacity 50 (version 2); the gateway reads it and is about to write the
  // policy's 100 when the operator sets 7 (version 3).
  auto live = redis::get_config(c, redis::KeySchema(), "gw-free");
  ASSERT_TRUE(live.ok() && live->has_value());
  redis::RuleConfig changed = **live;
  changed.limits[0].params.capacity = 50;
  redis::ChangeInfo first{"someone", "drift", std::nullopt};
  ASSERT_TRUE(
      redis::set_config(c, redis::KeySchema(), "gw-free", changed, first).ok());  // version 2
  f.backend->after_read = [&](const std::string& rule) {
    if (rule != "gw-free") return;
    f.backend->after_read = nullptr;
    redis::RuleConfig op = changed;
    op.limits[0].params.capacity = 7;
    redis::ChangeInfo who{"operator", "incident", std::nullopt};
    ASSERT_TRUE(redis::set_config(c, redis::KeySchema(), "gw-free", op, who).ok());  // version 3
  };
  EXPECT_EQ(f.admission->sync_rules(), Status{}) << "a lost race is not an error";
  auto after = redis::get_config(c, redis::KeySchema(), "gw-free");
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->version, 3);
  EXPECT_EQ((*after)->updated_by, "operator") << "the gateway wrote over a change it never read";
  EXPECT_EQ((*after)->limits[0].params.capacity, 7);
}

TEST(RedisAdmissionSync, AnUnreadableConfigIsRepairedAndTheOtherRulesAreSynced) {
  Fixture f;
  ASSERT_NE(f.server, nullptr);
  ASSERT_EQ(f.admission->sync_rules(), Status{});
  auto c = f.admin();
  const redis::KeySchema schema;
  ASSERT_TRUE(c.command({"HSET", schema.config_key("gw-free"), "version", "x1"}).ok());
  ASSERT_TRUE(c.command({"DEL", schema.config_key("gw-pro")}).ok());
  ASSERT_EQ(f.admission->sync_rules(), Status{});
  auto free_cfg = redis::get_config(c, schema, "gw-free");
  ASSERT_TRUE(free_cfg.ok() && free_cfg->has_value())
      << (free_cfg.ok() ? "" : free_cfg.error().message);
  EXPECT_EQ((*free_cfg)->version, 2);
  auto pro_cfg = redis::get_config(c, schema, "gw-pro");
  ASSERT_TRUE(pro_cfg.ok() && pro_cfg->has_value());
  EXPECT_EQ((*pro_cfg)->limits[0].params.capacity, 500);
  EXPECT_NE(f.log.find("redis rule gw-free: the stored config is invalid"), std::string::npos)
      << f.log;
  EXPECT_NE(f.log.find("repaired from the policy as version 2"), std::string::npos) << f.log;

  // The repair compares and sets on the version field as read: a field changed meanwhile wins.
  ASSERT_TRUE(c.command({"HSET", schema.config_key("gw-free"), "version", "x2"}).ok());
  f.backend->after_version_read = [&](const std::string& rule) {
    if (rule != "gw-free") return;
    f.backend->after_version_read = nullptr;
    ASSERT_TRUE(c.command({"HSET", schema.config_key("gw-free"), "version", "x3"}).ok());
  };
  f.log.clear();
  EXPECT_EQ(f.admission->sync_rules(), Status{});
  auto raw = c.command({"HGET", schema.config_key("gw-free"), "version"});
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->str, "x3");
  EXPECT_NE(f.log.find("the repair failed: "), std::string::npos) << f.log;
  EXPECT_NE(f.log.find("LSCAS"), std::string::npos) << f.log;
}

}  // namespace
}  // namespace limitscope::gateway
