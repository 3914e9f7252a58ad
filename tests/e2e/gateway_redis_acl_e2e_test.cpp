// Verifies limitscope-gateway on a real redis-server with ACL users: a user that may read the
// rules but not run the decision script makes the gateway refuse to start (exit 1, naming the
// rule and NOPERM); permissions taken away at runtime make that rule answer 503
// limiter_misconfigured even in fail-open mode (before: admitted without limit), /readyz 503
// with the reason, and limitscope_backend_errors_total{reason="forbidden"} count them; once the
// ACL is fixed, requests are decided again and the gateway is ready. A decision whose log
// write is refused takes nothing.

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "core/gateway/redis_admission.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/exposition_sums.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/test_paths.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

std::unique_ptr<RedisServer> start_with_users() {
  RedisServer::Options o;
  o.extra_args = {"--user", "gw", "on",      ">gwpass", "~*", "&*",     "+@all",       "--user",
                  "ro",     "on", ">ropass", "~*",      "&*", "+@read", "+@connection"};
  return RedisServer::start(o);
}

std::string url_as(const RedisServer& s, const std::string& user, const std::string& password) {
  return "redis://" + user + ":" + password + "@127.0.0.1:" + std::to_string(s.port());
}

void admin(const RedisServer& s, const std::vector<std::string>& command) {
  redis::RedisUrl url;
  url.port = s.port();
  auto c = redis::Connection::open(url);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = c->command(command);
  ASSERT_TRUE(r.ok()) << r.error().message;
}

httplib::Result post(const GatewayProcess& gw) {
  httplib::Client c(gw.url());
  c.set_read_timeout(10);
  return c.Post("/v1/chat/completions", {{"Authorization", "Bearer pro-key"}},
                e2e_chat_body("gemini-2.5-flash"), "application/json");
}

TEST(GatewayRedisAclE2E, AUserThatCannotDecideIsRefusedAtStart) {
  auto server = start_with_users();
  const std::string policy = write_temp("e2e_acl_policy.json", e2e_policy_json());
  {
    // The rules exist (written by a user that may), so only the decisions would fail.
    GatewayProcess writer(
        {"--policy", policy, "--mock-upstream", "--redis", url_as(*server, "gw", "gwpass")});
    ASSERT_TRUE(writer.running());
  }
  auto ro = ChildProcess::start(binary_path("app/limitscope-gateway"),
                                {"--listen", "127.0.0.1:0", "--policy", policy, "--mock-upstream",
                                 "--redis", url_as(*server, "ro", "ropass")});
  ASSERT_NE(ro, nullptr);
  const auto line = ro->read_line();
  EXPECT_FALSE(line.has_value()) << "it started: " << *line;
  EXPECT_EQ(ro->wait(), 1);
  const std::string err = ro->stderr_text();
  EXPECT_NE(err.find("cannot decide"), std::string::npos) << err;
  EXPECT_NE(err.find("NOPERM"), std::string::npos) << err;
  EXPECT_NE(err.find("gw-"), std::string::npos) << err;
  EXPECT_EQ(err.find("ropass"), std::string::npos) << "no password in the message: " << err;
}

TEST(GatewayRedisAclE2E, PermissionsTakenAwayFailClosedNotReadyAndCounted) {
  auto server = start_with_users();
  const std::string policy = write_temp("e2e_acl_policy_rt.json", e2e_policy_json());
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis",
                     url_as(*server, "gw", "gwpass"), "--redis-failure-mode", "fail-open"});
  ASSERT_TRUE(gw.running());
  auto ok = post(gw);
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;

  admin(*server, {"ACL", "SETUSER", "gw", "-@write"});
  for (int i = 0; i < 20; ++i) {
    auto r = post(gw);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 503) << r->body;
    EXPECT_EQ(json::parse(r->body).at("error").at("code"), "limiter_misconfigured");
    EXPECT_FALSE(r->has_header("X-Circuit-Open")) << "not an outage";
  }
  httplib::Client c(gw.url());
  auto ready = c.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  const json body = json::parse(ready->body);
  EXPECT_EQ(body.at("ready"), false);
  EXPECT_NE(body.at("reason").get<std::string>().find("gw-pro"), std::string::npos) << ready->body;
  auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(sum_samples(metrics->body, "limitscope_backend_errors_total",
                        {{"backend", "redis"}, {"reason", "forbidden"}}),
            20);

  admin(*server, {"ACL", "SETUSER", "gw", "+@all"});
  auto again = post(gw);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
  auto ready_again = c.Get("/readyz");
  ASSERT_TRUE(ready_again);
  EXPECT_EQ(ready_again->status, 200) << ready_again->body;
}

