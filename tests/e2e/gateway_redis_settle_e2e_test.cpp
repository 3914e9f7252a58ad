// Verifies, on the real limitscope-gateway and a real redis-server, that token settlements
// riding on the key's next decision (the default --redis-settle-delay) leave the same token
// bucket as settling every request with a call of its own (--redis-settle-delay 0), with half
// the limiter's script calls: N sequential requests of one key cost N calls (the first
// request has nothing to carry; the last settlement waits in the gateway until it stops),
// against 2N. Counted on the server (INFO commandstats) and by the gateway's metrics, never
// timed. The settlement still waiting is sent when the gateway stops (SIGTERM).

#include <gtest/gtest.h>
#include <httplib.h>

#include <csignal>
#include <optional>
#include <string>

#include "core/gateway/redis_admission.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"
#include "core/redis/state_codec.h"
#include "e2e/e2e_policy.h"
#include "support/canned_http_server.h"
#include "support/child_process.h"
#include "support/exposition_sums.h"
#include "support/gateway_chat.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

// Tokens: a million, refilled 1 a day (the level moves by well under 0.01 during the test).
const std::string kPolicy =
    e2e_one_tier_policy("t", {1000, "1/d"}, {1000000, "1/d"}, {"rides", "alone"});
constexpr double kCapacity = 1e6;
constexpr int kRequests = 20;

// An upstream that bills 7 tokens a call: less than any estimate (prompt + max_tokens 20), so
// every request settles a refund.
std::unique_ptr<CannedHttpServer> billing_upstream() {
  return e2e_billing_upstream(3, 4);
}

int post_status(const GatewayProcess& gw, const std::string& key) {
  auto r = post_chat(gw, key, e2e_chat_body("m"));
  return r ? r->status : -1;
}

double metric(const GatewayProcess& gw, const std::string& name, const LabelMatch& labels = {}) {
  httplib::Client c(gw.url());
  auto m = c.Get("/metrics");
  return m ? sum_samples(m->body, name, labels) : -1;
}

// The limiter's script calls on the server (FCALL, or EVALSHA where Functions are missing).
long long script_calls(redis::Connection& admin) {
  long long n = 0;
  for (const char* stat : {"cmdstat_fcall", "cmdstat_evalsha"})
    n += e2e_info_count(admin, "commandstats", stat, "calls");
  return n;
}

// The stored llm_tokens level of `key`'s limit, as written (refill since then is negligible).
std::optional<double> token_level(redis::Connection& admin, const std::string& key) {
  const std::string state =
      redis::KeySchema().state_key("gw-t", gateway::RedisAdmission::limited_key(key, "m")) +
      ":llm_tokens";
  auto v = admin.command({"GET", state});
  if (!v || v->type != redis::Value::Type::string) return std::nullopt;
  auto s = redis::decode_token_bucket_state(v->str);
  if (!s) return std::nullopt;
  return s->tokens;
}

TEST(GatewayRedisSettleE2E, RidingSettlementsEqualSettlingEachRequestInHalfTheCalls) {
  auto redis_server = RedisServer::start();
  ASSERT_NE(redis_server, nullptr);
  auto upstream = billing_upstream();
  const std::string policy = write_temp("e2e_settle_ride_policy.json", kPolicy);
  // A delay no test run reaches: only the key's next decision or the shutdown settles.
  GatewayProcess rides({"--policy", policy, "--upstream", upstream->url(""), "--redis",
                        redis_server->url(), "--redis-settle-delay", "1m"});
  GatewayProcess alone({"--policy", policy, "--upstream", upstream->url(""), "--redis",
                        redis_server->url(), "--redis-settle-delay", "0"});
  ASSERT_TRUE(rides.running() && alone.running());
  auto url = redis::parse_redis_url(redis_server->url());
  ASSERT_TRUE(url.ok());
  auto admin = redis::Connection::open(*url);
  ASSERT_TRUE(admin.ok()) << admin.error().message;

  const long long before_rides = script_calls(*admin);
  for (int i = 0; i < kRequests; ++i) ASSERT_EQ(post_status(rides, "rides"), 200);
  const long long rides_calls = script_calls(*admin) - before_rides;
  for (int i = 0; i < kRequests; ++i) ASSERT_EQ(post_status(alone, "alone"), 200);
  const long long alone_calls = script_calls(*admin) - before_rides - rides_calls;

  EXPECT_EQ(rides_calls, kRequests)
      << "one script call per request: decisions carry the settlements";
  EXPECT_EQ(alone_calls, 2 * kRequests) << "a decision and a settle call per request";
  EXPECT_EQ(metric(rides, "limitscope_redis_settlements_total", {{"way", "ride"}}), kRequests - 1);
  EXPECT_EQ(metric(rides, "limitscope_redis_settlements_total", {{"way", "alone"}}), 0);
  EXPECT_EQ(metric(alone, "limitscope_redis_settlements_total", {{"way", "alone"}}), kRequests);
  EXPECT_EQ(metric(alone, "limitscope_redis_settlements_total", {{"way", "ride"}}), 0);
  const double billed_rides = metric(rides, "limitscope_llm_tokens_total");
  const double billed_alone = metric(alone, "limitscope_llm_tokens_total");
  EXPECT_EQ(billed_rides, 7.0 * kRequests);
  EXPECT_EQ(billed_alone, 7.0 * kRequests);

  // Settling each request: the bucket holds the capacity minus what the upstream billed.
  const auto level_alone = token_level(*admin, "alone");
  ASSERT_TRUE(level_alone.has_value());
  EXPECT_NEAR(*level_alone, kCapacity - billed_alone, 0.01);
  // Riding: the last request's refund still waits in the gateway, which sends it alone when
  // it stops; then the bucket is the same.
  const auto waiting = token_level(*admin, "rides");
  ASSERT_TRUE(waiting.has_value());
  EXPECT_LT(*waiting, kCapacity - billed_rides - 1) << "the last refund is not applied yet";
  rides.process().signal(SIGTERM);
  EXPECT_EQ(rides.process().wait(), 0) << rides.process().stderr_text();
  EXPECT_EQ(script_calls(*admin) - before_rides - rides_calls - alone_calls, 1)
      << "one settle call at shutdown";
  const auto level_rides = token_level(*admin, "rides");
  ASSERT_TRUE(level_rides.has_value());
  EXPECT_NEAR(*level_rides, kCapacity - billed_rides, 0.01);
  EXPECT_NEAR(*level_rides, *level_alone, 0.01);
}

}  // namespace
}  // namespace limitscope::test
