// Verifies the token-bucket state format's switch for rolling upgrades (docs/redis-state.md,
// core/redis/state_format.h): decisions write format 1 (16 bytes) until the rule is switched
// to format 2, read both, and a decider of the version before format 2 deciding the same keys
// in between never finds a state it resets; every decision of both stays equal to the C++
// core's, on the FCALL and EVALSHA paths, with batches that repeat keys and settlements.
#include "core/redis/state_format.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>

#include "core/limiter/algorithms.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/script.h"
#include "core/redis/shadow_config.h"
#include "core/redis/state_codec.h"
#include "limiter_test_support.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

// A decider of the version before format 2 (token_bucket.lua at 955b219^), for one
// token-bucket limit and one plain cost: it reads a 16-byte state and resets anything else as
// corrupt (an empty bucket now, stored even when it refuses), and writes 16 bytes with SET PX
// (the time until full, ms rounded up, at least 1, plus the test pad). Its arithmetic is the
// same as today's. KEYS[1] the state key; ARGV: capacity, refill amount, period ns, now µs,
// cost, pad ms. Reply: {allowed, reset, remaining as %.17g}.
constexpr const char* kOldDecider = R"lua(
local C, amount, period = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local t, cost, pad = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local raw = redis.call('GET', KEYS[1])
local tokens, last, reset, write = C, t, 0, false
if raw then
  if #raw == 16 then tokens, last = struct.unpack('<dd', raw) end
  if #raw ~= 16 or tokens ~= tokens or tokens < -(amount * 3600000000000 / period) or
     not (last >= 0) or last % 1 ~= 0 or (last - t) * 1000 > C * period / amount then
    tokens, last, reset, write = 0, t, 1, true
  end
end
local level = tokens
if t > last then level = tokens + ((t - last) * 1000) * amount / period end
if not (level < C) then level = C end
local allowed = level >= cost
local a, b = tokens, last
if allowed then
  a, b, write = level - cost, last, true
  if t > last then b = t end
end
if write then
  local full_ns = (b - t) * 1000 + math.ceil((C - a) * (period / amount))
  local ms = math.ceil(full_ns / 1000000)
  if ms < 1 then ms = 1 end
  redis.call('SET', KEYS[1], struct.pack('<dd', a, b), 'PX', ms + pad)
end
return {allowed and 1 or 0, reset, string.format('%.17g', allowed and level - cost or level)}
)lua";

const LimitParams kParams = test::bucket(Algorithm::token_bucket, 10, 5, 1s);

struct Rig {
  std::unique_ptr<RedisServer> server = RedisServer::start();
  Connection c = connect(*server);
  RedisLimiter limiter;
  Script old_decider{"old_decider", kOldDecider};
  DecideOptions o = [] {
    DecideOptions d;
    d.now_us = kEpochUs;
    d.ttl_pad_ms = 600'000;  // simulated time runs slower than the wall clock: keys stay
    return d;
  }();
  // The core's state per label, created full at its first use (an absent key is a full bucket).
  std::map<std::string, TokenBucket::State> core;

  std::string key(const std::string& label) const { return limiter.schema().state_key("r", label); }
  Nanos now() const { return Nanos{*o.now_us * 1000}; }
  TokenBucket::State& state(const std::string& label) {
    return core.try_emplace(label, TokenBucket::fresh(kParams, now())).first->second;
  }
  std::size_t stored_bytes(const std::string& label) {
    return must(c, {"GET", key(label)}).str.size();
  }
  int format() {
    auto f = get_state_format(c, limiter.schema(), "r");
    if (!f) throw std::runtime_error(f.error().message);
    return *f;
  }
  void switch_to(int format) {
    auto f = set_state_format(c, limiter.schema(), "r", format);
    if (!f) throw std::runtime_error(f.error().message);
    EXPECT_EQ(*f, format);
  }

  // One decision by the old decider, checked against the core; returns whether it reset.
  bool old_decide(const std::string& label, double cost) {
    const std::string pad = std::to_string(o.ttl_pad_ms);
    char exact[32];
    std::snprintf(exact, sizeof exact, "%.17g", cost);
    auto r = eval(c, old_decider, {key(label)},
                  {"10", "5", "1000000000", std::to_string(*o.now_us), exact, pad});
    if (!r) throw std::runtime_error(r.error().message);
    const bool reset = r->elements.at(1).integer == 1;
    if (reset) return true;  // what the core would not do: the caller fails the test
    const Decision want = TokenBucket::decide(kParams, state(label), now(), cost);
    EXPECT_EQ(r->elements.at(0).integer == 1, want.allowed) << label << " cost " << cost;
    EXPECT_EQ(std::strtod(r->elements.at(2).str.c_str(), nullptr), want.remaining) << label;
    return false;
  }
  void check(const Result<RedisDecision>& got, const std::string& label, double cost) {
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_FALSE(got->state_reset) << label;
    const Decision want = TokenBucket::decide(kParams, state(label), now(), cost);
    EXPECT_EQ(got->decision.allowed, want.allowed) << label << " cost " << cost;
    EXPECT_EQ(got->decision.remaining, want.remaining) << label;
    EXPECT_EQ(got->decision.retry_after, want.retry_after) << label;
    EXPECT_EQ(got->decision.reset_after, want.reset_after) << label;
  }
  void new_decide(const std::string& label, double cost) {
    check(limiter.decide(c, "r", label, cost, o), label, cost);
  }
  void new_batch(const std::vector<DecideRequest>& rs) {
    auto got = limiter.decide_batch(c, "r", rs, 16, o);
    ASSERT_TRUE(got.ok()) << got.error().message;
    ASSERT_EQ(got->size(), rs.size());
    for (std::size_t i = 0; i < rs.size(); ++i) check((*got)[i], rs[i].key, rs[i].costs.front());
  }
  void settle(const std::string& label, double delta) {
    auto got = limiter.settle(c, "r", SettleRequest{label, "", delta}, o);
    ASSERT_TRUE(got.ok()) << got.error().message;
    TokenBucket::settle(kParams, state(label), now(), delta);
    if (got->has_value()) {
      EXPECT_EQ(**got, state(label).tokens) << label;
    }
  }
};

