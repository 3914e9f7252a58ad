// Verifies replay: on random traces for every algorithm its decisions equal those of live
// per-key Limiters driven by a ManualClock; counts add up by key, tier and model; the largest
// burst and shaping delays are reported; bad parameters are refused and costs no capacity
// can admit are warned about; with prices, spend is the admitted requests' tokens at their
// model's price, the worst key's spend per minute equals a brute-force grouping of the
// decisions, and the timeline adds up and tracks each key's daily quota burn across days.
#include "core/tuner/replay.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>

#include "core/limiter/limiter.h"
#include "support/limit_params_builders.h"
#include "support/random_arrivals.h"

namespace limitscope::tuner {
namespace {

trace::Trace random_trace(std::uint64_t seed, std::size_t events, int keys) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> cost(1, 4);
  trace::Trace t;
  // About 200 requests per second.
  test::poisson_arrivals(rng, events, 200.0, keys, 0, [&](std::int64_t t_ns, int k) {
    t.add(t_ns, "k" + std::to_string(k), cost(rng), k % 2 == 0 ? "gpt-4.1" : "deepseek-v3.2",
          k % 3 == 0 ? "pro" : "free");
  });
  return t;
}

std::vector<LimitParams> every_algorithm() {
  using std::chrono::seconds;
  return {test::bucket(Algorithm::token_bucket, 10, 5),
          test::bucket(Algorithm::gcra, 10, 5),
          test::bucket(Algorithm::leaky_bucket, 10, 5),
          test::window(Algorithm::sliding_log, 12, seconds(2)),
          test::window(Algorithm::sliding_counter, 12, seconds(2)),
          test::window(Algorithm::fixed_window, 12, seconds(2))};
}

TEST(Replay, EqualsLiveLimitersOnRandomTraces) {
  for (const auto& params : every_algorithm()) {
    SCOPED_TRACE(params.describe());
    const trace::Trace trace = random_trace(7, 20000, 15);
    auto replayed = replay_decisions(trace, params);
    ASSERT_TRUE(replayed.ok()) << replayed.error();
    ManualClock clock;
    std::map<std::uint32_t, std::unique_ptr<Limiter>> live;
    std::size_t admitted = 0;
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      const trace::TraceEvent& e = trace.events[i];
      clock.set(Nanos{e.t_ns});
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
  trace::Trace t;
  for (int i = 0; i < 20; ++i) t.add(i * 1'000'000, "a", 1);  // 20 requests within 20 ms
  t.add(2'000'000'000, "a", 50);                              // more than any capacity here
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

// Hostile traces: a cost no double holds is a line error, not an uncaught exception; a trace
// spanning 1e12 s is refused at its line (its span overflowed int64 ns and replay indexed out
// of bounds), and the widest accepted span (0 to 9e9 s) replays within bounds.
TEST(Replay, HostileTracesAreLineErrorsAndTheWidestSpanReplays) {
  std::istringstream huge_cost("{\"t\":1,\"key\":\"a\",\"cost\":1e999}\n{\"t\":2,\"key\":\"a\"}\n");
  const trace::TraceLoad a = trace::parse_trace_jsonl(huge_cost);
  ASSERT_EQ(a.error_count, 1u);
  EXPECT_EQ(a.errors[0].line, 1u);
  EXPECT_EQ(a.trace.events.size(), 1u);

  std::istringstream far("{\"t\":0,\"key\":\"a\"}\n{\"t\":1e12,\"key\":\"a\"}\n");
  const trace::TraceLoad b = trace::parse_trace_jsonl(far);
  ASSERT_EQ(b.error_count, 1u);
  EXPECT_EQ(b.errors[0].line, 2u);
  EXPECT_NE(b.errors[0].message.find("9e9"), std::string::npos) << b.errors[0].message;

  std::istringstream widest("{\"t\":0,\"key\":\"a\"}\n{\"t\":9e9,\"key\":\"a\"}\n");
  const trace::TraceLoad c = trace::parse_trace_jsonl(widest);
  ASSERT_EQ(c.error_count, 0u);
  auto r = replay(c.trace, test::bucket(Algorithm::token_bucket, 10, 1));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->total.admitted, 2u);
  ASSERT_FALSE(r->timeline.empty());
  EXPECT_LE(r->timeline.size(), 100'000u);
}

TEST(Replay, SpendAndTheWorstKeysMinuteMatchABruteForceGrouping) {
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> gap(20.0);
  std::uniform_int_distribution<int> key(0, 5);
  std::uniform_int_distribution<std::uint32_t> tokens(100, 5000);
  const char* models[] = {"gpt-4.1", "claude-sonnet-4.5", "deepseek-v3.2"};
  trace::Trace t;
  double now = 0;
  for (int i = 0; i < 6000; ++i) {
    now += gap(rng);
    const int k = key(rng);
    t.add(static_cast<std::int64_t>(now * 1e9), "k" + std::to_string(k), 1, models[k % 3], "",
          tokens(rng));
  }
  const LimitParams params = test::bucket(Algorithm::token_bucket, 5, 1);
  PricingOptions pricing{&default_policy(), std::nullopt};
  ReplayOptions options;
  options.pricing = &pricing;
  auto r = replay(t, params, options);
  ASSERT_TRUE(r.ok()) << r.error();
  auto decisions = replay_decisions(t, params);
  ASSERT_TRUE(decisions.ok());
  std::map<std::pair<std::uint32_t, std::int64_t>, double> by_minute;
  double spend = 0;
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    if (!(*decisions)[i]) continue;
    const double price = default_policy()
                             .models[*default_policy().model_index(t.models[t.events[i].model])]
                             .price_per_million_tokens;
    const double d = static_cast<double>(*t.tokens_of(i)) * (price / 1e6);
    spend += d;
    by_minute[{t.events[i].key, t.events[i].t_ns / 60'000'000'000}] += d;
  }
  double worst = 0;
  std::pair<std::uint32_t, std::int64_t> where{};
  for (const auto& [k, v] : by_minute) {
    if (v > worst) worst = v, where = k;
  }
  EXPECT_TRUE(r->spend.priced);
  EXPECT_EQ(r->spend.unpriced_requests, 0u);
  EXPECT_NEAR(r->total.admitted_spend, spend, 1e-9);
  EXPECT_NEAR(r->spend.worst_key_per_min, worst, 1e-12);
  EXPECT_EQ(r->spend.worst_key, where.first);
  EXPECT_EQ(r->spend.worst_minute_ns, where.second * 60'000'000'000);
  EXPECT_GT(r->total.rejected, 0u);

  // The timeline covers the trace evenly and adds up to the totals.
  ASSERT_FALSE(r->timeline.empty());
  EXPECT_LE(r->timeline.size(), 200u);
  std::uint64_t admitted = 0, rejected = 0;
  double timeline_spend = 0;
  for (std::size_t p = 0; p < r->timeline.size(); ++p) {
    EXPECT_DOUBLE_EQ(r->timeline[p].t_s,
                     static_cast<double>(p) * static_cast<double>(r->timeline_step.count()) / 1e9);
    admitted += r->timeline[p].admitted;
    rejected += r->timeline[p].rejected;
    timeline_spend += r->timeline[p].spend;
  }
  EXPECT_EQ(admitted, r->total.admitted);
  EXPECT_EQ(rejected, r->total.rejected);
  EXPECT_NEAR(timeline_spend, spend, 1e-9);

  // Without prices nothing is priced, and the counts do not change.
  auto plain = replay(t, params);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->spend.priced);
  EXPECT_EQ(plain->total.admitted_spend, 0);
  EXPECT_EQ(plain->total.admitted, r->total.admitted);
}

TEST(Replay, QuotaBurnOverTimeResetsEachUtcDay) {
  // demo-free-1 is on the free tier (1,000 cost units a day): 200 requests of cost 8 on day 0
  // burn 160% of it, crossing 100% at the 125th; on day 1 the use starts again from 0.
  trace::Trace t;
  constexpr std::int64_t kDay = 86'400'000'000'000;
  for (int i = 0; i < 200; ++i) t.add(i * 1'000'000'000LL, "demo-free-1", 8, "gpt-4.1");
  t.add(kDay + 10'000'000'000, "demo-free-1", 8, "gpt-4.1");
  PricingOptions pricing{&default_policy(), std::nullopt};
  ReplayOptions options;
  options.pricing = &pricing;
  options.timeline_step = std::chrono::hours(1);
  auto r = replay(t, test::bucket(Algorithm::token_bucket, 1000, 1000), options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->total.rejected, 0u);  // the quota is reported, not enforced
  ASSERT_EQ(r->timeline.size(), 25u);
  EXPECT_DOUBLE_EQ(r->timeline[0].max_quota_burn, 1.6);
  EXPECT_EQ(r->timeline[0].keys_over_quota, 1u);
  EXPECT_DOUBLE_EQ(r->timeline[1].max_quota_burn, 1.6);  // an empty hour carries the day's use
  EXPECT_DOUBLE_EQ(r->timeline[23].max_quota_burn, 1.6);
  EXPECT_DOUBLE_EQ(r->timeline[24].max_quota_burn, 0.008);  // day 1: one request of 8 / 1,000
  EXPECT_EQ(r->timeline[24].keys_over_quota, 0u);
  EXPECT_FALSE(r->spend.priced);  // no token counts
  EXPECT_NE(r->spend.unpriced_reason.find("201 carry no token count"), std::string::npos)
      << r->spend.unpriced_reason;

  options.timeline_step = std::chrono::microseconds(1);
  EXPECT_FALSE(replay(t, test::bucket(Algorithm::token_bucket, 1000, 1000), options).ok());
}

}  // namespace
}  // namespace limitscope::tuner
