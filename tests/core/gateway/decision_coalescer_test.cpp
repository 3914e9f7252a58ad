// Verifies the DecisionCoalescer's batching on real threads, with no Redis and no timing: a lone
// request is sent at once (a window of an hour would otherwise hang the test), requests that
// arrive while a batch is in flight go together in the next one (up to max_in_flight batches
// are sent at once before requests queue), a batch holds at most
// max_batch and one rule, a window that expires sends a second batch while the first is still
// in flight, each caller gets its own request's outcome, and a window of 0 sends each alone.
#include "core/gateway/decision_coalescer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace limitscope::gateway {
namespace {

using namespace std::chrono_literals;

const std::string kRule = "gw-free";  // the rule of most tests

// A batch function that records its batches, answers each request with its own key as the
// binding, and holds the first batch (or the first few) until the test releases it.
struct Recorder {
  explicit Recorder(bool hold = false) : holds(hold ? 1 : 0) {}
  explicit Recorder(std::size_t held_batches) : holds(held_batches) {}
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<std::string, std::vector<std::string>>> batches;  // rule, keys
  std::size_t holds = 0;  // the first `holds` batches wait for release()
  bool released = false;
  bool first_started = false;

  DecisionCoalescer::BatchFn fn() {
    return
        [this](const std::string& rule, const std::vector<const redis::DecideRequest*>& requests) {
          std::vector<std::string> keys;
          for (const auto* r : requests) keys.push_back(r->key);
          std::unique_lock lock(mu);
          const bool first = batches.empty();
          batches.emplace_back(rule, keys);
          if (first) first_started = true;
          cv.notify_all();
          if (batches.size() <= holds) cv.wait(lock, [&] { return released; });
          std::vector<RuleOutcome> out(requests.size());
          for (std::size_t i = 0; i < requests.size(); ++i) {
            out[i].binding = requests[i]->key;
            out[i].guarded.decision.allowed = true;
          }
          return out;
        };
  }
  void wait_first_started() {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return first_started; });
  }
  void release() {
    std::lock_guard lock(mu);
    released = true;
    cv.notify_all();
  }
  void wait_batches(std::size_t n) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return batches.size() >= n; });
  }
};

redis::DecideRequest request(std::string key) {
  redis::DecideRequest r;
  r.key = std::move(key);
  return r;
}

// Starts one thread per key deciding `rule`; each checks it got its own key back.
std::vector<std::thread> decide_all(DecisionCoalescer& c, const std::string& rule,
                                    const std::vector<std::string>& keys,
                                    std::vector<std::string>& got) {
  got.assign(keys.size(), "");
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    threads.emplace_back([&c, &rule, &keys, &got, i] {
      const redis::DecideRequest r = request(keys[i]);
      got[i] = c.decide(rule, r).binding;
    });
  }
  return threads;
}

// Starts a request "first" of `rule`, whose batch `rec` holds in flight until released.
std::thread start_held_first(DecisionCoalescer& c, Recorder& rec, const std::string& rule) {
  std::thread first([&c, rule] {
    const redis::DecideRequest r = request("first");
    EXPECT_EQ(c.decide(rule, r).binding, "first");
  });
  rec.wait_first_started();
  return first;
}

void wait_queued(DecisionCoalescer& c, const std::string& rule, std::size_t n) {
  while (c.queued(rule) < n) std::this_thread::yield();
}

TEST(DecisionCoalescer, ALoneRequestIsSentAtOnceWhateverTheWindow) {
  Recorder rec;
  DecisionCoalescer c({std::chrono::hours(1), 64}, rec.fn());
  const redis::DecideRequest r = request("a");
  EXPECT_EQ(c.decide("gw-free", r).binding, "a");
  EXPECT_EQ(c.decide("gw-free", r).binding, "a");
  ASSERT_EQ(rec.batches.size(), 2u);
  EXPECT_EQ(rec.batches[0].second.size(), 1u);
}

TEST(DecisionCoalescer, RequestsArrivingWhileABatchIsInFlightGoTogetherInTheNext) {
  Recorder rec(true);
  DecisionCoalescer c({std::chrono::hours(1), 64}, rec.fn());
  std::thread first = start_held_first(c, rec, kRule);
  const std::vector<std::string> keys = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};
  std::vector<std::string> got;
  auto threads = decide_all(c, kRule, keys, got);
  wait_queued(c, kRule, keys.size());
  EXPECT_EQ(rec.batches.size(), 1u)
      << "nothing is sent before the window while a batch is in flight";
  rec.release();
  first.join();
  for (auto& t : threads) t.join();
  ASSERT_EQ(rec.batches.size(), 2u);
  std::vector<std::string> second = rec.batches[1].second;
  std::sort(second.begin(), second.end());
  EXPECT_EQ(second, keys);
  EXPECT_EQ(got, keys) << "each caller gets its own request's outcome";
}

