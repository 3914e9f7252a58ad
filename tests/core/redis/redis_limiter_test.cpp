// Verifies decide.lua decides exactly as core/limiter on random traces (every algorithm and a
// composite, through the function library and through EVALSHA), and that a composite reports and
// logs the limit that refused. Keys, TTLs, config changes and the log: redis_limiter_keys_test.
#include "core/redis/redis_limiter.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include "core/limiter/algorithms.h"
#include "core/limiter/limiter.h"
#include "core/redis/limiter_scripts.h"
#include "core/redis/script.h"
#include "core/redis/state_format.h"
#include "limiter_test_support.h"
#include "support/limit_params_builders.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kChunk = 2000;  // events per pipelined round trip

struct Event {
  std::int64_t t_us;
  int key;
  double cost;
};

// Time over which the limit recovers fully, µs: the scale of the trace's gaps.
std::int64_t scale_us(const LimitParams& p) {
  if (is_window_algorithm(p.algorithm)) return p.window.count() / 1000;
  return static_cast<std::int64_t>(p.capacity * p.refill.interval_ns() / 1000) + 1;
}

// Non-decreasing µs times (repeats, small and large gaps, idle stretches) and costs that are
// small integers, random fractions, exactly the maximum, above it, or invalid.
std::vector<Event> make_trace(std::mt19937_64& rng, std::size_t n, int keys, double max_cost,
                              std::int64_t scale) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Event> out;
  out.reserve(n);
  std::int64_t t = kEpochUs + static_cast<std::int64_t>(u(rng) * 1e9);
  const auto uniform_int = [&](std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(u(rng) * static_cast<double>(hi - lo + 1));
  };
  for (std::size_t i = 0; i < n; ++i) {
    const double g = u(rng);
    if (g < 0.2) {
      // same µs
    } else if (g < 0.8) {
      t += uniform_int(1, std::max<std::int64_t>(1, scale / (keys * 8)));
    } else if (g < 0.995) {
      t += uniform_int(1, std::max<std::int64_t>(1, scale / keys));
    } else {
      t += uniform_int(scale / 2, scale * 3);
    }
    const double c = u(rng);
    double cost;
    if (c < 0.55) {
      cost = static_cast<double>(uniform_int(1, 3));
    } else if (c < 0.8) {
      cost = u(rng) * max_cost * 0.6;
    } else if (c < 0.88) {
      cost = max_cost;
    } else if (c < 0.93) {
      cost = max_cost * (1 + u(rng)) + 1e-9;
    } else if (c < 0.97) {
      cost = 0.1 * static_cast<double>(uniform_int(1, 30));
    } else {
      const double bad[] = {0.0, -1.0, std::nan(""), INFINITY};
      cost = bad[uniform_int(0, 3)];
    }
    out.push_back(Event{t, static_cast<int>(uniform_int(0, keys - 1)), cost});
  }
  return out;
}

constexpr std::size_t kEventsPerSet = 20000;  // events per parameter set

// Runs on both paths to the Lua: the function library (FCALL) and the scripts (EVALSHA).
class RedisLimiterEquality : public ::testing::TestWithParam<ScriptMode> {
 protected:
  void SetUp() override {
    server_ = RedisServer::start();
    conn_ = std::make_unique<Connection>(connect(*server_));
    conn_->set_script_mode(GetParam());
  }

  void TearDown() override {
    // The path asked for is the one that ran (unknown: the connection found Functions).
    EXPECT_EQ(conn_->script_mode(),
              GetParam() == ScriptMode::scripts ? ScriptMode::scripts : ScriptMode::functions);
  }

  // Runs `events` through decide.lua, pipelined, `per_call` decisions per script call (each
  // request with its own explicit instant), and returns the decisions in order.
  std::vector<Decision> run_redis(const std::string& rule, const std::vector<Event>& events,
                                  std::size_t per_call) {
    DecideOptions o;
    o.ttl_pad_ms = 24 * 3600 * 1000;  // simulated time runs slower than the wall clock here
    std::vector<Decision> out;
    out.reserve(events.size());
    const RedisLimiter limiter;
    for (std::size_t from = 0; from < events.size(); from += kChunk) {
      std::vector<DecideRequest> batch;
      for (std::size_t i = from; i < std::min(events.size(), from + kChunk); ++i) {
        DecideRequest r;
        r.key = "k" + std::to_string(events[i].key);
        r.costs = {events[i].cost};
        r.now_us = events[i].t_us;
        batch.push_back(std::move(r));
      }
      auto results = limiter.decide_batch(*conn_, rule, batch, per_call, o);
      if (!results) throw std::runtime_error(results.error().message);
      for (auto& r : *results) {
        if (!r) throw std::runtime_error(r.error().message);
        out.push_back(r->decision);
      }
    }
    return out;
  }

