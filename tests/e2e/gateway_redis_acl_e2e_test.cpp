// Verifies limitscope-gateway on a real redis-server with ACL users: a user that may read the
// rules but not run the decision script makes the gateway refuse to start (exit 1, naming the
// rule and NOPERM); permissions taken away at runtime make that rule answer 503
// limiter_misconfigured even in fail-open mode (before: admitted without limit), /readyz 503
// with the reason, and limitscope_backend_errors_total{reason="forbidden"} count them; once the
// ACL is fixed, requests are decided again and the gateway is ready. With --log-decisions, a
// user that may not XADD to the decision streams is refused at start too; a decision whose
// log write is refused at runtime takes nothing.

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include "core/gateway/redis_admission.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/exposition_sums.h"
#include "support/gateway_chat.h"
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

// The gateway's arguments on `policy` with the Redis of `s` as user gw, then `more`.
std::vector<std::string> as_gw(const RedisServer& s, const std::string& policy,
                               const std::vector<std::string>& more) {
  std::vector<std::string> args{"--policy", policy, "--mock-upstream", "--redis",
                                url_as(s, "gw", "gwpass")};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

void admin(const RedisServer& s, const std::vector<std::string>& command) {
  redis::Connection c = connect(s);
  auto r = c.command(command);
  ASSERT_TRUE(r.ok()) << r.error().message;
}

httplib::Result post(const GatewayProcess& gw) {
  return post_chat(gw, "pro-key", e2e_chat_body("gemini-2.5-flash"));
}

// A request refused because the limiter is misconfigured (503 limiter_misconfigured).
void expect_misconfigured(const httplib::Result& r) {
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 503) << r->body;
  EXPECT_EQ(json::parse(r->body).at("error").at("code"), "limiter_misconfigured");
}

// Starts the gateway with `args` (after --listen) and expects it to refuse to start, exit 1.
// @return its stderr
std::string refused_at_start(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"--listen", "127.0.0.1:0"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto gw = ChildProcess::start(binary_path("app/limitscope-gateway"), argv);
  if (gw == nullptr) return "(not started)";
  if (const auto line = gw->read_line()) {
    ADD_FAILURE() << "it started: " << *line;
    gw->signal(SIGTERM);
  }
  EXPECT_EQ(gw->wait(), 1);
  return gw->stderr_text();
}

// Starts (and stops) a gateway as user gw, who may write, so that the policy's rules exist.
void write_rules_as_gw(const RedisServer& server, const std::string& policy) {
  GatewayProcess writer(as_gw(server, policy, {}));
  ASSERT_TRUE(writer.running());
}

TEST(GatewayRedisAclE2E, AUserThatCannotDecideIsRefusedAtStart) {
  auto server = start_with_users();
  const std::string policy = write_temp("e2e_acl_policy.json", e2e_policy_json());
  // The rules exist (written by a user that may), so only the decisions would fail.
  ASSERT_NO_FATAL_FAILURE(write_rules_as_gw(*server, policy));
  const std::string err = refused_at_start(
      {"--policy", policy, "--mock-upstream", "--redis", url_as(*server, "ro", "ropass")});
  EXPECT_NE(err.find("cannot decide"), std::string::npos) << err;
  EXPECT_NE(err.find("NOPERM"), std::string::npos) << err;
  EXPECT_NE(err.find("gw-"), std::string::npos) << err;
  EXPECT_EQ(err.find("ropass"), std::string::npos) << "no password in the message: " << err;
}

