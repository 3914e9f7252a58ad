// Verifies GCRA's state format 3 (docs/redis-state.md): on a rule switched to it a state is 24
// bytes (the TAT as µs and ns, and the end of its key's TTL), so a write keeps the TTL while it
// lasts until the TAT has passed and sets a longer one otherwise; the key never expires before
// its TAT, whatever mix of single decisions and batches with repeated keys wrote it; the TAT's
// text of the versions before is read and rewritten; a rule writes text until it is switched to
// format 3 (format 2 is the token bucket's only), so a decider of the version before, deciding
// the same keys, never finds a state it resets until then. Decisions equal the C++ core's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "core/limiter/algorithms.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/script.h"
#include "core/redis/state_codec.h"
#include "core/redis/state_format.h"
#include "limiter_test_support.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kEpochMs = kEpochUs / 1000;
// 10 units at 5/s: T = 200 ms, C·T = 2 s.
const LimitParams kParams = bucket(Algorithm::gcra, 10, 5, 1s);

// A decider of the version before format 3 (gcra.lua before it, for one plain integral cost):
// it reads the TAT's text and resets anything else as corrupt (an empty bucket now, stored), and
// writes the text with SET PX (the time until the TAT, ms rounded up, at least 1, plus the pad).
// KEYS[1] the state key; ARGV: T ns, C·T ns, now µs, cost ns, pad ms. Reply {allowed, reset}.
constexpr const char* kOldDecider = R"lua(
local T, L = tonumber(ARGV[1]), tonumber(ARGV[2])
local t, cost_ns, pad = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local raw = redis.call('GET', KEYS[1])
local b, reset = 0, 0
if raw then
  if #raw <= 19 and string.match(raw, '^%d+$') then
    local tat_us, rem = 0, tonumber(raw)
    if #raw > 3 then tat_us, rem = tonumber(string.sub(raw, 1, -4)), tonumber(string.sub(raw, -3)) end
    b = (tat_us - t) * 1000 + rem
    if b < 0 then b = 0 end
    if b > L then reset = 1 end
  else
    reset = 1
  end
end
if reset == 1 then b = L end
local allowed = b + cost_ns <= L
local a = false
if allowed then a = b + cost_ns elseif reset == 1 then a = L end
if a then
  local r = a % 1000
  local ms = math.ceil(a / 1000000)
  if ms < 1 then ms = 1 end
  redis.call('SET', KEYS[1], string.format('%d%03d', t + (a - r) / 1000, r), 'PX', ms + pad)
end
return {allowed and 1 or 0, reset}
)lua";

struct Rig {
  std::unique_ptr<RedisServer> server = RedisServer::start();
  Connection c = connect(*server);
  RedisLimiter limiter;
  Script old_decider{"old_gcra_decider", kOldDecider};
  DecideOptions o = [] {
    DecideOptions d;
    d.now_us = kEpochUs;
    return d;
  }();
  std::map<std::string, Gcra::State> core;
  LimitParams params;