  // Runs the trace through algorithm A (one fresh state per key) and decide.lua, and expects
  // the same decision on every event.
  // keys: how many limited keys the trace spreads over; shared: every call's decisions share
  // its first decision's instant (one header time: the lean path decides whole batches).
  // format: the state format the rule is switched to (docs/redis-state.md).
  template <class A>
  void expect_same(const std::string& rule, const LimitParams& p, std::size_t n, std::uint64_t seed,
                   std::size_t per_call, int keys = 24, bool shared = false, int format = 1) {
    put(*conn_, KeySchema{}, rule, single_limit(p));
    if (format > 1) {
      ASSERT_TRUE(set_state_format(*conn_, KeySchema{}, rule, format).ok());
    }
    std::mt19937_64 rng(seed);
    auto events = make_trace(rng, n, keys, p.max_cost(), scale_us(p));
    if (shared) {
      for (std::size_t i = 0; i < events.size(); ++i)
        events[i].t_us = events[i - i % per_call].t_us;
    }
    const auto redis = run_redis(rule, events, per_call);
    std::map<int, typename A::State> states;
    std::size_t allowed = 0, exhausted = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      const Nanos now{e.t_us * 1000};
      auto it = states.find(e.key);
      if (it == states.end()) it = states.emplace(e.key, A::fresh(p, now)).first;
      const Decision want = A::decide(p, it->second, now, e.cost);
      ASSERT_TRUE(same(want, redis[i]))
          << p.describe() << " seed " << seed << " event " << i << " key " << e.key << " t_us "
          << e.t_us << " cost " << e.cost << "\n  core:  " << show(want)
          << "\n  redis: " << show(redis[i]);
      allowed += want.allowed ? 1 : 0;
      exhausted += want.reason == DenyReason::exhausted ? 1 : 0;
    }
    // The trace must exercise both sides of the decision (and so retry_after's search).
    EXPECT_GT(allowed, n / 20) << p.describe();
    EXPECT_GT(exhausted, n / 20) << p.describe();
  }

  // 5 parameter sets x 20,000 events = 100,000 events per algorithm; the odd seeds go through
  // the multi-key script path (16 decisions per call), the even ones one decision per call.
  // Set k is rule "<prefix><seed>" with seed first_seed + k.
  template <class A>
  void expect_same_on_each(const std::string& prefix, const std::array<LimitParams, 5>& sets,
                           std::uint64_t first_seed) {
    std::uint64_t seed = first_seed;
    for (const auto& p : sets) {
      expect_same<A>(prefix + std::to_string(seed), p, kEventsPerSet, seed, seed % 2 ? 16 : 1);
      if (HasFatalFailure()) return;
      ++seed;
    }
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<Connection> conn_;
};

// The five parameter sets each algorithm is checked on: its bucket or window at five sizes.
std::array<LimitParams, 5> bucket_sets(Algorithm a) {
  return {bucket(a, 10, 7, 3s), bucket(a, 2.5, 0.7, 1s), bucket(a, 1000, 50, 1s),
          bucket(a, 5, 1, 1min), bucket(a, 60, 1, 1s)};
}
std::array<LimitParams, 5> window_sets(Algorithm a) {
  return {window(a, 10, 1s), window(a, 7.5, 1500ms), window(a, 100, 60s), window(a, 3, 250ms),
          window(a, 50, 10s)};
}

TEST_P(RedisLimiterEquality, TokenBucket) {
  expect_same_on_each<TokenBucket>("tb", bucket_sets(Algorithm::token_bucket), 11);
}

TEST_P(RedisLimiterEquality, Gcra) {
  expect_same_on_each<Gcra>("gcra", bucket_sets(Algorithm::gcra), 21);
}

// GCRA in state format 3 (24-byte states that keep their TTL): single decisions and whole
// batches at one instant (the lean path's inline GCRA, ls_gcra_plain), on 24 keys and on 3 hot
// keys whose writes are held within a call.
TEST_P(RedisLimiterEquality, GcraInStateFormat3) {
  std::uint64_t seed = 81;
  for (const auto& p : bucket_sets(Algorithm::gcra)) {
    const std::string rule = "gcra3-" + std::to_string(seed);
    expect_same<Gcra>(rule, p, kEventsPerSet, seed, 1, 24, false, 3);
    if (HasFatalFailure()) return;
    expect_same<Gcra>(rule + "b", p, kEventsPerSet, seed + 10, 16, 24, true, 3);
    if (HasFatalFailure()) return;
    expect_same<Gcra>(rule + "h", p, kEventsPerSet / 4, seed + 20, 16, 3, true, 3);
    if (HasFatalFailure()) return;
    ++seed;
  }
}