TEST(GatewayRedisAclE2E, PermissionsTakenAwayFailClosedNotReadyAndCounted) {
  auto server = start_with_users();
  const std::string policy = write_temp("e2e_acl_policy_rt.json", e2e_policy_json());
  GatewayProcess gw(as_gw(*server, policy, {"--redis-failure-mode", "fail-open"}));
  ASSERT_TRUE(gw.running());
  auto ok = post(gw);
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;

  admin(*server, {"ACL", "SETUSER", "gw", "-@write"});
  for (int i = 0; i < 20; ++i) {
    auto r = post(gw);
    ASSERT_NO_FATAL_FAILURE(expect_misconfigured(r));
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

// Decision streams (`limitscope:{gw-<tier>}:decisions`) of the e2e policy's tiers that exist.
long long e2e_decision_streams(const RedisServer& s) {
  auto c = redis::Connection::open(s.redis_url());
  if (!c) return -1;
  const redis::KeySchema schema;
  auto n = c->command({"EXISTS", schema.decisions_key("gw-free"), schema.decisions_key("gw-pro"),
                       schema.decisions_key("gw-enterprise")});
  return n ? n->integer : -1;
}

// A user that may run the script but not XADD to the decision stream, with --log-decisions:
// the gateway refuses to start (exit 1) naming the user, the stream and XADD; before, it
// started and answered 503 limiter_misconfigured to every logged key. The check writes
// nothing: no stream exists after it, refused or passed.
TEST(GatewayRedisAclE2E, AUserThatMayNotLogDecisionsIsRefusedAtStart) {
  auto server = start_with_users();
  const std::string policy = write_temp("e2e_acl_policy_xadd_start.json", e2e_policy_json());
  // The rules are written (audited, so with XADD) before XADD is taken away.
  ASSERT_NO_FATAL_FAILURE(write_rules_as_gw(*server, policy));
  admin(*server, {"ACL", "SETUSER", "gw", "-xadd"});
  const std::string err = refused_at_start(as_gw(*server, policy, {"--log-decisions", "0.5"}));
  EXPECT_NE(err.find("user \"gw\""), std::string::npos) << err;
  EXPECT_NE(err.find("may not XADD"), std::string::npos) << err;
  EXPECT_NE(err.find("limitscope:{gw-"), std::string::npos) << "names the stream key: " << err;
  EXPECT_NE(err.find("}:decisions"), std::string::npos) << err;
  EXPECT_NE(err.find("NOPERM"), std::string::npos) << err;
  EXPECT_EQ(err.find("gwpass"), std::string::npos) << "no password in the message: " << err;
  EXPECT_EQ(e2e_decision_streams(*server), 0) << "the check wrote to a stream";

  // Without a decision log the same user needs no XADD, and starts.
  {
    GatewayProcess unlogged(as_gw(*server, policy, {}));
    EXPECT_TRUE(unlogged.running()) << unlogged.process().stderr_text();
  }
  admin(*server, {"ACL", "SETUSER", "gw", "+xadd"});
  GatewayProcess gw(as_gw(*server, policy, {"--log-decisions", "0.5"}));
  ASSERT_TRUE(gw.running()) << gw.process().stderr_text();
  EXPECT_EQ(e2e_decision_streams(*server), 0) << "the check left an entry in a stream";
}

// XADD taken away while the gateway runs (--log-decisions): each logged decision is refused
// (503) and takes nothing; before, the script wrote the key's state and then failed on XADD,
// so every 503 still consumed a request and its tokens. /readyz stays not ready (its re-probe
// checks XADD too; before, the probe logged nothing, so it passed and the gateway said ready).
TEST(GatewayRedisAclE2E, ARefusedDecisionLogWriteTakesNothing) {
  auto server = start_with_users();
  const std::string policy = write_temp("e2e_acl_policy_xadd.json", e2e_policy_json());
  GatewayProcess gw(as_gw(*server, policy, {"--log-decisions", "1"}));
  ASSERT_TRUE(gw.running());
  admin(*server, {"ACL", "SETUSER", "gw", "-xadd"});
  for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(expect_misconfigured(post(gw)));
  redis::Connection c = connect(*server);
  EXPECT_EQ(e2e_pro_state_keys(c), 0) << "a refused decision wrote state";
  httplib::Client probe(gw.url());
  auto ready = probe.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503) << ready->body;
  EXPECT_NE(ready->body.find("xadd"), std::string::npos) << ready->body;
  admin(*server, {"ACL", "SETUSER", "gw", "+xadd"});
  auto r = post(gw);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("X-RateLimit-Remaining"), "49") << "a full bucket of 50 paid once";
  auto ready_again = probe.Get("/readyz");
  ASSERT_TRUE(ready_again);
  EXPECT_EQ(ready_again->status, 200) << ready_again->body;
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