// A user that may run the script but not XADD to the decision stream (--log-decisions): each
// logged decision is refused (503) and takes nothing; before, the script wrote the key's state
// and then failed on XADD, so every 503 still consumed a request and its tokens.
TEST(GatewayRedisAclE2E, ARefusedDecisionLogWriteTakesNothing) {
  auto server = start_with_users();
  const std::string policy = write_temp("e2e_acl_policy_xadd.json", e2e_policy_json());
  {
    // The rules are written (audited, so with XADD) before XADD is taken away.
    GatewayProcess writer(
        {"--policy", policy, "--mock-upstream", "--redis", url_as(*server, "gw", "gwpass")});
    ASSERT_TRUE(writer.running());
  }
  admin(*server, {"ACL", "SETUSER", "gw", "-xadd"});
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis",
                     url_as(*server, "gw", "gwpass"), "--log-decisions", "1"});
  ASSERT_TRUE(gw.running());
  for (int i = 0; i < 3; ++i) {
    auto r = post(gw);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 503) << r->body;
    EXPECT_EQ(json::parse(r->body).at("error").at("code"), "limiter_misconfigured");
  }
  redis::RedisUrl url;
  url.port = server->port();
  auto c = redis::Connection::open(url);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(e2e_pro_state_keys(*c), 0) << "a refused decision wrote state";
  admin(*server, {"ACL", "SETUSER", "gw", "+xadd"});
  auto r = post(gw);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("X-RateLimit-Remaining"), "49") << "a full bucket of 50 paid once";
}

// The password from a 0600 file or the environment, never on the command line; a file others
// may read is refused at start (exit 2, naming it).
TEST(GatewayRedisAclE2E, PasswordFromAFileOrTheEnvironmentNotTheCommandLine) {
  auto server = start_with_users();
  const std::string policy = write_temp("e2e_acl_policy_pw.json", e2e_policy_json());
  const std::string url = "redis://gw:@127.0.0.1:" + std::to_string(server->port());
  const std::string file = write_temp("gw-password", "gwpass\n");
  chmod(file.c_str(), 0600);
  {
    GatewayProcess gw(
        {"--policy", policy, "--mock-upstream", "--redis", url, "--redis-password-file", file});
    ASSERT_TRUE(gw.running());
    auto r = post(gw);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
  }
  chmod(file.c_str(), 0644);
  ProcessResult open =
      run_process(binary_path("app/limitscope-gateway"),
                  "--listen 127.0.0.1:0 --mock-upstream --policy " + quoted(policy) + " --redis " +
                      quoted(url) + " --redis-password-file " + quoted(file));
  EXPECT_EQ(open.exit_code, 2);
  EXPECT_NE(open.err.find("chmod 600"), std::string::npos) << open.err;
  ProcessResult env =
      run_process("/usr/bin/env", "LIMITSCOPE_REDIS_PASSWORD=wrong " +
                                      quoted(binary_path("app/limitscope-gateway")) +
                                      " --listen 127.0.0.1:0 --mock-upstream --policy " +
                                      quoted(policy) + " --redis " + quoted(url));
  EXPECT_EQ(env.exit_code, 1) << "the environment's (wrong) password was used: " << env.err;
  EXPECT_NE(env.err.find("WRONGPASS"), std::string::npos) << env.err;
}

}  // namespace
}  // namespace limitscope::test
