// Verifies the shadow config's evaluation in decide.lua (issue 19 item 1): on the same requests
// of a random trace, the shadow's outcome equals the core algorithm run with the shadow's
// parameters, the live decisions stay those of the live parameters (the shadow enforces
// nothing and touches none of the live states), the counts in "<prefix>{R}:shadow:counts" are
// the shadow's decisions, and `shadow set`/`clear` take effect at the next decision (they
// rewrite the stamp the kept config is checked against). Both paths: FCALL and EVALSHA.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>

#include "core/limiter/gcra.h"
#include "core/limiter/sliding_log.h"
#include "core/limiter/token_bucket.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/shadow_config.h"
#include "limiter_test_support.h"
#include "support/limit_params_builders.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

const ChangeInfo kChange{"test", "shadow test", std::nullopt};

struct Event {
  std::int64_t t_us;
  int key;
  double cost;
};

// Non-decreasing instants (same-µs bursts and idle gaps) over a few keys, costs 1..3 with some
// fractional ones.
std::vector<Event> make_trace(std::uint64_t seed, std::size_t n, int keys, std::int64_t gap_us) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Event> out;
  std::int64_t t = kEpochUs;
  for (std::size_t i = 0; i < n; ++i) {
    const double g = u(rng);
    if (g > 0.2)
      t += static_cast<std::int64_t>(u(rng) * static_cast<double>(g > 0.99 ? 50 * gap_us : gap_us));
    const double cost =
        u(rng) < 0.8 ? static_cast<double>(1 + static_cast<int>(u(rng) * 3)) : 0.5 + u(rng);
    out.push_back({t, static_cast<int>(u(rng) * keys), cost});
  }
  return out;
}

class ShadowEval : public ::testing::TestWithParam<ScriptMode> {
 protected:
  void SetUp() override {
    server_ = RedisServer::start();
    conn_ = std::make_unique<Connection>(testing::connect(*server_));
    conn_->set_script_mode(GetParam());
  }

  // `events` through decide.lua, `per_call` decisions per call, each at its own instant.
  std::vector<RedisDecision> run(const std::string& rule, const std::vector<Event>& events,
                                 std::size_t per_call, bool log = false) {
    DecideOptions o;
    o.ttl_pad_ms = 24 * 3600 * 1000;
    std::vector<DecideRequest> batch;
    for (const Event& e : events) {
      DecideRequest r;
      r.key = "k" + std::to_string(e.key);
      r.costs = {e.cost};
      r.now_us = e.t_us;
      r.log = log;
      batch.push_back(std::move(r));
    }
    auto results = RedisLimiter().decide_batch(*conn_, rule, batch, per_call, o);
    if (!results) throw std::runtime_error(results.error().message);
    std::vector<RedisDecision> out;
    for (auto& r : *results) {
      if (!r) throw std::runtime_error(r.error().message);
      out.push_back(*r);
    }
    return out;
  }

  // The core algorithm A on the trace, one fresh state per key: allowed per event.
  template <class A>
  static std::vector<bool> core(const LimitParams& p, const std::vector<Event>& events) {
    std::map<int, typename A::State> states;
    std::vector<bool> out;
    for (const Event& e : events) {
      const Nanos now{e.t_us * 1000};
      auto it = states.find(e.key);
      if (it == states.end()) it = states.emplace(e.key, A::fresh(p, now)).first;
      out.push_back(A::decide(p, it->second, now, e.cost).allowed);
    }
    return out;
  }

