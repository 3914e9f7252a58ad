// Verifies `limitscope-cli audit retry-after` on a real decision stream: a client that honours
// our gateway's Retry-After (and one impatient retry) yields zero lies (exit 0); a foreign
// gateway promising too short a wait, simulated by writing its stream, is caught (exit 1).

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/prometheus_process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

TEST(AuditRetryAfterE2E, HonestClientOnOurGatewayFindsNoLie) {
  auto redis = RedisServer::start();
  ASSERT_NE(redis, nullptr);
  const std::string policy = write_temp("audit_retry_policy.json", e2e_policy_json());
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", redis->url(),
                     "--log-decisions", "1"});
  ASSERT_TRUE(gw.running());
  const std::string body = json{{"model", "gemini-2.5-flash"},
                                {"max_tokens", 10},
                                {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}}
                               .dump();
  auto redis_conn = redis::Connection::open(*redis::parse_redis_url(redis->url()));
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
    // Wait on the clock the gateway's script decides with (Redis TIME), not on a sleep.
    const auto refused_at = redis_time_us();
    ASSERT_TRUE(refused_at.has_value());
    ASSERT_TRUE(poll_until([&] {
      const auto now = redis_time_us();
      return now && *now >= *refused_at + std::int64_t{wait_s} * 1'000'000;
    }));
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
  auto c = redis::Connection::open(*redis::parse_redis_url(redis->url()));
  ASSERT_TRUE(c.ok());
  // A gateway whose limit frees room after 1 s but promises 0.2 s: a client honouring the
  // promise is refused twice, then admitted.
  const std::string stream = redis::KeySchema{}.decisions_key("foreign");
  auto add = [&](std::int64_t t, const char* allowed, const char* retry) {
    std::vector<std::string> cmd{"XADD", stream, "*", "t", std::to_string(t), "key", "tenant-a",
                                 "cost", "1", "allowed", allowed, "level", "0"};
    if (retry != nullptr) {
      cmd.push_back("retry_us");
      cmd.push_back(retry);
    }
    ASSERT_TRUE(c->command(cmd).ok());
  };
  const std::int64_t t0 = 1'796'120'229'000'000;
  add(t0, "0", "200000");
  add(t0 + 200'000, "0", "200000");
  add(t0 + 400'000, "0", "200000");
  add(t0 + 1'000'000, "1", nullptr);
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

TEST(AuditRetryAfterE2E, BadInputIsAUsageErrorNamingIt) {
  struct Row {
    std::string args;
    std::string message;
  };
  const Row rows[] = {
      {"--redis redis://127.0.0.1:1", "--rule R is required"},
      {"--rule x", "--redis"},
      {"--redis redis://127.0.0.1:1 --rule x", "--redis"},
      {"--redis nope://x --rule x", "nope://x"},
      {"--redis redis://127.0.0.1:1 --rule x --max-entries 0", "max-entries"},
  };
  for (const Row& row : rows) {
    auto r = run_cli("audit retry-after " + row.args);
    EXPECT_EQ(r.exit_code, 2) << row.args;
    EXPECT_NE(r.err.find(row.message), std::string::npos) << row.args << ": " << r.err;
  }
}

}  // namespace
}  // namespace limitscope::test
