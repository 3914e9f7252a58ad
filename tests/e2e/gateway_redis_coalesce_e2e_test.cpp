// Verifies that limitscope-gateway on Redis coalesces the decisions of concurrent requests
// into batched round trips (label e2e; real redis-server, real gateways, real HTTP): while
// Redis is paused, concurrent requests queue behind the first and are sent together, so the
// gateway's limitscope_redis_batch_size histogram counts fewer round trips than decisions; the
// decisions equal those of a gateway that sends every decision alone (--redis-batch-window 0),
// and a gateway with the default --redis-batches-in-flight (its connections) sends them alone;
// and when Redis dies with a batch in flight, every request of it follows the failure mode:
// fail-open admits with X-Circuit-Open, fail-closed answers 503.
//
// Redis is paused so that the requests are all queued or in flight before any is answered;
// the test checks the gateway's own metric again each time bytes reach the paused server
// (ServerInbox), never waiting on time.

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/exposition_sums.h"
#include "support/gateway_chat.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/server_inbox.h"

namespace limitscope::test {
namespace {

// One tier of 5 requests refilled once a day (nothing refills during the test); keys a0..a3
// for one gateway, b0..b3 for the other, so two gateways on one Redis do not share limits.
std::string coalesce_policy() {
  std::string keys;
  for (const char* g : {"a", "b", "o", "c"}) {
    for (int i = 0; i < 4; ++i)
      keys += std::string(keys.empty() ? "" : ",") + "\"" + g + std::to_string(i) + "\":\"free\"";
  }
  return R"({"tiers":{"free":{"requests":{"algorithm":"token-bucket","capacity":5,"refill":"1/d"}}},)"
         R"("models":{"gemini-2.5-flash":{"cost":1}},"keys":{)" +
         keys + "}}";
}

struct Answer {
  int status = -1;
  std::string remaining;  // X-RateLimit-Remaining
  bool circuit_open = false;
  std::string code;  // the error code of a refusal
  bool operator<(const Answer& o) const {
    return std::tie(status, remaining, circuit_open, code) <
           std::tie(o.status, o.remaining, o.circuit_open, o.code);
  }
  bool operator==(const Answer& o) const {
    return std::tie(status, remaining, circuit_open, code) ==
           std::tie(o.status, o.remaining, o.circuit_open, o.code);
  }
};

Answer post(const GatewayProcess& gw, const std::string& key) {
  auto r = post_chat(gw, key, e2e_chat_body("gemini-2.5-flash"), 30);
  Answer a;
  if (!r) return a;
  a.status = r->status;
  a.remaining = r->get_header_value("X-RateLimit-Remaining");
  a.circuit_open = r->get_header_value("X-Circuit-Open") == "true";
  if (r->status != 200) {
    auto body = nlohmann::json::parse(r->body, nullptr, false);
    if (body.is_object() && body.contains("error")) a.code = body["error"].value("code", "");
  }
  return a;
}

struct BatchCounts {
  double round_trips = -1;  // limitscope_redis_batch_size_count
  double decisions = -1;    // limitscope_redis_batch_size_sum
};

BatchCounts batch_counts(const GatewayProcess& gw) {
  httplib::Client c(gw.url());
  auto m = c.Get("/metrics");
  if (!m) return {};
  return {sum_samples(m->body, "limitscope_redis_batch_size_count"),
          sum_samples(m->body, "limitscope_redis_batch_size_sum")};
}

// Sends `per_key` requests for each key at once with Redis paused, waits until the gateway
// has sent every decision to Redis (its metric counts them before the round trip, so it is
// checked again after each arrival at the paused server's sockets), lets `then`
// act (resume or kill Redis), and returns the answers, sorted, and the batch counts.
template <class Then>
std::vector<Answer> concurrent_burst(const GatewayProcess& gw, RedisServer& redis,
                                     const std::vector<std::string>& keys, int per_key,
                                     BatchCounts& counts, Then then) {
  const BatchCounts before = batch_counts(gw);
  redis.pause();
  auto inbox = std::make_unique<ServerInbox>();
  inbox->watch(redis.pid(), redis.port());
  std::vector<Answer> answers(keys.size() * static_cast<std::size_t>(per_key));
  std::vector<std::thread> clients;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    clients.emplace_back([&, i] { answers[i] = post(gw, keys[i % keys.size()]); });
  }
  const double total = static_cast<double>(answers.size());
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);  // a safety net
  bool all_sent = false;
  while (!(all_sent = batch_counts(gw).decisions - before.decisions >= total) &&
         inbox->wait(deadline)) {
  }
  EXPECT_TRUE(all_sent);
  inbox.reset();  // its copies of the sockets would keep them open when Redis dies
  const BatchCounts sent = batch_counts(gw);
  counts = {sent.round_trips - before.round_trips, sent.decisions - before.decisions};
  then();
  for (auto& t : clients) t.join();
  std::sort(answers.begin(), answers.end());
  return answers;
}