TEST(StateFormat, DecisionsWriteFormatOneUntilTheRuleIsSwitched) {
  Rig rig;
  put(rig.c, rig.limiter.schema(), "r", single_limit(kParams));
  EXPECT_EQ(rig.format(), 1);
  rig.new_decide("k", 4);
  EXPECT_EQ(rig.stored_bytes("k"), 16U);
  rig.switch_to(2);
  rig.o.now_us = kEpochUs + 100'000;
  rig.new_decide("k", 1);  // a format-1 state read, rewritten in format 2
  EXPECT_EQ(rig.stored_bytes("k"), 24U);
  // A config change keeps the switch, and so does a shadow's.
  put(rig.c, rig.limiter.schema(), "r", single_limit(kParams));
  EXPECT_EQ(rig.format(), 2);
  ASSERT_TRUE(set_shadow(rig.c, rig.limiter.schema(), "r", single_limit(kParams),
                         ChangeInfo{"test", "shadow", std::nullopt})
                  .ok());
  EXPECT_EQ(rig.format(), 2);
  rig.o.now_us = kEpochUs + 150'000;
  rig.new_decide("k", 1);  // and the shadow's state is written in format 2 as well
  EXPECT_EQ(must(rig.c, {"GET", rig.limiter.schema().shadow_state_key("r", "k")}).str.size(), 24U);
  // A settlement keeps the format the key holds.
  rig.settle("k", 1);
  EXPECT_EQ(rig.stored_bytes("k"), 24U);
  rig.switch_to(1);
  rig.o.now_us = kEpochUs + 200'000;
  rig.new_decide("k", 1);  // a format-2 state read, rewritten in format 1
  EXPECT_EQ(rig.stored_bytes("k"), 16U);
  rig.settle("k", -1);
  EXPECT_EQ(rig.stored_bytes("k"), 16U);
  rig.switch_to(1);  // already: unchanged
  EXPECT_EQ(rig.format(), 1);
}

TEST(StateFormat, ARuleWithoutAStampCannotBeSwitched) {
  Rig rig;
  auto f = set_state_format(rig.c, rig.limiter.schema(), "none", 2);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("LSCONFIG"), std::string::npos) << f.error().message;
  auto bad = set_state_format(rig.c, rig.limiter.schema(), "none", 4);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::usage);
}

// A rolling upgrade: the old decider and the new one (single calls, batches repeating keys,
// settlements) decide the same four keys in random order as simulated time passes. Before the
// switch, nothing is reset, every key holds 16 bytes and every decision equals the core's.
// After it, the old decider's next read of a key the new one wrote is a reset: the hazard the
// switch keeps away until the fleet is upgraded.
void interleave(ScriptMode mode) {
  Rig rig;
  rig.c.set_script_mode(mode);
  put(rig.c, rig.limiter.schema(), "r", single_limit(kParams));
  std::mt19937 rng(182);
  std::uniform_int_distribution<int> pick(0, 3), what(0, 9), how_many(2, 6), step_us(0, 400'000);
  std::uniform_real_distribution<double> cost(0.25, 6), delta(-3, 3);
  const auto label = [&] { return "k" + std::to_string(pick(rng)); };
  int old_decisions = 0;
  for (int i = 0; i < 600; ++i) {
    *rig.o.now_us += step_us(rng);
    const int w = what(rng);
    if (w < 4) {
      const std::string l = label();
      ASSERT_FALSE(rig.old_decide(l, cost(rng)))
          << "the old decider reset " << l << " at step " << i;
      ++old_decisions;
    } else if (w < 6) {
      rig.new_decide(label(), cost(rng));
    } else if (w < 8) {
      std::vector<DecideRequest> rs;
      for (int n = how_many(rng); n > 0; --n) rs.push_back({label(), {cost(rng)}});
      rig.new_batch(rs);
    } else {
      rig.settle(label(), delta(rng));
    }
    for (const auto& [l, s] : rig.core) {
      const std::size_t bytes = rig.stored_bytes(l);
      EXPECT_TRUE(bytes == 0 || bytes == 16) << l << " holds " << bytes << " bytes at step " << i;
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(old_decisions, 150);
  // The fleet upgraded: switched, the new decider writes format 2 and stays equal to the core.
  rig.switch_to(2);
  *rig.o.now_us += 1000;
  rig.new_decide("k0", 0.5);
  EXPECT_EQ(rig.stored_bytes("k0"), 24U);
  rig.new_batch({{"k0", {0.5}}, {"k1", {0.5}}, {"k0", {0.5}}});
  EXPECT_EQ(rig.stored_bytes("k1"), 24U);
  // A decider of the version before would now read k0 as corrupt.
  EXPECT_TRUE(rig.old_decide("k0", 0.5));
}

TEST(StateFormat, AnOldDeciderAndANewOneInterleaveEqualToTheCore) {
  interleave(ScriptMode::unknown);  // Functions
}

TEST(StateFormat, AnOldDeciderAndAnEvalshaDeciderInterleaveEqualToTheCore) {
  interleave(ScriptMode::scripts);
}

}  // namespace
}  // namespace limitscope::redis
