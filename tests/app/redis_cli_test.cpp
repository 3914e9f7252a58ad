// Verifies `limitscope-cli decide` and `hammer` against a real redis-server: JSON output and
// exit codes, the failure modes with the server gone, and the contention check of issue #5:
// 4 processes × 4 threads on one key admit at most C + r·span (server time), with the slack
// reported. And `bench-redis` on a server it did not start: a password full of shell syntax
// runs nothing, the server's statistics are not reset, and its rules are written audited.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "support/cli_usage.h"
#include "support/hammer_processes.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/test_paths.h"

namespace limitscope::test {
namespace {

void configure(const RedisServer& server, const std::string& rule, double capacity,
               double refill_per_s) {
  auto c = redis::Connection::open(server.redis_url());
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r =
      c->command({"HSET", redis::KeySchema().config_key(rule), "algorithm", "token-bucket",
                  "capacity", std::to_string(capacity), "refill_amount",
                  std::to_string(refill_per_s), "refill_period_ns", "1000000000", "version", "1"});
  ASSERT_TRUE(r.ok()) << r.error().message;
}

TEST(DecideCli, DecisionsExitCodesAndJson) {
  auto server = RedisServer::start();
  // 0.01 token/s: the seconds a loaded machine (or ASan) takes between two processes refill
  // almost nothing, so the second call is refused whatever the pace (at 1/s it was admitted once).
  configure(*server, "api", 5, 0.01);
  const std::string base = "decide --redis " + server->url() + " --rule api --key k1 --json";
  auto first = run_cli(base + " --cost 3");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto j = nlohmann::json::parse(first.out);
  EXPECT_TRUE(j["allowed"].get<bool>());
  EXPECT_FALSE(j["degraded"].get<bool>());
  EXPECT_EQ(j["limit"].get<double>(), 5);
  EXPECT_NEAR(j["remaining"].get<double>(), 2, 0.01);
  EXPECT_EQ(j["config_version"].get<int>(), 1);

  auto refused = run_cli(base + " --cost 4");
  ASSERT_EQ(refused.exit_code, 1) << refused.err;
  auto r = nlohmann::json::parse(refused.out);
  EXPECT_FALSE(r["allowed"].get<bool>());
  EXPECT_EQ(r["reason"], "exhausted");
  // About 200 s until 4 tokens are there again (less the time the two calls took).
  EXPECT_GT(r["retry_after_ms"].get<double>(), 150'000);
  EXPECT_LE(r["retry_after_ms"].get<double>(), 200'000);

  auto never = run_cli(base + " --cost 6");
  EXPECT_EQ(never.exit_code, 1);
  EXPECT_TRUE(nlohmann::json::parse(never.out)["retry_after_ms"].is_null());
}

TEST(DecideCli, BadInputIsAUsageError) {
  auto server = RedisServer::start();
  expect_usage_errors(
      "decide",
      {
          {"--rule api --key k", "--redis URL is required"},
          {"--redis localhost --rule api --key k", "expected redis://"},
          {"--redis " + server->url() + " --key k", "--rule NAME is required"},
          {"--redis " + server->url() + " --rule 'a{b}' --key k", "--rule"},
          {"--redis " + server->url() + " --rule api", "--key KEY is required"},
          {"--redis " + server->url() + " --rule api --key k --cost abc", "--cost 'abc'"},
          {"--redis " + server->url() + " --rule api --key k --failure-mode maybe", "failure mode"},
          {"--redis " + server->url() + " --rule api --key k --timeout 0s", "--timeout"},
          // The rule has no config in Redis: refused with the script's reason, never admitted.
          {"--redis " + server->url() + " --rule api --key k",
           "no config at limitscope:{api}:config"},
      });
}

TEST(DecideCli, ServerGoneFollowsTheFailureMode) {
  auto server = RedisServer::start();
  const std::string url = server->url();
  server->kill();
  auto open = run_cli("decide --redis " + url + " --rule api --key k --json");
  ASSERT_EQ(open.exit_code, 0) << open.err;
  auto j = nlohmann::json::parse(open.out);
  EXPECT_TRUE(j["allowed"].get<bool>());
  EXPECT_TRUE(j["degraded"].get<bool>());
  EXPECT_NE(j["error"].get<std::string>().find("Connection refused"), std::string::npos);

  auto closed =
      run_cli("decide --redis " + url + " --rule api --key k --json --failure-mode fail-closed");
  ASSERT_EQ(closed.exit_code, 1) << closed.err;
  auto c = nlohmann::json::parse(closed.out);
  EXPECT_FALSE(c["allowed"].get<bool>());
  EXPECT_TRUE(c["degraded"].get<bool>());
}

TEST(HammerCli, FourProcessesOfFourThreadsNeverOverAdmit) {
  auto server = RedisServer::start();
  const double capacity = 50;
  const double refill = 20;  // per second
  configure(*server, "hot", capacity, refill);
  const HammerTotals t = run_hammer_processes(server->url(), "hot", 4, 4, "2s", "hammer");
  const long long admitted = t.admitted;
  const long long decided = t.decided;
  const double span_s = t.span_s;
  const double bound = capacity + refill * span_s;
  EXPECT_GT(decided, 1000) << "the processes did not contend";
  EXPECT_GT(admitted, capacity * 0.9) << "the bucket's capacity was never used";
  EXPECT_LE(static_cast<double>(admitted), bound);
  std::cout << "hammer: " << decided << " decisions over " << span_s << " s of server time, "
            << admitted << " admitted, bound C + r·span = " << bound << ", slack "
            << bound - static_cast<double>(admitted) << "\n";
  RecordProperty("slack", std::to_string(bound - static_cast<double>(admitted)));
}

TEST(BenchRedisCli, APasswordIsNeverShellAndAForeignServerKeepsItsStatistics) {
  const std::string marker = temp_path("bench-redis-injected");
  std::remove(marker.c_str());
  const std::string password = "a'$(touch " + marker + ")'b";
  RedisServer::Options o;
  o.extra_args = {"--user", "bench", "on", ">" + password, "~*", "&*", "+@all"};
  auto server = RedisServer::start(o);
  auto admin = redis::Connection::open(server->redis_url());
  ASSERT_TRUE(admin.ok()) << admin.error().message;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(admin->command({"LPUSH", "theirs", "1"}).ok());

  std::string encoded;  // percent-encoded: no quote reaches this test's own shell
  for (unsigned char c : password) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%%%02X", c);
    encoded += std::isalnum(c) != 0 ? std::string(1, static_cast<char>(c)) : std::string(buf);
  }
  auto r = run_cli("bench-redis --redis 'redis://bench:" + encoded +
                   "@127.0.0.1:" + std::to_string(server->port()) +
                   "' --duration 200ms --clients 2 --pipeline 2 --keys 10 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the password ran as a shell command";
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["incr_ceiling"]["tool"], "pipelined INCR") << r.out;
  EXPECT_GT(j["incr_ceiling"]["ops_per_s"].get<double>(), 0) << r.out;
  EXPECT_EQ(r.out.find(password), std::string::npos);

  auto stats = admin->command({"INFO", "commandstats"});
  ASSERT_TRUE(stats.ok());
  EXPECT_NE(stats->str.find("cmdstat_lpush:calls=3,"), std::string::npos)
      << "CONFIG RESETSTAT wiped the server's statistics: " << stats->str;
  const redis::KeySchema schema;
  for (const char* rule : {"bench-tb", "bench-gcra"}) {
    auto audit = admin->command({"XLEN", schema.audit_key(rule)});
    ASSERT_TRUE(audit.ok());
    EXPECT_EQ(audit->integer, 1) << rule << ": the config write is audited";
    auto by = admin->command({"HGET", schema.config_key(rule), "updated_by"});
    ASSERT_TRUE(by.ok());
    EXPECT_EQ(by->str, "limitscope-cli bench-redis");
  }
}

}  // namespace
}  // namespace limitscope::test