// Token-bucket batches at one instant (the lean path's ls_tb_admit in batches), in state format
// 2 and 1, on 24 keys and on 3 hot keys whose writes are held within a call.
TEST_P(RedisLimiterEquality, TokenBucketLeanBatches) {
  std::uint64_t seed = 91;
  for (const auto& p : bucket_sets(Algorithm::token_bucket)) {
    const std::string rule = "tbb-" + std::to_string(seed);
    expect_same<TokenBucket>(rule, p, kEventsPerSet, seed, 16, 24, true, seed % 2 ? 2 : 1);
    if (HasFatalFailure()) return;
    expect_same<TokenBucket>(rule + "h", p, kEventsPerSet / 4, seed + 10, 16, 3, true, 2);
    if (HasFatalFailure()) return;
    ++seed;
  }
}

TEST_P(RedisLimiterEquality, SlidingLog) {
  expect_same_on_each<SlidingLog>("log", window_sets(Algorithm::sliding_log), 31);
}

TEST_P(RedisLimiterEquality, SlidingCounter) {
  expect_same_on_each<SlidingCounter>("sc", window_sets(Algorithm::sliding_counter), 41);
}

TEST_P(RedisLimiterEquality, FixedWindow) {
  expect_same_on_each<FixedWindow>("fw", window_sets(Algorithm::fixed_window), 51);
}

// Batches of 16 at one instant on 3 keys (a coalesced gateway's hot keys): the lean path
// decides them, holding a key's write until its last of the call, and equals the core; a call
// then sets each key it changed once.
TEST_P(RedisLimiterEquality, LeanBatchesOfRepeatedKeys) {
  const LimitParams tb = bucket(Algorithm::token_bucket, 10, 7, 3s);
  const LimitParams gcra = bucket(Algorithm::gcra, 2.5, 0.7, 1s);
  expect_same<TokenBucket>("tb-hot", tb, kEventsPerSet, 71, 16, 3, true);
  if (HasFatalFailure()) return;
  expect_same<Gcra>("gcra-hot", gcra, kEventsPerSet, 72, 16, 3, true);
  if (HasFatalFailure()) return;
  for (const std::string rule : {"tb-hot", "gcra-hot"}) {
    must(*conn_, {"CONFIG", "RESETSTAT"});
    std::vector<DecideRequest> batch;
    for (int i = 0; i < 16; ++i) batch.push_back({"h" + std::to_string(i % 3), {0.5}, false});
    DecideOptions o;
    o.now_us = kEpochUs + 4'000'000'000;
    auto r = RedisLimiter{}.decide_batch(*conn_, rule, batch, 16, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    int admitted = 0;
    for (const auto& d : *r) admitted += d.ok() && d->decision.allowed ? 1 : 0;
    EXPECT_GE(admitted, 3) << rule;
    auto stats = conn_->command({"INFO", "commandstats"});
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    EXPECT_NE(stats->str.find("cmdstat_set:calls=3,"), std::string::npos) << rule << "\n"
                                                                          << stats->str;
  }
}

// The general path (a composite here) holds writes the same way: a call of 16 decisions on 3
// keys stores each limit's state of each key once, and the states are the core's.
TEST_P(RedisLimiterEquality, TheGeneralPathStoresEachStateOncePerCall) {
  const LimitParams rpm = bucket(Algorithm::token_bucket, 10, 7, 3s);
  const LimitParams tpm = bucket(Algorithm::gcra, 2.5, 0.7, 1s);
  RuleConfig config;
  config.limits = {NamedLimit{"rpm", rpm}, NamedLimit{"tpm", tpm}};
  put(*conn_, KeySchema{}, "both-hot", config);
  must(*conn_, {"CONFIG", "RESETSTAT"});
  std::vector<DecideRequest> batch;
  for (int i = 0; i < 16; ++i) batch.push_back({"h" + std::to_string(i % 3), {0.5}, false});
  DecideOptions o;
  o.now_us = kEpochUs;
  auto r = RedisLimiter{}.decide_batch(*conn_, "both-hot", batch, 16, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ManualClock clock;
  clock.set(Nanos{kEpochUs * 1000});
  std::map<std::string, std::unique_ptr<CompositeLimiter>> core;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto& l = core[batch[i].key];
    if (!l) {
      auto made = make_composite({rpm, tpm}, clock);
      ASSERT_TRUE(made.ok()) << made.error();
      l = std::move(*made);
    }
    const Decision want = l->try_acquire(0.5);
    ASSERT_TRUE((*r)[i].ok()) << (*r)[i].error().message;
    EXPECT_TRUE(same(want, (*r)[i]->decision)) << "decision " << i << "\n  core:  " << show(want)
                                               << "\n  redis: " << show((*r)[i]->decision);
  }
  auto stats = conn_->command({"INFO", "commandstats"});
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_NE(stats->str.find("cmdstat_set:calls=6,"), std::string::npos) << stats->str;
  // What the call ended with is what the next call reads: one more at the same instant.
  auto next = RedisLimiter{}.decide_batch(*conn_, "both-hot", {{"h0", {0.5}, false}}, 1, o);
  ASSERT_TRUE(next.ok() && (*next)[0].ok());
  EXPECT_TRUE(same(core["h0"]->try_acquire(0.5), (*next)[0]->decision));
}

// A composite (token bucket + sliding log, the same cost to both) against CompositeLimiter.
TEST_P(RedisLimiterEquality, Composite) {
  const LimitParams rpm = bucket(Algorithm::token_bucket, 10, 7, 3s);
  const LimitParams tpm = window(Algorithm::sliding_log, 25, 10s);
  RuleConfig config;
  config.limits = {NamedLimit{"rpm", rpm}, NamedLimit{"tpm", tpm}};
  put(*conn_, KeySchema{}, "both", config);
  std::mt19937_64 rng(61);
  const auto events = make_trace(rng, 20000, 12, 10, scale_us(rpm));
  const auto redis = run_redis("both", events, 16);
  ManualClock clock;
  std::map<int, std::unique_ptr<CompositeLimiter>> limiters;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    clock.set(Nanos{e.t_us * 1000});
    auto it = limiters.find(e.key);
    if (it == limiters.end()) {
      auto made = make_composite({rpm, tpm}, clock);
      ASSERT_TRUE(made.ok()) << made.error();
      it = limiters.emplace(e.key, std::move(*made)).first;
    }
    const Decision want = it->second->try_acquire(e.cost);
    ASSERT_TRUE(same(want, redis[i]))
        << "event " << i << " key " << e.key << " cost " << e.cost << "\n  core:  " << show(want)
        << "\n  redis: " << show(redis[i]);
  }
}