TEST(GatewayRedisCoalesceE2E, ConcurrentDecisionsTakeFewerRoundTripsAndEqualSingleCalls) {
  auto redis_server = RedisServer::start();
  const std::string policy = write_temp("e2e_coalesce_policy.json", coalesce_policy());
  // A long Redis timeout: the paused server must not fail the decisions.
  GatewayProcess coalesced({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                            "--redis-timeout", "30s", "--redis-batch-window", "10ms",
                            "--redis-batches-in-flight", "4"});
  GatewayProcess alone({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                        "--redis-timeout", "30s", "--redis-batch-window", "0"});
  ASSERT_TRUE(coalesced.running() && alone.running());

  BatchCounts batched_counts, alone_counts;
  const auto batched = concurrent_burst(coalesced, *redis_server, {"a0", "a1", "a2", "a3"}, 8,
                                        batched_counts, [&] { redis_server->resume(); });
  const auto singles = concurrent_burst(alone, *redis_server, {"b0", "b1", "b2", "b3"}, 8,
                                        alone_counts, [&] { redis_server->resume(); });

  EXPECT_EQ(batched_counts.decisions, 32);
  EXPECT_LT(batched_counts.round_trips, 32) << "concurrent decisions were not coalesced";
  EXPECT_EQ(alone_counts.decisions, 32);
  EXPECT_EQ(alone_counts.round_trips, 32) << "--redis-batch-window 0 sends every decision alone";

  EXPECT_EQ(batched, singles);
  // By default a gateway coalesces only when every Redis connection is busy: its 128 threads
  // have 128 connections, so the same burst goes alone, window or not.
  GatewayProcess by_default({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                             "--redis-timeout", "30s", "--redis-batch-window", "10ms"});
  ASSERT_TRUE(by_default.running());
  BatchCounts default_counts;
  const auto defaults = concurrent_burst(by_default, *redis_server, {"c0", "c1", "c2", "c3"}, 8,
                                         default_counts, [&] { redis_server->resume(); });
  EXPECT_EQ(default_counts.decisions, 32);
  EXPECT_EQ(default_counts.round_trips, 32) << "a free connection for every decision: none waits";
  EXPECT_EQ(defaults, singles);
  // Per key: 5 admitted (remaining 4..0), 3 refused.
  EXPECT_EQ(std::count_if(batched.begin(), batched.end(),
                          [](const Answer& a) { return a.status == 200; }),
            20);
  EXPECT_EQ(std::count_if(batched.begin(), batched.end(),
                          [](const Answer& a) { return a.status == 429; }),
            12);
  EXPECT_EQ(
      std::count_if(batched.begin(), batched.end(), [](const Answer& a) { return a.circuit_open; }),
      0);
}

TEST(GatewayRedisCoalesceE2E, RedisDyingMidBatchFailsEachRequestOpenOrClosed) {
  auto redis_server = RedisServer::start();
  const std::string policy = write_temp("e2e_coalesce_fail_policy.json", coalesce_policy());
  GatewayProcess open_gw({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                          "--redis-timeout", "30s", "--redis-batch-window", "10ms",
                          "--redis-batches-in-flight", "4", "--redis-failure-mode", "fail-open"});
  GatewayProcess closed_gw({"--policy", policy, "--mock-upstream", "--redis", redis_server->url(),
                            "--redis-timeout", "30s", "--redis-batch-window", "10ms",
                            "--redis-batches-in-flight", "4", "--redis-failure-mode",
                            "fail-closed"});
  ASSERT_TRUE(open_gw.running() && closed_gw.running());

  // Both gateways' batches in flight on the paused server, then it dies.
  BatchCounts open_counts, closed_counts;
  std::vector<Answer> closed_answers;
  const auto open_answers =
      concurrent_burst(open_gw, *redis_server, {"o0", "o1"}, 6, open_counts, [&] {
        closed_answers = concurrent_burst(closed_gw, *redis_server, {"c0", "c1"}, 6, closed_counts,
                                          [&] { redis_server->kill(); });
      });
  EXPECT_LT(open_counts.round_trips, open_counts.decisions);
  EXPECT_LT(closed_counts.round_trips, closed_counts.decisions);
  ASSERT_EQ(open_answers.size(), 12u);
  for (const Answer& a : open_answers) {
    EXPECT_EQ(a.status, 200);
    EXPECT_TRUE(a.circuit_open) << "fail-open: admitted without a decision, and says so";
  }
  ASSERT_EQ(closed_answers.size(), 12u);
  for (const Answer& a : closed_answers) {
    EXPECT_EQ(a.status, 503);
    EXPECT_EQ(a.code, "limiter_unavailable");
    EXPECT_TRUE(a.circuit_open);
  }
  httplib::Client m(open_gw.url());
  auto metrics = m.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(sum_samples(metrics->body, "limitscope_requests_total", {{"decision", "degraded"}}),
            12);
}

}  // namespace
}  // namespace limitscope::test