  // Live and shadow decisions of the trace against the core's; the counts against both.
  template <class Live, class Shadow>
  void expect_equal(const std::string& rule, const LimitParams& live, const LimitParams& shadow,
                    std::uint64_t seed, std::size_t per_call) {
    testing::put(*conn_, KeySchema{}, rule, single_limit(live));
    auto s = set_shadow(*conn_, KeySchema{}, rule, single_limit(shadow), kChange);
    ASSERT_TRUE(s) << s.error().message;
    const auto events = make_trace(seed, 6000, 6, 300'000);
    const auto got = run(rule, events, per_call);
    const auto want_live = core<Live>(live, events);
    const auto want_shadow = core<Shadow>(shadow, events);
    ShadowCounts want;
    for (std::size_t i = 0; i < events.size(); ++i) {
      ASSERT_EQ(got[i].decision.allowed, want_live[i]) << "live, event " << i;
      ASSERT_TRUE(got[i].shadow_allowed.has_value()) << "event " << i;
      ASSERT_EQ(*got[i].shadow_allowed, want_shadow[i]) << "shadow, event " << i;
      (want_shadow[i] ? want.allowed : want.rejected)++;
      if (want_live[i] && !want_shadow[i]) ++want.would_reject;
      if (!want_live[i] && want_shadow[i]) ++want.would_admit;
    }
    // Both sides of both decisions, and disagreements both ways, were exercised.
    EXPECT_GT(want.rejected, events.size() / 20);
    EXPECT_GT(want.allowed, events.size() / 20);
    EXPECT_GT(want.would_reject, 0);
    auto st = get_shadow(*conn_, KeySchema{}, rule);
    ASSERT_TRUE(st) << st.error().message;
    EXPECT_EQ(st->counts.allowed, want.allowed);
    EXPECT_EQ(st->counts.rejected, want.rejected);
    EXPECT_EQ(st->counts.would_reject, want.would_reject);
    EXPECT_EQ(st->counts.would_admit, want.would_admit);
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<Connection> conn_;
};

TEST_P(ShadowEval, AStricterTokenBucketEqualsTheCoreOnTheSameArrivals) {
  expect_equal<TokenBucket, TokenBucket>("tb", bucket(Algorithm::token_bucket, 12, 5, 1s),
                                         bucket(Algorithm::token_bucket, 4, 2, 1s), 7, 1);
}

TEST_P(ShadowEval, ABatchWithRepeatedKeysEqualsTheCore) {
  // 16 per call over 6 keys: a call decides a key several times and must see its own writes.
  expect_equal<Gcra, TokenBucket>("batch", bucket(Algorithm::gcra, 6, 3, 1s),
                                  bucket(Algorithm::token_bucket, 3, 1, 1s), 8, 16);
}

TEST_P(ShadowEval, AnotherAlgorithmKeepsItsOwnStateKeys) {
  // The shadow's sliding log lives in "<prefix>{R}:sh:<key>", a sorted set beside the live
  // token-bucket strings, so neither reads the other's state.
  expect_equal<TokenBucket, SlidingLog>("alg", bucket(Algorithm::token_bucket, 8, 4, 1s),
                                        test::window(Algorithm::sliding_log, 5, 2s), 9, 16);
  const KeySchema schema;
  EXPECT_EQ(testing::must(*conn_, {"TYPE", schema.shadow_state_key("alg", "k0")}).str, "zset");
  EXPECT_EQ(testing::must(*conn_, {"TYPE", schema.state_key("alg", "k0")}).str, "string");
}

TEST_P(ShadowEval, SetAndClearTakeEffectAtTheNextDecision) {
  const KeySchema schema;
  testing::put(*conn_, schema, "r", single_limit(bucket(Algorithm::token_bucket, 100, 1, 1s)));
  const std::vector<Event> one{{kEpochUs, 0, 2}};
  // No shadow: 9 fields, no outcome, no counts (the kept config is now cached).
  EXPECT_FALSE(run("r", one, 1).front().shadow_allowed.has_value());
  ASSERT_TRUE(set_shadow(*conn_, schema, "r",
                         single_limit(bucket(Algorithm::token_bucket, 1, 1, 1s)), kChange));
  const auto d = run("r", one, 1).front();
  EXPECT_TRUE(d.decision.allowed);
  ASSERT_TRUE(d.shadow_allowed.has_value()) << "set must reach a config the function library kept";
  EXPECT_FALSE(*d.shadow_allowed) << "cost 2 is above the shadow's capacity 1";
  auto st = get_shadow(*conn_, schema, "r");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->counts.rejected, 1);
  EXPECT_EQ(st->counts.would_reject, 1);
  // A new shadow starts its counts again.
  ASSERT_TRUE(set_shadow(*conn_, schema, "r",
                         single_limit(bucket(Algorithm::token_bucket, 10, 1, 1s)), kChange));
  EXPECT_EQ(get_shadow(*conn_, schema, "r")->counts.evaluated(), 0);
  EXPECT_EQ(run("r", one, 1).front().shadow_allowed, std::optional<bool>(true));
  EXPECT_EQ(get_shadow(*conn_, schema, "r")->counts.allowed, 1);
  // A change of the live config keeps the shadow evaluated (its stamp keeps the shadow's mark).
  testing::put(*conn_, schema, "r", single_limit(bucket(Algorithm::token_bucket, 50, 1, 1s)));
  const auto after = run("r", one, 1).front();
  EXPECT_EQ(after.decision.limit, 50);
  EXPECT_EQ(after.shadow_allowed, std::optional<bool>(true));
  ASSERT_TRUE(clear_shadow(*conn_, schema, "r", kChange));
  EXPECT_FALSE(run("r", one, 1).front().shadow_allowed.has_value());
  EXPECT_EQ(testing::must(*conn_, {"EXISTS", schema.shadow_counts_key("r")}).integer, 0);
}

TEST_P(ShadowEval, ARuleWithoutAStampReadsItsShadowAndKeepsItWhenItGetsOne) {
  // A rule configured before issue 18 has no stamp: its config and shadow are read at every
  // decision; its next config change writes the first stamp, with the shadow's mark.
  const KeySchema schema;
  testing::put(*conn_, schema, "old", single_limit(bucket(Algorithm::token_bucket, 100, 1, 1s)));
  ASSERT_TRUE(set_shadow(*conn_, schema, "old",
                         single_limit(bucket(Algorithm::token_bucket, 1, 1, 1min)), kChange));
  testing::must(*conn_, {"DEL", schema.config_stamp_key("old")});
  const std::vector<Event> one{{kEpochUs, 0, 1}};
  EXPECT_EQ(run("old", one, 1).front().shadow_allowed, std::optional<bool>(true));
  testing::put(*conn_, schema, "old", single_limit(bucket(Algorithm::token_bucket, 90, 1, 1s)));
  const std::string stamp = testing::must(*conn_, {"GET", schema.config_stamp_key("old")}).str;
  EXPECT_NE(stamp.find(" s1"), std::string::npos) << stamp;
  EXPECT_EQ(run("old", one, 1).front().shadow_allowed, std::optional<bool>(false));
}

TEST_P(ShadowEval, ARefusalIsLoggedWithTheShadowBesideTheRealOutcome) {
  const KeySchema schema;
  testing::put(*conn_, schema, "log", single_limit(bucket(Algorithm::token_bucket, 100, 1, 1s)));
  ASSERT_TRUE(set_shadow(*conn_, schema, "log",
                         single_limit(bucket(Algorithm::token_bucket, 2, 1, 1min)), kChange));
  run("log", {{kEpochUs, 0, 1}, {kEpochUs, 0, 1}, {kEpochUs, 0, 1}}, 16, true);
  const Value entries = testing::must(*conn_, {"XRANGE", schema.decisions_key("log"), "-", "+"});
  ASSERT_EQ(entries.elements.size(), 3u);
  std::vector<std::string> shadow, allowed;
  for (const Value& e : entries.elements) {
    const auto& kv = e.elements[1].elements;
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) {
      if (kv[i].str == "shadow") shadow.push_back(kv[i + 1].str);
      if (kv[i].str == "allowed") allowed.push_back(kv[i + 1].str);
    }
  }
  EXPECT_EQ(allowed, (std::vector<std::string>{"1", "1", "1"}));
  EXPECT_EQ(shadow, (std::vector<std::string>{"1", "1", "0"}));
}

