// Verifies that the gateway's Redis backend treats the server refusing its user (NOPERM for the
// script, an ACL refusal inside it, WRONGPASS) as a misconfiguration, on a real redis-server with
// ACL users: refused with backend_forbidden even in fail-open mode, the breaker left closed,
// not_ready() naming the rule until a request or a probe (at most once a second on the injected
// clock) decides again, and check_access() finding a user that may read configs but not decide.
#include <gtest/gtest.h>

#include "core/gateway/redis_admission.h"
#include "support/redis_server.h"

namespace limitscope::gateway {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using test::RedisServer;

const char* const kPolicy = R"({
  "tiers": { "free": { "requests": { "algorithm": "token-bucket", "capacity": 100, "refill": "10/s" } } },
  "models": { "m": { "cost": 1 } },
  "keys": { "k": "free" }
})";

Policy policy() {
  auto p = parse_policy(kPolicy, "acl-test-policy");
  EXPECT_TRUE(p.ok()) << p.error();
  return std::move(p).value();
}

std::unique_ptr<RedisServer> start_with_users() {
  RedisServer::Options o;
  o.extra_args = {"--user", "gw", "on",      ">gwpass", "~*", "&*",     "+@all",       "--user",
                  "ro",     "on", ">ropass", "~*",      "&*", "+@read", "+@connection"};
  return RedisServer::start(o);
}

redis::RedisUrl url_of(const RedisServer& s, std::string user = {}, std::string password = {}) {
  redis::RedisUrl url;
  url.port = s.port();
  url.user = std::move(user);
  url.password = std::move(password);
  return url;
}

void admin(const RedisServer& s, const std::vector<std::string>& command) {
  auto c = redis::Connection::open(url_of(s));
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = c->command(command);
  ASSERT_TRUE(r.ok()) << r.error().message;
}

struct Gateway {
  Gateway(const RedisServer& s, const std::string& user, const std::string& password) {
    endpoint = std::make_unique<redis::Endpoint>(
        url_of(s, user, password),
        redis::EndpointOptions::with({milliseconds(500), milliseconds(500)}, 2), clock);
    RedisAdmissionOptions o;
    o.failure.mode = redis::FailureMode::fail_open;
    admission = std::make_unique<RedisAdmission>(policy(), *endpoint, o, clock);
  }
  AdmissionResult admit() { return admission->admit(AdmissionRequest{"k", "m", 0, clock.now()}); }

  ManualClock clock;
  std::unique_ptr<redis::Endpoint> endpoint;
  std::unique_ptr<RedisAdmission> admission;
};

TEST(RedisAdmissionAcl, AUserThatMayReadConfigsButNotDecideIsFoundAtStart) {
  auto server = start_with_users();
  Gateway writer(*server, "gw", "gwpass");
  ASSERT_EQ(writer.admission->sync_rules(), Status{});
  EXPECT_EQ(writer.admission->check_access(), Status{});

  Gateway reader(*server, "ro", "ropass");
  EXPECT_EQ(reader.admission->sync_rules(), Status{}) << "the configs are there and readable";
  const Status refused = reader.admission->check_access();
  ASSERT_FALSE(refused.ok()) << "before, this user started and failed open for ever";
  EXPECT_NE(refused.error().find("gw-free"), std::string::npos) << refused.error();
  EXPECT_NE(refused.error().find("NOPERM"), std::string::npos) << refused.error();
}

TEST(RedisAdmissionAcl, PermissionsTakenAwayAreRefusedInFailOpenModeUntilRestored) {
  auto server = start_with_users();
  Gateway gw(*server, "gw", "gwpass");
  ASSERT_EQ(gw.admission->sync_rules(), Status{});
  ASSERT_TRUE(gw.admit().allowed);
  EXPECT_EQ(gw.admission->not_ready(), Status{});

  // The script may run but not write: Redis refuses inside it ("ERR The user executing the
  // script can't run this command").
  admin(*server, {"ACL", "SETUSER", "gw", "-@write"});
  for (int i = 0; i < 5; ++i) {
    const AdmissionResult r = gw.admit();
    EXPECT_FALSE(r.allowed) << "fail-open must not admit a misconfigured rule";
    EXPECT_FALSE(r.degraded);
    EXPECT_EQ(r.requests.reason, DenyReason::backend_forbidden);
  }
  const auto stats = gw.admission->stats().at("gw-free");
  EXPECT_EQ(stats.forbidden_total, 5u);
  EXPECT_EQ(stats.state, redis::BreakerState::closed);
  const Status why = gw.admission->not_ready();  // probes: still refused
  ASSERT_FALSE(why.ok());
  EXPECT_NE(why.error().find("gw-free"), std::string::npos) << why.error();

  admin(*server, {"ACL", "SETUSER", "gw", "+@all"});
  EXPECT_FALSE(gw.admission->not_ready().ok()) << "no probe within the second";
  gw.clock.advance(seconds(1));
  EXPECT_EQ(gw.admission->not_ready(), Status{}) << "the probe decided again";
  EXPECT_TRUE(gw.admit().allowed);
}

TEST(RedisAdmissionAcl, EvalshaDeniedAndAChangedPasswordAreMisconfigurationsNotOutages) {
  auto server = start_with_users();
  Gateway gw(*server, "gw", "gwpass");
  ASSERT_EQ(gw.admission->sync_rules(), Status{});
  ASSERT_TRUE(gw.admit().allowed);

  // Neither path to the limiter's Lua: FCALL (Functions) nor EVALSHA (the fallback).
  admin(*server, {"ACL", "SETUSER", "gw", "-fcall", "-evalsha", "-eval"});
  AdmissionResult r = gw.admit();
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.requests.reason, DenyReason::backend_forbidden);
  EXPECT_NE(r.backend_error.find("NOPERM"), std::string::npos) << r.backend_error;

  admin(*server, {"ACL", "SETUSER", "gw", "+@all", "resetpass", ">other"});
  admin(*server, {"CLIENT", "KILL", "USER", "gw"});
  // The pool's killed idle connections fail first (closed: an outage, rightly); reconnecting
  // then meets WRONGPASS.
  for (int i = 0; i < 3; ++i) {
    r = gw.admit();
    if (r.requests.reason == DenyReason::backend_forbidden) break;
  }
  for (int i = 0; i < 3; ++i) {
    r = gw.admit();
    EXPECT_FALSE(r.allowed);
    EXPECT_FALSE(r.degraded);
    EXPECT_EQ(r.requests.reason, DenyReason::backend_forbidden) << r.backend_error;
  }
  EXPECT_NE(r.backend_error.find("WRONGPASS"), std::string::npos) << r.backend_error;
  EXPECT_EQ(gw.admission->stats().at("gw-free").state, redis::BreakerState::closed);
}

}  // namespace
}  // namespace limitscope::gateway
