// Verifies that a Redis decision refused as late twice (decide.lua's LSLATE: the server ran the
// call past the gateway's deadline, and again after the offset was corrected) is a timeout
// and follows the failure mode, on a real redis-server: fail-open admits, degraded; fail-closed
// refuses with backend_unavailable; both count it against the breaker, and nothing is charged.
// Before, it was an error reply: 503 limiter_error in either mode.
//
// Every call is late here, deterministically: the injected clock does not move and the
// decision deadline is 0, so each deadline is the server's time at the last reading (TIME at
// start, then the time the first LSLATE named), which the next call, run later, is past.
#include <gtest/gtest.h>

#include "core/gateway/redis_admission.h"
#include "core/redis/key_schema.h"
#include "support/redis_server.h"

namespace limitscope::gateway {
namespace {

// One tier, "free" (rule gw-free), one model "m", one key "k".
const char* const kOneTierPolicy =
    R"({"tiers":{"free":{"requests":{"algorithm":"token-bucket","capacity":100,"refill":"10/s"}}},)"
    R"("models":{"m":{"cost":1}},"keys":{"k":"free"}})";

// How many calls the server refused as late (INFO errorstats), or -1.
long long late_refusals(redis::Connection& c) {
  auto info = c.command({"INFO", "errorstats"});
  if (!info) return -1;
  constexpr std::string_view kLine = "errorstat_LSLATE:count=";
  const std::size_t at = info->str.find(kLine);
  return at == std::string::npos ? 0 : std::stoll(info->str.substr(at + kLine.size()));
}

struct LateGateway {
  explicit LateGateway(redis::FailureMode mode) {
    server = test::RedisServer::start();
    url.port = server->port();
    endpoint = std::make_unique<redis::Endpoint>(
        url, redis::EndpointOptions::with({std::chrono::seconds(2), std::chrono::seconds(2)}, 2),
        clock);
    RedisAdmissionOptions o;
    o.failure.mode = mode;
    o.decision_deadline = Nanos{0};
    auto p = parse_policy(kOneTierPolicy, "deadline-test-policy");
    EXPECT_TRUE(p.ok()) << p.error();
    admission = std::make_unique<RedisAdmission>(std::move(p).value(), *endpoint, o, clock);
    EXPECT_EQ(admission->sync_rules(), Status{});
    EXPECT_EQ(admission->check_access(), Status{}) << "the probe carries no deadline";
    auto c = redis::Connection::open(url);
    EXPECT_TRUE(c.ok());
    admin = std::make_unique<redis::Connection>(std::move(c).value());
  }
  AdmissionResult admit() { return admission->admit(AdmissionRequest{"k", "m", 0, clock.now()}); }
  long long state_keys() {
    const std::string state =
        redis::KeySchema().state_key("gw-free", RedisAdmission::limited_key("k", "m"));
    auto n = admin->command({"EXISTS", state, state + ":requests"});
    return n ? n->integer : -1;
  }

  ManualClock clock;
  std::unique_ptr<test::RedisServer> server;
  redis::RedisUrl url;
  std::unique_ptr<redis::Endpoint> endpoint;
  std::unique_ptr<RedisAdmission> admission;
  std::unique_ptr<redis::Connection> admin;
};

TEST(RedisAdmissionDeadline, LateTwiceFailsOpenAsATimeout) {
  LateGateway gw(redis::FailureMode::fail_open);
  const AdmissionResult r = gw.admit();
  EXPECT_TRUE(r.allowed) << "before, 503 limiter_error: " << r.backend_error;
  EXPECT_TRUE(r.degraded);
  EXPECT_NE(r.requests.reason, DenyReason::backend_error);
  EXPECT_NE(r.backend_error.find("LSLATE"), std::string::npos) << r.backend_error;
  EXPECT_NE(r.backend_error.find("past its deadline twice"), std::string::npos) << r.backend_error;
  EXPECT_EQ(late_refusals(*gw.admin), 2) << "the call and its retry both ran, late";
  EXPECT_EQ(gw.state_keys(), 0) << "a late call charged the key";
  const auto stats = gw.admission->stats().at("gw-free");
  EXPECT_EQ(stats.degraded_total, 1u);
  EXPECT_EQ(stats.backend_errors_total, 0u);
  EXPECT_EQ(stats.breaker.failures_total, 1u) << "a timeout counts against the breaker";
}

TEST(RedisAdmissionDeadline, LateTwiceFailsClosedAsATimeoutAndOpensTheBreaker) {
  LateGateway gw(redis::FailureMode::fail_closed);
  const int threshold = redis::BreakerOptions{}.failure_threshold;
  for (int i = 0; i < threshold; ++i) {
    const AdmissionResult r = gw.admit();
    EXPECT_FALSE(r.allowed);
    EXPECT_TRUE(r.degraded);
    EXPECT_EQ(r.requests.reason, DenyReason::backend_unavailable) << r.backend_error;
  }
  EXPECT_EQ(gw.admission->stats().at("gw-free").state, redis::BreakerState::open);
  EXPECT_EQ(late_refusals(*gw.admin), 2 * threshold);
  const AdmissionResult open = gw.admit();
  EXPECT_EQ(open.requests.reason, DenyReason::backend_unavailable);
  EXPECT_EQ(late_refusals(*gw.admin), 2 * threshold) << "an open circuit does not call Redis";
  EXPECT_EQ(gw.state_keys(), 0);
}

}  // namespace
}  // namespace limitscope::gateway
