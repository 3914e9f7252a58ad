// Verifies that one corrupted rule config does not take the gateway down (label e2e; each test
// starts its own redis-server and real limitscope-gateway processes): a `gw-<tier>` config
// that cannot be read (a field set to "nan", a garbage version) is logged and repaired from the
// policy, audited, by a running gateway and by one that starts; a config that cannot be
// repaired fails its own tier alone, and the gateway still starts for the others.

#include <gtest/gtest.h>
#include <httplib.h>

#include <string>
#include <vector>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"
#include "core/redis/rule_config.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

void command(redis::Connection& c, const std::vector<std::string>& args) {
  auto r = c.command(args);
  ASSERT_TRUE(r.ok()) << r.error().message;
}

class GatewayRedisConfigRepairE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = RedisServer::start();
    ASSERT_NE(server_, nullptr);
    policy_ = write_temp("e2e_redis_repair.json", e2e_policy_json(50));
  }
  std::vector<std::string> gateway_args() const {
    return {"--policy", policy_, "--mock-upstream", "--redis", server_->url()};
  }
  std::unique_ptr<RedisServer> server_;
  std::string policy_;
};

TEST_F(GatewayRedisConfigRepairE2E,
       ARunningGatewayRepairsAFieldSetToNanAndTheOtherTiersKeepWorking) {
  GatewayProcess gw(gateway_args());
  ASSERT_TRUE(gw.running());
  ASSERT_EQ(e2e_post_status(gw, "enterprise-bank"), 200);
  auto c = connect(*server_);
  const redis::KeySchema schema;
  command(c, {"HSET", schema.config_key("gw-enterprise"), "requests.capacity", "nan"});
  // A hand edit is seen by a server that keeps the parsed config once the stamp changes
  // (docs/redis-schema.md, "Config stamp"); without one the hash is read at every decision.
  command(c, {"DEL", schema.config_stamp_key("gw-enterprise")});

  // The failed decision triggers the resync, which repairs the rule; the request is decided
  // again on the repaired config.
  EXPECT_EQ(e2e_post_status(gw, "enterprise-bank"), 200);
  EXPECT_EQ(e2e_post_status(gw, "enterprise-bank"), 200);
  EXPECT_EQ(e2e_post_status(gw, "pro-key"), 200);
  auto live = redis::get_config(c, schema, "gw-enterprise");
  ASSERT_TRUE(live.ok()) << live.error().message;
  ASSERT_TRUE(live->has_value());
  EXPECT_EQ((*live)->limits.at(0).params.capacity, 500);
  EXPECT_EQ((*live)->version, 2);
  auto history = redis::config_history(c, schema, "gw-enterprise", 1);
  ASSERT_TRUE(history.ok() && !history->empty());
  EXPECT_EQ(history->front().by, "limitscope-gateway");
  EXPECT_NE(history->front().reason.find("repair of an invalid config"), std::string::npos)
      << history->front().reason;
  EXPECT_EQ(history->front().old_fields.at("requests.capacity"), "nan");
  EXPECT_NE(
      gw.process().stderr_text().find("redis rule gw-enterprise: the stored config is invalid"),
      std::string::npos)
      << gw.process().stderr_text();
}

TEST_F(GatewayRedisConfigRepairE2E, ANewGatewayStartsAndRepairsAGarbageVersionAndANan) {
  {
    GatewayProcess first(gateway_args());  // writes the rules (version 1 each), then stops
    ASSERT_TRUE(first.running());
  }
  auto c = connect(*server_);
  const redis::KeySchema schema;
  command(c, {"HSET", schema.config_key("gw-pro"), "version", "garbage"});
  command(c, {"HSET", schema.config_key("gw-free"), "requests.capacity", "nan"});

  GatewayProcess gw(gateway_args());
  ASSERT_TRUE(gw.running()) << "a corrupted rule must not stop the gateway";
  EXPECT_EQ(e2e_post_status(gw, "pro-key"), 200);
  EXPECT_EQ(e2e_post_status(gw, "free-key"), 200);
  EXPECT_EQ(e2e_post_status(gw, "enterprise-bank"), 200);
  for (const char* rule : {"gw-pro", "gw-free"}) {
    auto live = redis::get_config(c, schema, rule);
    ASSERT_TRUE(live.ok()) << rule << ": " << live.error().message;
    ASSERT_TRUE(live->has_value());
    // The garbage version is replaced by the one after the audit stream's newest entry.
    EXPECT_EQ((*live)->version, 2) << rule;
    EXPECT_EQ((*live)->updated_by, "limitscope-gateway") << rule;
  }
  auto history = redis::config_history(c, schema, "gw-pro", 1);
  ASSERT_TRUE(history.ok() && !history->empty());
  EXPECT_EQ(history->front().old_fields.at("version"), "garbage");
}

TEST_F(GatewayRedisConfigRepairE2E, AConfigThatCannotBeRepairedFailsItsTierAlone) {
  auto c = connect(*server_);
  const redis::KeySchema schema;
  // Not a hash: nothing the gateway may overwrite (it is reported, not deleted).
  command(c, {"SET", schema.config_key("gw-pro"), "not a config"});

  GatewayProcess gw(gateway_args());
  ASSERT_TRUE(gw.running()) << "one broken rule must not stop the gateway for every tier";
  EXPECT_EQ(e2e_post_status(gw, "pro-key"), 503);
  EXPECT_EQ(e2e_post_status(gw, "enterprise-bank"), 200);
  EXPECT_EQ(e2e_post_status(gw, "free-key"), 200);
  EXPECT_NE(gw.process().stderr_text().find("redis rule gw-pro: the stored config is invalid"),
            std::string::npos)
      << gw.process().stderr_text();
}

}  // namespace
}  // namespace limitscope::test
