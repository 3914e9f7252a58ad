// Verifies RedisAdmission's token settlement on a real redis-server (redis_admission.h,
// "Settlement"): corrections riding on the key's next decision, and the one left waiting sent
// alone once it is due, leave the same bucket as settling every request alone; a correction
// whose decision timed out after it was sent is dropped and counted, never sent twice (the
// call Redis ran late applied it once); one whose decision was never sent (open circuit) waits.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "core/gateway/redis_admission.h"
#include "core/redis/key_schema.h"
#include "core/redis/state_codec.h"
#include "support/recording_clock.h"
#include "support/redis_monitor.h"
#include "support/redis_server.h"

namespace limitscope::gateway {
namespace {

// Tokens: a million refilled 1 a day, so levels are exact to well under 0.01 here.
const char* const kPolicy =
    R"({"tiers":{"t":{"requests":{"algorithm":"token-bucket","capacity":1000,"refill":"1/d"},)"
    R"("llm_tokens":{"algorithm":"token-bucket","capacity":1000000,"refill":"1/d"}}},)"
    R"("models":{"m":{"cost":1}},"keys":{"k":"t","j":"t"}})";

struct Gateway {
  Gateway(test::RedisServer& server, std::chrono::milliseconds settle_delay,
          int failure_threshold = 5, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    url.port = server.port();
    endpoint = std::make_unique<redis::Endpoint>(
        url, redis::EndpointOptions::with({timeout, timeout}, 4), clock);
    RedisAdmissionOptions o;
    o.settle_delay = settle_delay;
    o.failure.breaker.failure_threshold = failure_threshold;
    o.on_settlement = [this](SettleWay w) { ++ways[static_cast<int>(w)]; };
    auto p = parse_policy(kPolicy, "settle-test-policy");
    EXPECT_TRUE(p.ok()) << p.error();
    admission = std::make_unique<RedisAdmission>(std::move(p).value(), *endpoint, o, clock);
    EXPECT_EQ(admission->sync_rules(), Status{});
    auto c = redis::Connection::open(url);
    EXPECT_TRUE(c.ok());
    admin = std::make_unique<redis::Connection>(std::move(c).value());
  }
  AdmissionResult admit(const std::string& key) {
    return admission->admit(AdmissionRequest{key, "m", 100, clock.now()});
  }
  std::optional<double> level(const std::string& key) {
    const std::string state =
        redis::KeySchema().state_key("gw-t", RedisAdmission::limited_key(key, "m"));
    auto v = admin->command({"GET", state + ":llm_tokens"});
    if (!v || v->type != redis::Value::Type::string) return std::nullopt;
    auto s = redis::decode_token_bucket_state(v->str);
    return s ? std::optional<double>(s->tokens) : std::nullopt;
  }

