// Verifies the token-bucket state's format 2 (docs/redis-state.md), on rules switched to it
// (state_format_test.cpp covers the switch): the state carries the end of its key's TTL, so a write
// keeps the TTL (SET ... KEEPTTL) while it lasts until the bucket is full again and sets a longer
// one (SET ... PX) otherwise; the key never expires before the bucket is full, whatever mix of
// decisions, batches with repeated keys and settlements wrote it; and a state of the 16-byte format
// before it is read, decided on exactly and rewritten in format 2 by decide.lua on both paths, and
// settled in its own format by settle.lua.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/limiter/algorithms.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/state_codec.h"
#include "core/redis/state_format.h"
#include "limiter_test_support.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kEpochMs = kEpochUs / 1000;

struct Rig {
  std::unique_ptr<RedisServer> server = RedisServer::start();
  Connection c = connect(*server);
  RedisLimiter limiter;
  DecideOptions o = [] {
    DecideOptions d;
    d.now_us = kEpochUs;
    return d;
  }();

  std::string key(const std::string& label) const { return limiter.schema().state_key("r", label); }
  // Rule r with `p`, its decisions switched to format 2.
  void configure(const LimitParams& p) {
    put(c, limiter.schema(), "r", single_limit(p));
    auto f = set_state_format(c, limiter.schema(), "r", 2);
    if (!f) throw std::runtime_error(f.error().message);
  }
  TokenBucketStateValue state(const std::string& label, std::size_t bytes = 24) {
    const Value v = must(c, {"GET", key(label)});
    EXPECT_EQ(v.str.size(), bytes) << "format " << (bytes == 24 ? 2 : 1);
    auto s = decode_token_bucket_state(v.str);
    if (!s) throw std::runtime_error("no token-bucket state at " + key(label));
    return *s;
  }
  std::int64_t pttl(const std::string& label) { return must(c, {"PTTL", key(label)}).integer; }
  double decide(const std::string& label, double cost) {
    auto d = limiter.decide(c, "r", label, cost, o);
    if (!d) throw std::runtime_error(d.error().message);
    EXPECT_TRUE(d->decision.allowed) << label << " cost " << cost;
    return d->decision.remaining;
  }
};

void keeps_the_ttl_while_it_lasts(ScriptMode mode) {
  Rig rig;
  rig.c.set_script_mode(mode);
  rig.configure(bucket(Algorithm::token_bucket, 10, 5, 1s));
  // 4 tokens taken at 5/s: full again in 800 ms; the TTL is a second longer.
  EXPECT_EQ(rig.decide("k", 4), 6);
  EXPECT_EQ(rig.state("k").exp_ms, kEpochMs + 1800 - 1);
  const std::int64_t first = rig.pttl("k");
  EXPECT_GT(first, 800);
  EXPECT_LE(first, 1800);
  // 100 ms later: 6.5 tokens, 1 taken, full again in 100 + 900 ms, within the TTL: kept.
  rig.o.now_us = kEpochUs + 100'000;
  EXPECT_EQ(rig.decide("k", 1), 5.5);
  EXPECT_EQ(rig.state("k").exp_ms, kEpochMs + 1800 - 1);
  const std::int64_t kept = rig.pttl("k");
  EXPECT_LE(kept, first) << "SET ... KEEPTTL: the TTL was not set again";
  EXPECT_GT(kept, 0);
  // 5 more: full again in 100 + 1900 ms, past the TTL's end: a new TTL, a second longer.
  EXPECT_EQ(rig.decide("k", 5), 0.5);
  EXPECT_EQ(rig.state("k").exp_ms, kEpochMs + 100 + 1900 + 1000 - 1);
  EXPECT_GT(rig.pttl("k"), first);
}

TEST(TokenBucketState, AWriteKeepsTheTtlWhileItLastsUntilTheBucketIsFull) {
  keeps_the_ttl_while_it_lasts(ScriptMode::unknown);  // Functions
}

TEST(TokenBucketState, AnEvalshaWriteKeepsTheTtlWhileItLastsUntilTheBucketIsFull) {
  keeps_the_ttl_while_it_lasts(ScriptMode::scripts);
}

