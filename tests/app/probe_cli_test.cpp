// Verifies `limitscope-cli probe --redis` end to end: the documented JSON shape on a seeded
// server, a profiles file tried before the built-ins, and exit 2 with a clear message for a bad
// profiles file, an unreachable server and a wrong password.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/redis/connection.h"
#include "support/cli_usage.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

TEST(ProbeCli, PrintsEveryLimiterKeyWithItsLevel) {
  auto server = RedisServer::start();
  auto c = redis::Connection::open(server->redis_url());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->command({"SET", "rlflx:alice", "30", "PX", "60000"}).ok());
  ASSERT_TRUE(c->command({"HSET", "rl:bob", "tokens", "4.5", "ts", "1"}).ok());
  ASSERT_TRUE(c->command({"SET", "cache:x", "y"}).ok());
  const std::string profiles = write_temp("profiles.json", R"({"profiles": [
      {"name": "flex", "match": "rlflx:*", "kind": "counter_ttl", "limit": 120}]})");

  auto r =
      run_cli("probe --redis " + server->url() + " --profiles " + quoted(profiles) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["server_time"].get<double>(), 1.6e9);
  EXPECT_EQ(j["unmatched"], 1);
  ASSERT_EQ(j["keys"].size(), 2u);
  const auto& flex = j["keys"][0];  // known pressure first
  EXPECT_EQ(flex["key"], "rlflx:alice");
  EXPECT_EQ(flex["profile"], "flex");
  EXPECT_EQ(flex["kind"], "counter_ttl");
  EXPECT_DOUBLE_EQ(flex["occupancy"].get<double>(), 0.25);
  EXPECT_EQ(flex["count"], 30);
  EXPECT_EQ(flex["limit"], 120);
  EXPECT_GT(flex["ttl_ms"].get<int>(), 0);
  const auto& rl = j["keys"][1];
  EXPECT_EQ(rl["profile"], "rl-hash");
  EXPECT_EQ(rl["level"], 4.5);
  EXPECT_TRUE(rl["capacity"].is_null());
  EXPECT_TRUE(rl["error"].is_null());
}

TEST(ProbeCli, BadInputIsAUsageError) {
  auto server = RedisServer::Options{};
  server.requirepass = "pw";
  auto locked = RedisServer::start(server);
  const std::string bad = write_temp("bad-profiles.json", R"({"profiles": [{"name": "x"}]})");
  expect_usage_errors("probe",
                      {
                          {"", "--redis URL or --metrics URL is required"},
                          {"--redis redis://127.0.0.1:1", "Connection refused"},
                          {"--redis redis://:nope@127.0.0.1:" + std::to_string(locked->port()),
                           "authentication refused"},
                          {"--redis " + locked->url() + " --profiles /nonexistent.json",
                           "/nonexistent.json: cannot be read"},
                          {"--redis " + locked->url() + " --profiles " + quoted(bad),
                           "profiles[0].match: required"},
                          {"--redis " + locked->url() + " --max-keys 0", "--max-keys"},
                      });
}

}  // namespace
}  // namespace limitscope::test