  test::RecordingClock clock;  // the flusher waits on it: nothing is flushed until a test moves it
  redis::RedisUrl url;
  std::unique_ptr<redis::Endpoint> endpoint;
  std::unique_ptr<RedisAdmission> admission;
  std::unique_ptr<redis::Connection> admin;
  std::atomic<int> ways[3] = {0, 0, 0};  // SettleWay ride, alone, lost
};

TEST(RedisAdmissionSettle, RidingAndFlushedSettlementsEqualSettlingEachRequestAlone) {
  auto server = test::RedisServer::start();
  Gateway rides(*server, std::chrono::seconds(1));
  Gateway alone(*server, std::chrono::milliseconds(0));
  constexpr int kRequests = 10;
  for (Gateway* g : {&rides, &alone}) {
    const std::string key = g == &rides ? "k" : "j";
    for (int i = 0; i < kRequests; ++i) {
      const AdmissionResult r = g->admit(key);
      ASSERT_TRUE(r.allowed && !r.degraded) << r.backend_error;
      EXPECT_TRUE(g->admission->settle(key, "m", -30 - i, g->clock.now()));
    }
  }
  // Per key: 100 estimated each, 30 + i of it refunded.
  const double expected =
      1e6 - kRequests * 100 + (30 * kRequests + kRequests * (kRequests - 1) / 2);
  EXPECT_EQ(alone.ways[static_cast<int>(SettleWay::alone)], kRequests);
  EXPECT_EQ(alone.admission->pending_settlements(), 0u);
  ASSERT_TRUE(alone.level("j").has_value());
  EXPECT_NEAR(*alone.level("j"), expected, 0.01);

  EXPECT_EQ(rides.ways[static_cast<int>(SettleWay::ride)], kRequests - 1)
      << "each request carried the last one's";
  EXPECT_EQ(rides.admission->pending_settlements(), 1u);
  EXPECT_NEAR(*rides.level("k"), expected - (30 + (kRequests - 1)), 0.01)
      << "the last refund waits";
  // Not due yet; due once it waited the delay, when the flusher sends it.
  EXPECT_EQ(rides.admission->flush_due_settlements(rides.clock.now()), 0u);
  ASSERT_TRUE(test::eventually([&] { return rides.clock.waiting_for_future() == 1; }));
  rides.clock.inner.advance(std::chrono::seconds(1));
  ASSERT_TRUE(
      test::eventually([&] { return rides.ways[static_cast<int>(SettleWay::alone)] == 1; }));
  EXPECT_EQ(rides.admission->pending_settlements(), 0u);
  EXPECT_EQ(rides.admission->settled(), static_cast<std::uint64_t>(kRequests));
  EXPECT_EQ(rides.admission->settle_failures(), 0u);
  EXPECT_NEAR(*rides.level("k"), expected, 0.01);
}

TEST(RedisAdmissionSettle, TheFlusherWaitsOnTheInjectedClock) {
  auto server = test::RedisServer::start();
  Gateway gw(*server, std::chrono::seconds(1));
  ASSERT_TRUE(gw.admit("k").allowed);                                // 1e6 - 100
  ASSERT_TRUE(gw.admission->settle("k", "m", -30, gw.clock.now()));  // waits from t = 0
  // The flusher looks every delay / 4 of the injected clock, whatever real time passes.
  ASSERT_TRUE(test::eventually([&] { return gw.clock.waiting_for_future() == 1; }));
  EXPECT_EQ(gw.clock.deadlines(), std::vector<Nanos>{std::chrono::milliseconds(250)});
  // At 750 ms it looks, finds nothing due, and waits for 1 s.
  gw.clock.inner.advance(std::chrono::milliseconds(750));
  ASSERT_TRUE(test::eventually([&] { return gw.clock.waiting_for_future() == 1; }));
  EXPECT_EQ(gw.clock.deadlines().back(), std::chrono::milliseconds(1000));
  EXPECT_EQ(gw.admission->pending_settlements(), 1u);
  EXPECT_EQ(gw.ways[static_cast<int>(SettleWay::alone)], 0);
  EXPECT_NEAR(*gw.level("k"), 1e6 - 100, 0.01);
  // At 1 s the refund has waited the delay: the flusher sends it alone.
  gw.clock.inner.advance(std::chrono::milliseconds(250));
  ASSERT_TRUE(test::eventually([&] { return gw.ways[static_cast<int>(SettleWay::alone)] == 1; }));
  EXPECT_EQ(gw.admission->pending_settlements(), 0u);
  EXPECT_NEAR(*gw.level("k"), 1e6 - 100 + 30, 0.01);
}

TEST(RedisAdmissionSettle, ACarriedSettlementIsNeverSentTwiceNorLostUncounted) {
  auto server = test::RedisServer::start();
  // The circuit opens at the first failure; a short timeout.
  Gateway gw(*server, std::chrono::seconds(1), 1, std::chrono::milliseconds(200));
  ASSERT_TRUE(gw.admit("k").allowed);  // 1e6 - 100
  gw.admission->settle("k", "m", -30, gw.clock.now());

  // The decision carrying the refund times out with Redis paused: applied or not, nobody
  // knows at that time, so it is dropped and counted, not kept for another decision.
  test::RedisMonitor monitor(server->port());
  ASSERT_TRUE(monitor.ok());
  server->pause();
  const AdmissionResult stalled = gw.admit("k");
  EXPECT_TRUE(stalled.degraded);
  EXPECT_EQ(gw.admission->settle_failures(), 1u);
  EXPECT_EQ(gw.ways[static_cast<int>(SettleWay::lost)], 1);
  EXPECT_EQ(gw.admission->pending_settlements(), 0u);

  // The circuit is open now: a decision is not sent, so the refund it would carry waits.
  gw.admission->settle("k", "m", -40, gw.clock.now());
  const AdmissionResult short_circuited = gw.admit("k");
  EXPECT_TRUE(short_circuited.degraded);
  EXPECT_EQ(gw.admission->pending_settlements(), 1u);
  EXPECT_EQ(gw.admission->settle_failures(), 1u);

  // Redis runs the stalled call when it resumes: the first refund is applied by it, once.
  server->resume();
  const double after_stalled = 1e6 - 100 + 30 - 100;
  ASSERT_TRUE(monitor.wait_for_command({"FCALL", "EVALSHA"}));
  EXPECT_NEAR(*gw.level("k"), after_stalled, 0.01);
  // Flushed while the circuit is still open (the injected clock stands still): counted as a
  // failed settlement, the estimate stands.
  EXPECT_EQ(gw.admission->flush_settlements(), 1u);
  EXPECT_EQ(gw.admission->settle_failures(), 2u);
  EXPECT_EQ(gw.ways[static_cast<int>(SettleWay::lost)], 2);
  EXPECT_NEAR(*gw.level("k"), after_stalled, 0.01);
}

}  // namespace
}  // namespace limitscope::gateway