// The gateway's shape, requests (10) and llm_tokens (5,000) with a cost each: a refusal by the
// token limit is reported and logged as llm_tokens, with its level, although requests has
// fewer units left; an admission logs the limit its level is of.
INSTANTIATE_TEST_SUITE_P(Paths, RedisLimiterEquality,
                         ::testing::Values(ScriptMode::unknown, ScriptMode::scripts),
                         [](const ::testing::TestParamInfo<ScriptMode>& i) {
                           return i.param == ScriptMode::scripts ? "Evalsha" : "Functions";
                         });

TEST(RedisLimiterComposite, ReportsAndLogsTheLimitThatRefused) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  RuleConfig config;
  config.limits = {NamedLimit{"requests", bucket(Algorithm::token_bucket, 10, 1, 1s)},
                   NamedLimit{"llm_tokens", bucket(Algorithm::token_bucket, 5000, 5000, 60s)}};
  put(c, KeySchema{}, "gw", config);
  const RedisLimiter limiter;
  DecideOptions o;
  o.now_us = kEpochUs;
  DecideRequest r;
  r.key = "alice:m";
  r.log = true;
  r.costs = {1, 4000};
  auto first = limiter.decide(c, "gw", r, o);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->decision.allowed);
  EXPECT_EQ(first->binding_limit, "requests");  // 9 < 1000 when all admit
  r.costs = {1, 3000};
  auto second = limiter.decide(c, "gw", r, o);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE(second->decision.allowed);
  EXPECT_EQ(second->binding_limit, "llm_tokens");
  EXPECT_EQ(second->decision.remaining, 1000);
  EXPECT_EQ(second->decision.limit, 5000);
  EXPECT_EQ(second->decision.retry_after, Nanos{24s});  // 2,000 tokens at 5,000/min

  const Value log = must(c, {"XRANGE", KeySchema{}.decisions_key("gw"), "-", "+"});
  ASSERT_EQ(log.elements.size(), 2u);
  const auto field = [&](std::size_t entry, const std::string& name) -> std::string {
    const auto& f = log.elements[entry].elements[1].elements;
    for (std::size_t i = 0; i + 1 < f.size(); i += 2) {
      if (f[i].str == name) return f[i + 1].str;
    }
    return "(absent)";
  };
  EXPECT_EQ(field(0, "limit"), "requests");
  EXPECT_EQ(field(0, "level"), "9");
  EXPECT_EQ(field(0, "retry_us"), "(absent)");
  EXPECT_EQ(field(1, "allowed"), "0");
  EXPECT_EQ(field(1, "limit"), "llm_tokens");
  EXPECT_EQ(field(1, "level"), "1000");
  EXPECT_EQ(field(1, "cost"), "1,3000");
  EXPECT_EQ(field(1, "retry_us"), "24000000");
}

// PTTL of each algorithm's state = the time until it is indistinguishable from fresh.
}  // namespace
}  // namespace limitscope::redis
