// Verifies `limitscope-cli audit retry-after` on a real decision stream: a client that honours
// our gateway's Retry-After (and one impatient retry) yields zero lies (exit 0); a foreign
// gateway promising too short a wait, simulated by writing its stream, is caught (exit 1); keys
// are named from --policy and --key-names, and a raw key the policy lists is shown by its hash.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "core/common/sha256.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/cli_usage.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// Appends one decision to `stream` as a gateway's script would log it (retry_us on refusals).
void log_decision(redis::Connection& c, const std::string& stream, std::int64_t t_us,
                  const std::string& key, bool allowed, std::int64_t retry_us = 0) {
  std::vector<std::string> cmd{"XADD", stream, "*", "t",       std::to_string(t_us), "key",
                               key,    "cost", "1", "allowed", allowed ? "1" : "0",  "level",
                               "0"};
  if (!allowed) {
    cmd.push_back("retry_us");
    cmd.push_back(std::to_string(retry_us));
  }
  ASSERT_TRUE(c.command(cmd).ok());
}

// Blocks until Redis TIME reaches `until_us`: a BLPOP on a key nobody writes, timing out on the
// server's own clock (the clock the gateway's script decides with; none can be injected into
// redis-server), then TIME read to confirm. No pause in the test: the server answers when the
// time has come.
bool wait_for_redis_time(redis::Connection& c, std::int64_t until_us) {
  for (int round = 0; round < 5; ++round) {
    auto now = c.command({"TIME"});
    if (!now || !now->as_time_us()) return false;
    const std::int64_t left_us = until_us - *now->as_time_us();
    if (left_us <= 0) return true;
    char timeout[32];
    std::snprintf(timeout, sizeof timeout, "%.3f", static_cast<double>(left_us + 1000) / 1e6);
    if (!c.command({"BLPOP", "limitscope-test:never-written", timeout})) return false;
  }
  return false;
}

TEST(AuditRetryAfterE2E, HonestClientOnOurGatewayFindsNoLie) {
  auto redis = RedisServer::start();
  ASSERT_NE(redis, nullptr);
  GatewayProcess gw = e2e_logging_gateway(*redis, "audit_retry_policy.json");
  ASSERT_TRUE(gw.running());
  const std::string body = e2e_chat_body("gemini-2.5-flash", 10);
  // Its reads outlast the longest wait (a BLPOP of up to Retry-After seconds).
  auto redis_conn =
      redis::Connection::open(*redis::parse_redis_url(redis->url()),
                              {std::chrono::milliseconds(500), std::chrono::seconds(30)});
  ASSERT_TRUE(redis_conn.ok());
  auto redis_time_us = [&]() -> std::optional<std::int64_t> {
    auto v = redis_conn->command({"TIME"});
    if (!v) return std::nullopt;
    return v->as_time_us();
  };
  httplib::Client c(gw.url());
  auto send = [&] {
    return c.Post("/v1/chat/completions", {{"Authorization", "Bearer free-key"}}, body,
                  "application/json");
  };
  // Two rounds: use up the bucket (3), retry once at once (impatient), then wait what the
  // header says (the behaviour under test: waiting it is the scenario) and retry.
  for (int round = 0; round < 2; ++round) {
    httplib::Result r = send();
    for (int i = 0; i < 10 && r && r->status == 200; ++i) r = send();
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 429);
    auto impatient = send();
    ASSERT_TRUE(impatient);
    ASSERT_EQ(impatient->status, 429);
    const int wait_s = std::stoi(impatient->get_header_value("Retry-After"));
    // Wait on the clock the gateway's script decides with (Redis TIME), in the server.
    const auto refused_at = redis_time_us();
    ASSERT_TRUE(refused_at.has_value());
    ASSERT_TRUE(wait_for_redis_time(*redis_conn, *refused_at + std::int64_t{wait_s} * 1'000'000));
    auto retry = send();
    ASSERT_TRUE(retry);
    EXPECT_EQ(retry->status, 200) << retry->body;
  }
  auto out = run_cli("audit retry-after --json --redis " + redis->url() + " --rule gw-free");
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  const json j = json::parse(out.out);
  EXPECT_EQ(j.at("lies"), 0);
  EXPECT_EQ(j.at("impatient"), 2);
  EXPECT_EQ(j.at("honoured"), 2);
  EXPECT_EQ(j.at("refusals_without_retry"), 0);
  EXPECT_TRUE(j.at("errors").empty());
  ASSERT_EQ(j.at("keys").size(), 1u);
  EXPECT_EQ(j.at("keys")[0].at("impatient_examples").size(), 2u);
}

