// Verifies RedisAdmission's coalescing of concurrent decisions on a real redis-server, made
// deterministic by holding the first round trip (RedisAdmissionOptions::on_round_trip) until
// the other requests are queued: they then go to Redis as one batch. The decisions equal those
// of the same traffic decided one call at a time; a decision refused as late twice (LSLATE)
// inside a batch follows the failure mode per request as a single call's does.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

#include "core/gateway/redis_admission.h"
#include "support/redis_server.h"

namespace limitscope::gateway {
namespace {

// One tier, "free" (rule gw-free): 5 requests, refilled 1 a day (none during the test).
const char* const kPolicy =
    R"({"tiers":{"free":{"requests":{"algorithm":"token-bucket","capacity":5,"refill":"1/d"}}},)"
    R"("models":{"m":{"cost":1}},"keys":{"k":"free","j":"free"}})";

struct Gateway {
  Gateway(test::RedisServer& server, std::chrono::microseconds window,
          std::size_t hold_until_queued, std::optional<Nanos> deadline = std::nullopt,
          redis::FailureMode mode = redis::FailureMode::fail_open) {
    url.port = server.port();
    endpoint = std::make_unique<redis::Endpoint>(
        url, redis::EndpointOptions::with({std::chrono::seconds(5), std::chrono::seconds(5)}, 32),
        clock);
    RedisAdmissionOptions o;
    o.batch_window = window;
    o.max_batches_in_flight = 1;  // the first round trip alone in flight, the rest queued
    o.decision_deadline = deadline;
    o.failure.mode = mode;
    // The first round trip waits until `hold_until_queued` decisions queue behind it.
    o.on_round_trip = [this, hold_until_queued](std::size_t n) {
      {
        std::lock_guard lock(mu);
        round_trips.push_back(n);
        if (round_trips.size() > 1) return;
      }
      while (admission->queued_decisions("gw-free") < hold_until_queued) std::this_thread::yield();
    };
    auto p = parse_policy(kPolicy, "coalesce-test-policy");
    EXPECT_TRUE(p.ok()) << p.error();
    admission = std::make_unique<RedisAdmission>(std::move(p).value(), *endpoint, o, clock);
    EXPECT_EQ(admission->sync_rules(), Status{});
  }

  // `n` concurrent requests of `key`: the first alone, the rest queued behind it.
  std::vector<AdmissionResult> admit_concurrently(const std::string& key, std::size_t n) {
    std::vector<AdmissionResult> out(n);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        out[i] = admission->admit(AdmissionRequest{key, "m", 0, clock.now()});
      });
    }
    for (auto& t : threads) t.join();
    return out;
  }

  ManualClock clock;
  redis::RedisUrl url;
  std::unique_ptr<redis::Endpoint> endpoint;
  std::unique_ptr<RedisAdmission> admission;
  std::mutex mu;
  std::vector<std::size_t> round_trips;  // decisions per round trip, in order
};

// (allowed, whole requests remaining) of every result, sorted: the decisions, whatever their
// order (the fraction is the refill of the nanoseconds between calls on the server's clock).
std::vector<std::pair<bool, double>> outcomes(const std::vector<AdmissionResult>& rs) {
  std::vector<std::pair<bool, double>> out;
  for (const AdmissionResult& r : rs) out.emplace_back(r.allowed, std::floor(r.requests.remaining));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RedisAdmissionCoalesce, ConcurrentDecisionsTakeFewerRoundTripsAndEqualSingleCalls) {
  auto server = test::RedisServer::start();
  constexpr std::size_t kRequests = 12;
  // Coalesced: the first request alone (nothing in flight), the 11 others in one batch.
  Gateway coalesced(*server, std::chrono::hours(1), kRequests - 1);
  const auto batched = coalesced.admit_concurrently("k", kRequests);
  EXPECT_EQ(coalesced.round_trips, (std::vector<std::size_t>{1, kRequests - 1}));
  // Uncoalesced, on another key of the same server: one round trip per decision.
  Gateway single(*server, std::chrono::microseconds{0}, 0);
  const auto alone = single.admit_concurrently("j", kRequests);
  EXPECT_EQ(single.round_trips, std::vector<std::size_t>(kRequests, 1));

  EXPECT_EQ(outcomes(batched), outcomes(alone));
  const auto admitted =
      std::count_if(batched.begin(), batched.end(), [](const auto& r) { return r.allowed; });
  EXPECT_EQ(admitted, 5) << "capacity 5, no refill";
  for (const AdmissionResult& r : batched) {
    EXPECT_FALSE(r.degraded) << r.backend_error;
    if (!r.allowed) {
      EXPECT_EQ(r.requests.reason, DenyReason::exhausted);
    }
  }
}

// Every call is late (the injected clock stands still and the deadline is 0; see
// redis_admission_deadline_test.cpp): each request of the batch is decided once more, late
// again, and then is a timeout the failure mode decides, as a single call's.
TEST(RedisAdmissionCoalesce, ABatchLateTwiceFollowsTheFailureModePerRequest) {
  for (const auto mode : {redis::FailureMode::fail_open, redis::FailureMode::fail_closed}) {
    auto server = test::RedisServer::start();
    constexpr std::size_t kRequests = 6;
    Gateway gw(*server, std::chrono::hours(1), kRequests - 1, Nanos{0}, mode);
    ASSERT_EQ(gw.admission->check_access(), Status{}) << "reads the server's clock";
    const auto results = gw.admit_concurrently("k", kRequests);
    // The lone first request and its retry, then the batch of 5 and its retry.
    EXPECT_EQ(gw.round_trips, (std::vector<std::size_t>{1, 1, kRequests - 1, kRequests - 1}));
    for (const AdmissionResult& r : results) {
      EXPECT_TRUE(r.degraded);
      EXPECT_NE(r.backend_error.find("past its deadline twice"), std::string::npos)
          << r.backend_error;
      if (mode == redis::FailureMode::fail_open) {
        EXPECT_TRUE(r.allowed);
      } else {
        EXPECT_FALSE(r.allowed);
        EXPECT_EQ(r.requests.reason, DenyReason::backend_unavailable);
      }
    }
    const auto stats = gw.admission->stats().at("gw-free");
    EXPECT_EQ(stats.degraded_total, kRequests);
    EXPECT_EQ(stats.backend_errors_total, 0u);
    EXPECT_EQ(stats.breaker.failures_total, 2u) << "one failure per round trip, as one call";
  }
}

}  // namespace
}  // namespace limitscope::gateway
