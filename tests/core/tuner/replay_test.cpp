// Verifies replay: on random traces for every algorithm its decisions equal those of live
// per-key Limiters driven by a ManualClock; counts add up by key, tier and model; the largest
// burst and shaping delays are reported; bad parameters are refused and costs no capacity
// can admit are warned about.
#include "core/tuner/replay.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "core/limiter/limiter.h"
#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

Trace random_trace(std::uint64_t seed, std::size_t events, int keys) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(200.0);  // about 200 requests per second
  std::uniform_int_distribution<int> key(0, keys - 1);
  std::uniform_int_distribution<int> cost(1, 4);
  Trace t;
  double now = 0;
  for (std::size_t i = 0; i < events; ++i) {
    now += gap(rng);
    const int k = key(rng);
    t.add(static_cast<std::int64_t>(now * 1e6), "k" + std::to_string(k), cost(rng),
          k % 2 == 0 ? "gpt-4.1" : "deepseek-v3.2", k % 3 == 0 ? "pro" : "free");
  }
  return t;
}

std::vector<LimitParams> every_algorithm() {
  using std::chrono::seconds;
  return {test::bucket(Algorithm::token_bucket, 10, 5), test::bucket(Algorithm::gcra, 10, 5),
          test::bucket(Algorithm::leaky_bucket, 10, 5),
          test::window(Algorithm::sliding_log, 12, seconds(2)),
          test::window(Algorithm::sliding_counter, 12, seconds(2)),
          test::window(Algorithm::fixed_window, 12, seconds(2))};
}

TEST(Replay, EqualsLiveLimitersOnRandomTraces) {
  for (const auto& params : every_algorithm()) {
    SCOPED_TRACE(params.describe());
    const Trace trace = random_trace(7, 20000, 15);
    auto replayed = replay_decisions(trace, params);
    ASSERT_TRUE(replayed.ok()) << replayed.error();
    ManualClock clock;
    std::map<std::uint32_t, std::unique_ptr<Limiter>> live;
    std::size_t admitted = 0;
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      const TraceEvent& e = trace.events[i];
      clock.set(Nanos{e.t_us * 1000});
      auto& l = live[e.key];
      if (!l) l = std::move(make_limiter(params, clock).value());
      const bool ok = l->try_acquire(e.cost).allowed;
      ASSERT_EQ((*replayed)[i], ok) << "event " << i;
      admitted += ok;
    }
    auto result = replay(trace, params);
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->total.admitted, admitted);
    EXPECT_EQ(result->total.admitted + result->total.rejected, trace.events.size());
    std::uint64_t by_key = 0;
    for (const auto& c : result->by_key) by_key += c.admitted;
    std::uint64_t by_tier = 0;
    for (const auto& c : result->by_tier) by_tier += c.admitted;
    EXPECT_EQ(by_key, admitted);
    EXPECT_EQ(by_tier, admitted);
    EXPECT_GT(result->total.rejected, 0u) << "the trace should be over these limits";
  }
}

TEST(Replay, BurstDelaysWarningsAndBadParameters) {
  Trace t;
  for (int i = 0; i < 20; ++i) t.add(i * 1000, "a", 1);  // 20 requests within 20 ms
  t.add(2'000'000, "a", 50);                              // more than any capacity here
  auto r = replay(t, test::bucket(Algorithm::token_bucket, 10, 1));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->largest_burst_admitted, 10u);
  EXPECT_EQ(r->total.admitted, 10u);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("can never be admitted"), std::string::npos);

  auto shaped = replay(t, test::bucket(Algorithm::leaky_bucket, 10, 100));
  ASSERT_TRUE(shaped.ok());
  EXPECT_GT(shaped->max_delay_s, 0);
  EXPECT_GT(shaped->total_delay_s, shaped->max_delay_s);

  auto bad = replay(t, test::bucket(Algorithm::token_bucket, 10, -1));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("parameters:"), std::string::npos) << bad.error();
}

}  // namespace
}  // namespace limitscope::tuner