// A state written before format 2 (16 bytes: tokens, ts; its TTL unknown) is decided on as it
// was and rewritten in format 2 with a TTL of its own; a settlement keeps format 1 (settle.lua
// writes the format the key holds) and sets a TTL.
void reads_the_format_before(ScriptMode mode) {
  Rig rig;
  rig.c.set_script_mode(mode);
  rig.configure(bucket(Algorithm::token_bucket, 10, 5, 1s));
  const auto old = encode_token_bucket_state_v1({3, static_cast<double>(kEpochUs)});
  ASSERT_EQ(old.size(), 16U);
  must(rig.c, {"SET", rig.key("d"), old});  // no TTL: the next write must set one
  must(rig.c, {"SET", rig.key("s"), old});
  rig.o.now_us = kEpochUs + 200'000;  // one token refilled: 4
  EXPECT_EQ(rig.decide("d", 1), 3);
  const auto d = rig.state("d");
  EXPECT_EQ(d.tokens, 3);
  EXPECT_EQ(d.ts_us, kEpochUs + 200'000);
  EXPECT_EQ(d.exp_ms, kEpochMs + 200 + 1400 + 1000 - 1);  // 7 tokens at 5/s, and the second
  EXPECT_GT(rig.pttl("d"), 1400);
  // The core decides the same from the same state.
  TokenBucket::State st{3, kEpochUs * 1000};
  const Decision want = TokenBucket::decide(bucket(Algorithm::token_bucket, 10, 5, 1s), st,
                                            Nanos{(kEpochUs + 200'000) * 1000}, 1);
  EXPECT_TRUE(want.allowed);
  EXPECT_EQ(want.remaining, d.tokens);
  // settle.lua: a refund of 2 on the old state, at the same instant.
  auto settled = rig.limiter.settle(rig.c, "r", SettleRequest{"s", "", -2}, rig.o);
  ASSERT_TRUE(settled.ok()) << settled.error().message;
  ASSERT_TRUE(settled->has_value());
  EXPECT_EQ(**settled, 6);
  const auto s = rig.state("s", 16);
  EXPECT_EQ(s.tokens, 6);
  EXPECT_EQ(s.exp_ms, 0);
  EXPECT_GT(rig.pttl("s"), 0);
  EXPECT_LE(rig.pttl("s"), 800);  // 4 tokens at 5/s: no second added in format 1
}

TEST(TokenBucketState, AStateOfTheFormatBeforeIsReadAndRewritten) {
  reads_the_format_before(ScriptMode::unknown);
}

TEST(TokenBucketState, AnEvalshaReadsAStateOfTheFormatBeforeAndRewritesIt) {
  reads_the_format_before(ScriptMode::scripts);
}

// The function library's fast path (fast.lua: one plain-cost admission on a kept config) writes
// what ls_tb_store writes: in format 2 a new key gets a TTL a second longer than its bucket needs
// and the end in its state, a key whose TTL lasts keeps it, and the TTL's text is the number's
// (the same TTL twice: the kept text); in format 1, 16 bytes and the TTL the bucket needs. Each
// decision is the core's. Run on both paths (EVALSHA: the lean prelude) for the same states.
void writes_as_the_general_path(ScriptMode mode, int format) {
  Rig rig;
  rig.c.set_script_mode(mode);
  const auto p = bucket(Algorithm::token_bucket, 10, 5, 1s);
  if (format == 2) {
    rig.configure(p);
  } else {
    put(rig.c, rig.limiter.schema(), "r", single_limit(p));
  }
  const std::size_t bytes = format == 2 ? 24 : 16;
  rig.decide("warm", 1);  // the config is parsed and kept: the decisions below take the fast path
  for (const char* label : {"a", "b"}) {
    // 4 tokens taken at 5/s: full again in 800 ms.
    EXPECT_EQ(rig.decide(label, 4), 6);
    const auto s = rig.state(label, bytes);
    EXPECT_EQ(s.tokens, 6);
    EXPECT_EQ(s.ts_us, kEpochUs);
    EXPECT_EQ(s.exp_ms, format == 2 ? kEpochMs + 1800 - 1 : 0);
    const std::int64_t ttl = rig.pttl(label);
    EXPECT_GT(ttl, format == 2 ? 800 : 0) << label;
    EXPECT_LE(ttl, format == 2 ? 1800 : 800) << label;
  }
  // 100 ms later on "a": 6.5 tokens, 2 taken, full again in 900 ms.
  rig.o.now_us = kEpochUs + 100'000;
  const std::int64_t before = rig.pttl("a");
  EXPECT_EQ(rig.decide("a", 2), 4.5);
  const auto s = rig.state("a", bytes);
  TokenBucket::State st{6, kEpochUs * 1000};
  const Decision want = TokenBucket::decide(p, st, Nanos{(kEpochUs + 100'000) * 1000}, 2);
  EXPECT_EQ(want.remaining, s.tokens);
  EXPECT_EQ(s.ts_us, kEpochUs + 100'000);
  if (format == 2) {
    EXPECT_EQ(s.exp_ms, kEpochMs + 1800 - 1);  // within the TTL: kept
    EXPECT_LE(rig.pttl("a"), before) << "SET ... KEEPTTL: the TTL was not set again";
  } else {
    EXPECT_GT(rig.pttl("a"), 0);
    EXPECT_LE(rig.pttl("a"), 1100);  // 5.5 tokens at 5/s from t + 100 ms
  }
}

TEST(TokenBucketState, TheFastPathWritesAsTheGeneralPath) {
  writes_as_the_general_path(ScriptMode::unknown, 2);
  writes_as_the_general_path(ScriptMode::unknown, 1);
}

TEST(TokenBucketState, AnEvalshaWritesTheSameStates) {
  writes_as_the_general_path(ScriptMode::scripts, 2);
  writes_as_the_general_path(ScriptMode::scripts, 1);
}

// On the server's own clock, random decisions, batches that repeat keys (writes held within a
// call), settlements and format-1 states: after every call, each key that exists expires no
// earlier than the instant its bucket is full again, and no earlier than the end its state
// claims. 10 ms per token, so keys refill, expire and are kept while the test runs.
TEST(TokenBucketState, AKeyNeverExpiresBeforeItsBucketIsFull) {
  Rig rig;
  const auto p = bucket(Algorithm::token_bucket, 10, 100, 1s);
  rig.configure(p);
  const DecideOptions live;  // TIME, no pad
  std::mt19937 rng(18);
  std::uniform_int_distribution<int> pick(0, 3), what(0, 9), how_many(1, 6);
  std::uniform_real_distribution<double> cost(0.25, 6), delta(-3, 3);
  const auto label = [&] { return "k" + std::to_string(pick(rng)); };
  int checked = 0;
  for (int i = 0; i < 1500; ++i) {
    const int w = what(rng);
    if (w < 4) {
      ASSERT_TRUE(rig.limiter.decide(rig.c, "r", label(), cost(rng), live).ok());
    } else if (w < 7) {
      std::vector<DecideRequest> rs;
      for (int n = how_many(rng); n > 0; --n) rs.push_back({label(), {cost(rng)}});
      ASSERT_TRUE(rig.limiter.decide_batch(rig.c, "r", rs, 16, live).ok());
    } else if (w < 9) {
      ASSERT_TRUE(
          rig.limiter.settle(rig.c, "r", SettleRequest{label(), "", delta(rng)}, live).ok());
    } else {
      auto now = read_server_time_us(rig.c);
      ASSERT_TRUE(now.ok());
      must(rig.c,
           {"SET", rig.key(label()),
            encode_token_bucket_state_v1({cost(rng), static_cast<double>(*now)}), "PX", "50"});
    }
    for (int k = 0; k < 4; ++k) {
      const std::string l = "k" + std::to_string(k);
      const Value v = must(rig.c, {"GET", rig.key(l)});
      if (v.is_nil() || v.str.size() != 24) continue;  // expired, or a format-1 state just set
      const auto s = decode_token_bucket_state(v.str);
      ASSERT_TRUE(s.has_value());
      const std::int64_t ends = must(rig.c, {"PEXPIRETIME", rig.key(l)}).integer;
      ASSERT_GT(ends, 0) << "every state has a TTL";
      // Full again at ts + (C - tokens) / r, µs rounded up; the key is gone only after `ends`.
      const double full_us = s->ts_us + std::ceil((10 - s->tokens) * 10'000);
      EXPECT_GE(static_cast<double>(ends + 1) * 1000, full_us) << l << " at step " << i;
      EXPECT_GE(static_cast<double>(ends), s->exp_ms) << l << " at step " << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace limitscope::redis