TEST(DecisionCoalescer, ABatchHoldsAtMostMaxBatchRequests) {
  Recorder rec(true);
  DecisionCoalescer c({std::chrono::hours(1), 3}, rec.fn());
  std::thread first = start_held_first(c, rec, kRule);
  std::vector<std::string> keys;
  for (int i = 0; i < 7; ++i) keys.push_back("k" + std::to_string(i));
  std::vector<std::string> got;
  auto threads = decide_all(c, kRule, keys, got);
  // A full batch is sent without waiting for the window, even while another is in flight.
  rec.wait_batches(3);
  rec.release();
  first.join();
  for (auto& t : threads) t.join();
  std::size_t total = 0;
  for (const auto& [r, ks] : rec.batches) {
    EXPECT_LE(ks.size(), 3u);
    total += ks.size();
  }
  EXPECT_EQ(total, 8u);
  EXPECT_EQ(got, keys);
}

TEST(DecisionCoalescer, AnExpiredWindowSendsABatchWhileAnotherIsInFlight) {
  Recorder rec(true);
  DecisionCoalescer c({1us, 64}, rec.fn());
  std::thread first = start_held_first(c, rec, kRule);
  const redis::DecideRequest second = request("second");
  // The first batch is held until the test releases it: this returns only because the
  // window expired and the second request was sent in a batch of its own.
  EXPECT_EQ(c.decide(kRule, second).binding, "second");
  rec.release();
  first.join();
  ASSERT_EQ(rec.batches.size(), 2u);
  EXPECT_EQ(rec.batches[1].second, std::vector<std::string>{"second"});
}

TEST(DecisionCoalescer, UpToMaxInFlightBatchesAreSentAtOnceThenRequestsQueue) {
  Recorder rec(std::size_t{2});  // holds the first two batches
  DecisionCoalescer c({std::chrono::hours(1), 64, 2}, rec.fn());
  std::thread first = start_held_first(c, rec, kRule);
  // One batch in flight, room for another: the second is sent at once although the first is
  // held (with one in flight at most it would wait the hour).
  std::thread second([&] {
    const redis::DecideRequest r = request("second");
    EXPECT_EQ(c.decide(kRule, r).binding, "second");
  });
  rec.wait_batches(2);
  // Two in flight: the next requests queue and go together when one returns.
  const std::vector<std::string> keys = {"k0", "k1", "k2", "k3"};
  std::vector<std::string> got;
  auto threads = decide_all(c, kRule, keys, got);
  wait_queued(c, kRule, keys.size());
  EXPECT_EQ(rec.batches.size(), 2u);
  rec.release();
  first.join();
  second.join();
  for (auto& t : threads) t.join();
  EXPECT_EQ(got, keys);
  ASSERT_EQ(rec.batches.size(), 3u);
  std::vector<std::string> third = rec.batches[2].second;
  std::sort(third.begin(), third.end());
  EXPECT_EQ(third, keys);
}

TEST(DecisionCoalescer, ABatchNeverMixesRules) {
  Recorder rec(true);
  DecisionCoalescer c({std::chrono::hours(1), 64}, rec.fn());
  std::thread first = start_held_first(c, rec, "gw-free");
  std::vector<std::string> got_free, got_pro;
  const std::vector<std::string> free_keys = {"f0", "f1", "f2"};
  const std::vector<std::string> pro_keys = {"p0", "p1"};
  const std::string free_rule = "gw-free", pro_rule = "gw-pro";
  auto a = decide_all(c, free_rule, free_keys, got_free);
  auto b = decide_all(c, pro_rule, pro_keys, got_pro);
  // gw-pro has nothing in flight: its requests are sent without waiting for gw-free's batch.
  for (auto& t : b) t.join();
  wait_queued(c, free_rule, free_keys.size());
  rec.release();
  first.join();
  for (auto& t : a) t.join();
  for (const auto& [rule, keys] : rec.batches) {
    for (const std::string& k : keys) {
      EXPECT_EQ(k[0] == 'p', rule == "gw-pro") << k << " in a batch of " << rule;
    }
  }
  EXPECT_EQ(got_free, free_keys);
  EXPECT_EQ(got_pro, pro_keys);
}

TEST(DecisionCoalescer, AWindowOfZeroSendsEveryDecisionAlone) {
  Recorder rec(true);
  DecisionCoalescer c({0us, 64}, rec.fn());
  std::thread first = start_held_first(c, rec, "gw-free");
  const redis::DecideRequest second = request("second");
  EXPECT_EQ(c.decide("gw-free", second).binding, "second") << "sent alone, not queued";
  rec.release();
  first.join();
  ASSERT_EQ(rec.batches.size(), 2u);
  EXPECT_EQ(rec.batches[1].second.size(), 1u);
}

TEST(DecisionCoalescer, ABatchThatThrowsRefusesItsRequestsAndAnswersEveryWaiter) {
  DecisionCoalescer c(
      {500us, 64},
      [](const std::string&, const std::vector<const redis::DecideRequest*>&)
          -> std::vector<RuleOutcome> { throw std::runtime_error("out of memory"); });
  const redis::DecideRequest r = request("a");
  const RuleOutcome o = c.decide("gw-free", r);
  EXPECT_FALSE(o.guarded.decision.allowed);
  EXPECT_EQ(o.guarded.decision.reason, DenyReason::backend_error);
  EXPECT_NE(o.guarded.error.find("out of memory"), std::string::npos) << o.guarded.error;
}

}  // namespace
}  // namespace limitscope::gateway