  explicit Rig(int format = 3, const LimitParams& p = kParams) : params(p) {
    put(c, limiter.schema(), "r", single_limit(params));
    if (format > 1) switch_to(format);
  }
  void switch_to(int format) {
    auto f = set_state_format(c, limiter.schema(), "r", format);
    if (!f) throw std::runtime_error(f.error().message);
    EXPECT_EQ(*f, format);
  }
  std::string key(const std::string& label) const { return limiter.schema().state_key("r", label); }
  Nanos now() const { return Nanos{*o.now_us * 1000}; }
  std::string raw(const std::string& label) { return must(c, {"GET", key(label)}).str; }
  GcraStateValue state(const std::string& label) {
    const std::string v = raw(label);
    EXPECT_EQ(v.size(), 24U) << "format 3";
    auto s = decode_gcra_state(v);
    if (!s) throw std::runtime_error("no GCRA state at " + key(label));
    return *s;
  }
  std::int64_t pttl(const std::string& label) { return must(c, {"PTTL", key(label)}).integer; }
  Gcra::State& core_state(const std::string& label) {
    return core.try_emplace(label, Gcra::fresh(params, now())).first->second;
  }
  void check(const Result<RedisDecision>& got, const std::string& label, double cost) {
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_FALSE(got->state_reset) << label;
    const Decision want = Gcra::decide(params, core_state(label), now(), cost);
    EXPECT_TRUE(same(want, got->decision))
        << label << " cost " << cost << "\n  core:  " << show(want)
        << "\n  redis: " << show(got->decision);
  }
  void decide(const std::string& label, double cost) {
    check(limiter.decide(c, "r", label, cost, o), label, cost);
  }
  void batch(const std::vector<DecideRequest>& rs) {
    auto got = limiter.decide_batch(c, "r", rs, 16, o);
    ASSERT_TRUE(got.ok()) << got.error().message;
    ASSERT_EQ(got->size(), rs.size());
    for (std::size_t i = 0; i < rs.size(); ++i) check((*got)[i], rs[i].key, rs[i].costs.front());
  }
  // One decision of the old decider on an integral cost, checked against the core; returns
  // whether it reset the key's state (what the core never does: the caller fails the test).
  bool old_decide(const std::string& label, int cost) {
    const std::int64_t t_ns = Gcra::emission_interval_ns(params);
    const std::int64_t limit_ns = std::llround(params.capacity * static_cast<double>(t_ns));
    auto r = eval(c, old_decider, {key(label)},
                  {std::to_string(t_ns), std::to_string(limit_ns), std::to_string(*o.now_us),
                   std::to_string(cost * t_ns), std::to_string(o.ttl_pad_ms)});
    if (!r) throw std::runtime_error(r.error().message);
    if (r->elements.at(1).integer == 1) return true;
    const Decision want = Gcra::decide(params, core_state(label), now(), cost);
    EXPECT_EQ(r->elements.at(0).integer == 1, want.allowed) << label << " cost " << cost;
    return false;
  }
};

TEST(GcraState, TheCodecReadsBothFormsAndRefusesTheRest) {
  const auto text = decode_gcra_state("1700000000000000123");
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(text->tat_ns(), 1'700'000'000'000'000'123);
  EXPECT_EQ(text->exp_ms, 0);
  EXPECT_EQ(decode_gcra_state("45")->tat_ns(), 45);
  const GcraStateValue v{1'700'000'000'000'000, 999, 1'700'000'000'000};
  const auto bytes = encode_gcra_state(v);
  ASSERT_EQ(bytes.size(), 24U);
  ASSERT_TRUE(decode_gcra_state(bytes).has_value());
  EXPECT_EQ(decode_gcra_state(bytes)->tat_ns(), 1'700'000'000'000'000'999);
  EXPECT_EQ(decode_gcra_state(bytes)->exp_ms, v.exp_ms);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const GcraStateValue& bad :
       {GcraStateValue{1, 1000, 0}, GcraStateValue{1, 0.5, 0}, GcraStateValue{-1, 0, 0},
        GcraStateValue{1.5, 0, 0}, GcraStateValue{nan, 0, 0}, GcraStateValue{1, 0, nan},
        GcraStateValue{1, 0, -1}, GcraStateValue{9007199254740994.0, 0, 0}}) {
    EXPECT_FALSE(decode_gcra_state(encode_gcra_state(bad)).has_value())
        << bad.tat_us << " " << bad.rem_ns << " " << bad.exp_ms;
  }
  for (const char* bad : {"", "12a", "-5", "99999999999999999999", "9999999999999999999", " 1"})
    EXPECT_FALSE(decode_gcra_state(bad).has_value()) << bad;
}