TEST_P(ShadowEval, ACompositeRuleGivesASingleShadowItsFirstCostAndANamedOneItsOwn) {
  const KeySchema schema;
  RuleConfig live;
  live.limits = {{"requests", bucket(Algorithm::token_bucket, 100, 1, 1s)},
                 {"llm_tokens", bucket(Algorithm::token_bucket, 100000, 1000, 1s)}};
  testing::put(*conn_, schema, "gw", live);
  DecideRequest r;
  r.key = "k";
  r.costs = {1, 500};
  r.now_us = kEpochUs;
  // A single limit of capacity 2 takes the requests cost (1): admits twice, then refuses.
  ASSERT_TRUE(set_shadow(*conn_, schema, "gw",
                         single_limit(bucket(Algorithm::token_bucket, 2, 1, 1min)), kChange));
  std::vector<std::optional<bool>> got;
  for (int i = 0; i < 3; ++i) got.push_back(RedisLimiter().decide(*conn_, "gw", r)->shadow_allowed);
  EXPECT_EQ(got, (std::vector<std::optional<bool>>{true, true, false}));
  // A composite shadow whose llm_tokens holds 1,200: the second 500 fits, the third does not.
  RuleConfig shadow;
  shadow.limits = {{"llm_tokens", bucket(Algorithm::token_bucket, 1200, 1, 1min)},
                   {"requests", bucket(Algorithm::token_bucket, 100, 1, 1s)}};
  ASSERT_TRUE(set_shadow(*conn_, schema, "gw", shadow, kChange));
  got.clear();
  for (int i = 0; i < 3; ++i) got.push_back(RedisLimiter().decide(*conn_, "gw", r)->shadow_allowed);
  EXPECT_EQ(got, (std::vector<std::optional<bool>>{true, true, false}));
}

TEST_P(ShadowEval, AShadowEditedIntoNonsenseIsNotEvaluatedAndTheRuleDecidesAsUsual) {
  const KeySchema schema;
  testing::put(*conn_, schema, "bad", single_limit(bucket(Algorithm::token_bucket, 5, 1, 1s)));
  ASSERT_TRUE(set_shadow(*conn_, schema, "bad",
                         single_limit(bucket(Algorithm::token_bucket, 1, 1, 1s)), kChange));
  testing::must(*conn_, {"HSET", schema.shadow_key("bad"), "capacity", "-3"});
  testing::must(*conn_,
                {"SET", schema.config_stamp_key("bad"), "edited s99"});  // still marks a shadow
  const auto d = run("bad", {{kEpochUs, 0, 1}}, 1).front();
  EXPECT_TRUE(d.decision.allowed);
  EXPECT_FALSE(d.shadow_allowed.has_value());
}

INSTANTIATE_TEST_SUITE_P(Paths, ShadowEval,
                         ::testing::Values(ScriptMode::unknown, ScriptMode::scripts),
                         [](const ::testing::TestParamInfo<ScriptMode>& i) {
                           return i.param == ScriptMode::scripts ? "Evalsha" : "Functions";
                         });

}  // namespace
}  // namespace limitscope::redis