TEST(AuditRetryAfterE2E, ForeignGatewayWithTooShortRetryAfterIsCaught) {
  auto redis = RedisServer::start();
  ASSERT_NE(redis, nullptr);
  redis::Connection c = connect(*redis);
  // A gateway whose limit frees room after 1 s but promises 0.2 s: a client honouring the
  // promise is refused twice, then admitted.
  const std::string stream = redis::KeySchema{}.decisions_key("foreign");
  const std::int64_t t0 = 1'796'120'229'000'000;
  log_decision(c, stream, t0, "tenant-a", false, 200'000);
  log_decision(c, stream, t0 + 200'000, "tenant-a", false, 200'000);
  log_decision(c, stream, t0 + 400'000, "tenant-a", false, 200'000);
  log_decision(c, stream, t0 + 1'000'000, "tenant-a", true);
  auto out = run_cli("audit retry-after --json --redis " + redis->url() + " --rule foreign");
  ASSERT_EQ(out.exit_code, 1) << out.out << out.err;
  const json j = json::parse(out.out);
  EXPECT_EQ(j.at("lies"), 2);
  EXPECT_EQ(j.at("impatient"), 0);
  const json& k = j.at("keys")[0];
  EXPECT_EQ(k.at("key"), "tenant-a");
  ASSERT_EQ(k.at("lie_examples").size(), 2u);
  EXPECT_DOUBLE_EQ(k.at("lie_examples")[0].at("promised_s").get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(k.at("lie_examples")[0].at("waited_s").get<double>(), 0.2);
}

TEST(AuditRetryAfterE2E, KeysAreNamedAndARawKeyIsNeverPrinted) {
  auto redis = RedisServer::start();
  ASSERT_NE(redis, nullptr);
  redis::Connection c = connect(*redis);
  const std::string stream = redis::KeySchema{}.decisions_key("foreign");
  // One gateway logs raw keys (sk-acme-secret), ours logs "<32 hex>:<model>" (the other key).
  const std::string ours = sha256_hex("sk-other").substr(0, 32) + ":gpt-4.1";
  const std::int64_t t0 = 1'796'120'229'000'000;
  for (const std::string& key : {std::string("sk-acme-secret"), ours}) {
    log_decision(c, stream, t0, key, false, 200'000);
    log_decision(c, stream, t0 + 300'000, key, false, 200'000);
    log_decision(c, stream, t0 + 2'000'000, key, true);
  }
  const std::string policy = write_temp("audit_retry_names_policy.json", R"({
    "tiers": { "free": { "requests": { "algorithm": "token-bucket", "capacity": 3, "refill": "1/s" } } },
    "models": { "gpt-4.1": { "cost": 1 } },
    "keys": { "sk-acme-secret": { "tier": "free", "name": "acme-prod" } } })");
  const std::string names = write_temp(
      "audit_retry_names.csv", "api_key_hash,name\n" + api_key_hash("sk-other") + ",other-team\n");
  const std::string args = "audit retry-after --redis " + redis->url() +
                           " --rule foreign --policy " + quoted(policy) + " --key-names " +
                           quoted(names);
  auto out = run_cli(args + " --json");
  ASSERT_EQ(out.exit_code, 1) << out.out << out.err;
  const json j = json::parse(out.out);
  std::map<std::string, std::string> name_of;
  for (const auto& k : j.at("keys"))
    name_of[k.at("key").get<std::string>()] = k.at("name").get<std::string>();
  EXPECT_EQ(name_of[api_key_hash("sk-acme-secret")], "acme-prod");
  EXPECT_EQ(name_of[ours], "other-team");
  EXPECT_EQ(out.out.find("sk-acme-secret"), std::string::npos) << out.out;
  auto text = run_cli(args);
  ASSERT_EQ(text.exit_code, 1) << text.err;
  EXPECT_NE(text.out.find("acme-prod (" + api_key_hash("sk-acme-secret") + "): 1 lies"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("other-team"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("sk-acme-secret"), std::string::npos) << text.out;
  auto bad = run_cli("audit retry-after --redis " + redis->url() +
                     " --rule foreign --key-names /nonexistent.csv");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--key-names"), std::string::npos) << bad.err;
}

TEST(AuditRetryAfterE2E, BadInputIsAUsageErrorNamingIt) {
  expect_usage_errors("audit retry-after",
                      {
                          {"--redis redis://127.0.0.1:1", "--rule R is required"},
                          {"--rule x", "--redis"},
                          {"--redis redis://127.0.0.1:1 --rule x", "--redis"},
                          {"--redis nope://x --rule x", "nope://x"},
                          {"--redis redis://127.0.0.1:1 --rule x --max-entries 0", "max-entries"},
                      });
}

}  // namespace
}  // namespace limitscope::test