void keeps_the_ttl_while_it_lasts(ScriptMode mode) {
  Rig rig;
  rig.c.set_script_mode(mode);
  // 4 units at T = 200 ms: the TAT 800 ms ahead; the TTL is a second longer.
  rig.decide("k", 4);
  EXPECT_EQ(rig.state("k").tat_ns(), (kEpochUs + 800'000) * 1000);
  EXPECT_EQ(rig.state("k").exp_ms, kEpochMs + 1800 - 1);
  const std::int64_t first = rig.pttl("k");
  EXPECT_GT(first, 800);
  EXPECT_LE(first, 1800);
  // 100 ms later, 1 more: the TAT 900 ms ahead, within the TTL: kept.
  rig.o.now_us = kEpochUs + 100'000;
  rig.decide("k", 1);
  EXPECT_EQ(rig.state("k").exp_ms, kEpochMs + 1800 - 1);
  const std::int64_t kept = rig.pttl("k");
  EXPECT_LE(kept, first) << "SET ... KEEPTTL: the TTL was not set again";
  EXPECT_GT(kept, 0);
  // 5 more: the TAT 1,900 ms ahead, past the TTL's end: a new TTL, a second longer.
  rig.decide("k", 5);
  EXPECT_EQ(rig.state("k").tat_ns(), (kEpochUs + 2'000'000) * 1000);
  EXPECT_EQ(rig.state("k").exp_ms, kEpochMs + 100 + 1900 + 1000 - 1);
  EXPECT_GT(rig.pttl("k"), first);
  // A refusal writes nothing.
  const std::string before = rig.raw("k");
  rig.decide("k", 2);
  EXPECT_EQ(rig.raw("k"), before);
  // The same steps on 100 units at 50/s (T = 20 ms, C·T = 2 s), whose admissions leave at least
  // the pressure index's threshold (10 units): decided by the lean path's inline GCRA.
  Rig big(3, bucket(Algorithm::gcra, 100, 50, 1s));
  big.c.set_script_mode(mode);
  big.decide("k", 40);  // the TAT 800 ms ahead
  EXPECT_EQ(big.state("k").exp_ms, kEpochMs + 1800 - 1);
  big.o.now_us = kEpochUs + 100'000;
  big.decide("k", 5);  // 900 ms ahead of the start: kept
  EXPECT_EQ(big.state("k").exp_ms, kEpochMs + 1800 - 1);
  big.decide("k", 50);  // 1,800 ms ahead of now, 10 units left: past the TTL's end, a new one
  EXPECT_EQ(big.state("k").tat_ns(), (kEpochUs + 1'900'000) * 1000);
  EXPECT_EQ(big.state("k").exp_ms, kEpochMs + 100 + 1800 + 1000 - 1);
  EXPECT_GT(big.pttl("k"), 1800);
}

TEST(GcraState, AWriteKeepsTheTtlWhileItLastsUntilTheTatPasses) {
  keeps_the_ttl_while_it_lasts(ScriptMode::unknown);  // Functions
}

TEST(GcraState, AnEvalshaWriteKeepsTheTtlWhileItLastsUntilTheTatPasses) {
  keeps_the_ttl_while_it_lasts(ScriptMode::scripts);
}

// The text of the versions before (no TTL known) is decided on as the core decides and
// rewritten in 24 bytes with a TTL of its own, single and in a batch that repeats the key.
TEST(GcraState, ATextStateIsReadAndRewrittenInFormat3) {
  for (const ScriptMode mode : {ScriptMode::unknown, ScriptMode::scripts}) {
    Rig rig;
    rig.c.set_script_mode(mode);
    // 3 units taken 100 ms ago: the TAT 500 ms ahead of now.
    const std::int64_t tat_us = kEpochUs + 500'000;
    for (const char* label : {"a", "b"}) {
      must(rig.c, {"SET", rig.key(label), std::to_string(tat_us) + "000"});
      rig.core_state(label).tat_ns = tat_us * 1000;
    }
    rig.decide("a", 1);
    rig.batch({{"b", {1}}, {"b", {2.5}}, {"a", {1}}});
    for (const char* label : {"a", "b"}) {
      EXPECT_EQ(rig.state(label).tat_ns(), rig.core_state(label).tat_ns) << label;
      EXPECT_GT(rig.pttl(label), 1000) << label;  // the TAT's ms, and a second
    }
  }
}

// On the server's own clock, random single decisions, batches that repeat keys (writes held
// within a call) and text states: after every call, each key holding 24 bytes expires no
// earlier than its TAT and no earlier than the end its state claims. T = 20 ms and C·T = 2 s:
// TATs pass, keys expire and are kept while the test runs, and a TAT can move past the second
// a TTL is set longer than needed.
TEST(GcraState, AKeyNeverExpiresBeforeItsTat) {
  Rig rig(3, bucket(Algorithm::gcra, 100, 50, 1s));
  const DecideOptions live;  // TIME, no pad
  std::mt19937 rng(183);
  std::uniform_int_distribution<int> pick(0, 3), what(0, 9), how_many(1, 6);
  std::uniform_real_distribution<double> cost(0.25, 12);
  const auto label = [&] { return "k" + std::to_string(pick(rng)); };
  int checked = 0;
  for (int i = 0; i < 1500; ++i) {
    const int w = what(rng);
    if (w < 4) {
      ASSERT_TRUE(rig.limiter.decide(rig.c, "r", label(), cost(rng), live).ok());
    } else if (w < 9) {
      std::vector<DecideRequest> rs;
      for (int n = how_many(rng); n > 0; --n) rs.push_back({label(), {cost(rng)}});
      ASSERT_TRUE(rig.limiter.decide_batch(rig.c, "r", rs, 16, live).ok());
    } else {
      auto now = read_server_time_us(rig.c);
      ASSERT_TRUE(now.ok());
      must(rig.c, {"SET", rig.key(label()), std::to_string(*now + 20'000) + "000", "PX", "50"});
    }
    for (int k = 0; k < 4; ++k) {
      const std::string l = "k" + std::to_string(k);
      const Value v = must(rig.c, {"GET", rig.key(l)});
      if (v.is_nil() || v.str.size() != 24) continue;  // expired, or a text state just set
      const auto s = decode_gcra_state(v.str);
      ASSERT_TRUE(s.has_value());
      const std::int64_t ends = must(rig.c, {"PEXPIRETIME", rig.key(l)}).integer;
      ASSERT_GT(ends, 0) << "every state has a TTL";
      EXPECT_GE(ends * 1'000'000, s->tat_ns()) << l << " at step " << i;
      EXPECT_GE(static_cast<double>(ends), s->exp_ms) << l << " at step " << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

// A rolling upgrade: until the rule is switched to format 3 (format 2 included: the token
// bucket's only) decisions write the TAT's text, and the old decider, deciding the same keys in
// between, never resets one; every decision of both equals the core's. Switched, the new
// decisions write 24 bytes, which the old decider would reset. Switched back, text again.
TEST(GcraState, DecisionsWriteTextUntilTheRuleIsSwitchedToFormat3) {
  for (const ScriptMode mode : {ScriptMode::unknown, ScriptMode::scripts}) {
    Rig rig(1);
    rig.c.set_script_mode(mode);
    rig.o.ttl_pad_ms = 600'000;  // simulated time runs slower than the wall clock: keys stay
    std::mt19937 rng(184);
    std::uniform_int_distribution<int> pick(0, 3), what(0, 9), how_many(2, 6), step_us(0, 300'000),
        whole(1, 3);
    std::uniform_real_distribution<double> cost(0.25, 4);
    const auto label = [&] { return "k" + std::to_string(pick(rng)); };
    int old_decisions = 0;
    for (int i = 0; i < 400; ++i) {
      if (i == 200) rig.switch_to(2);
      *rig.o.now_us += step_us(rng);
      const int w = what(rng);
      if (w < 4) {
        const std::string l = label();
        ASSERT_FALSE(rig.old_decide(l, whole(rng))) << "the old decider reset " << l << " at " << i;
        ++old_decisions;
      } else if (w < 7) {
        rig.decide(label(), cost(rng));
      } else {
        std::vector<DecideRequest> rs;
        for (int n = how_many(rng); n > 0; --n) rs.push_back({label(), {cost(rng)}});
        rig.batch(rs);
      }
      for (int k = 0; k < 4; ++k) {
        const std::string v = rig.raw("k" + std::to_string(k));
        EXPECT_TRUE(v.empty() || (decode_gcra_state(v).has_value() && v.size() <= 19))
            << "k" << k << " holds " << v.size() << " bytes at step " << i;
      }
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GT(old_decisions, 100);
    rig.switch_to(3);
    *rig.o.now_us += 1000;
    rig.decide("k0", 0.5);
    EXPECT_EQ(rig.raw("k0").size(), 24U);
    rig.batch({{"k0", {0.5}}, {"k1", {0.5}}, {"k0", {0.5}}});
    EXPECT_EQ(rig.raw("k1").size(), 24U);
    EXPECT_TRUE(rig.old_decide("k0", 1)) << "a decider of the version before resets format 3";
    rig.switch_to(1);
    *rig.o.now_us += 1000;
    rig.decide("k1", 0.5);  // 24 bytes read, rewritten as text
    EXPECT_LE(rig.raw("k1").size(), 19U);
    EXPECT_TRUE(decode_gcra_state(rig.raw("k1")).has_value());
  }
}

}  // namespace
}  // namespace limitscope::redis
