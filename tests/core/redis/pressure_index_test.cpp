// Verifies the pressure index decide.lua keeps ("<prefix>{R}:pressure") on a real redis-server:
// a decision that leaves a key below a tenth of its capacity (limit) puts it in, for every
// algorithm, scored at or after the instant it is full again (within a second); a key left
// above stays out; a rejection writes nothing; keys full again leave it when another key comes
// in; a key drained at the refill rate keeps a score at or after its full-again instant while
// the entry is rewritten about once per second of debt (counted with INFO commandstats); a
// composite rule lists its limited key once; the set stays bounded at 10,000 keys.
#include <gtest/gtest.h>

#include <cmath>

#include "core/redis/redis_limiter.h"
#include "core/redis/server_info.h"
#include "limiter_test_support.h"
#include "support/limit_params_builders.h"

namespace limitscope::redis {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000'000;  // µs, a whole second

DecideOptions at(std::int64_t t_us) {
  DecideOptions o;
  o.now_us = t_us;
  o.ttl_pad_ms = 3'600'000;  // test-mode instants: keep keys while the test runs
  return o;
}

// The key's score in the rule's index, or nullopt when it is not there.
std::optional<double> score(Connection& c, const KeySchema& schema, const std::string& rule,
                            const std::string& key) {
  const Value v = must(c, {"ZSCORE", schema.pressure_key(rule), key});
  if (v.is_nil()) return std::nullopt;
  return std::stod(v.str);
}

long long zadd_calls(Connection& c) {
  auto info = parse_server_info(must(c, {"INFO", "commandstats"}).str);
  if (!info) throw std::runtime_error(info.error());
  auto it = info->commands.find("zadd");
  return it == info->commands.end() ? 0 : static_cast<long long>(it->second.calls);
}

class PressureIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = test::RedisServer::start();
    c_.emplace(connect(*server_));
  }
  Connection& c() { return *c_; }

  std::unique_ptr<test::RedisServer> server_;
  std::optional<Connection> c_;
  const RedisLimiter limiter_;
};

struct Case {
  const char* name;
  LimitParams params;  // capacity / limit 100
};

TEST_F(PressureIndex, ADrainedKeyIsListedUntilFullAgainForEveryAlgorithm) {
  Connection& c = this->c();
  const RedisLimiter& limiter = limiter_;
  const std::vector<Case> cases{
      {"tb", test::bucket(Algorithm::token_bucket, 100, 10)},
      {"gcra", test::bucket(Algorithm::gcra, 100, 10)},
      {"log", test::window(Algorithm::sliding_log, 100, std::chrono::seconds(30))},
      {"counter", test::window(Algorithm::sliding_counter, 100, std::chrono::seconds(30))},
      {"fixed", test::window(Algorithm::fixed_window, 100, std::chrono::seconds(30))},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.name);
    put(c, limiter.schema(), k.name, single_limit(k.params));
    // 89 left: above the threshold (10), not listed.
    auto calm = limiter.decide(c, k.name, "calm", 11, at(kT0 + 250'000));
    ASSERT_TRUE(calm && calm->decision.allowed);
    EXPECT_FALSE(score(c, limiter.schema(), k.name, "calm"));
    // 5 left: listed, at or after the instant it is full again, within a second.
    auto hot = limiter.decide(c, k.name, "hot", 95, at(kT0 + 250'000));
    ASSERT_TRUE(hot && hot->decision.allowed);
    const double full_us = static_cast<double>(kT0 + 250'000) +
                           static_cast<double>(hot->decision.reset_after.count()) / 1000;
    const auto s = score(c, limiter.schema(), k.name, "hot");
    ASSERT_TRUE(s);
    EXPECT_GE(*s, full_us);
    EXPECT_LE(*s, full_us + 1e6);
    EXPECT_EQ(std::fmod(*s, 1e6), 0);  // whole seconds
    // A rejection writes nothing, the index included.
    auto refused = limiter.decide(c, k.name, "calm", 95, at(kT0 + 300'000));
    ASSERT_TRUE(refused && !refused->decision.allowed);
    EXPECT_FALSE(score(c, limiter.schema(), k.name, "calm"));
  }
}

TEST_F(PressureIndex, KeysFullAgainLeaveWhenAnotherComesIn) {
  Connection& c = this->c();
  const RedisLimiter& limiter = limiter_;
  put(c, limiter.schema(), "r", single_limit(test::bucket(Algorithm::token_bucket, 100, 10)));
  ASSERT_TRUE(limiter.decide(c, "r", "a", 95, at(kT0)));  // full again at kT0 + 9.5 s
  ASSERT_TRUE(score(c, limiter.schema(), "r", "a"));
  ASSERT_TRUE(limiter.decide(c, "r", "b", 95, at(kT0 + 9'000'000)));  // a still under pressure
  EXPECT_TRUE(score(c, limiter.schema(), "r", "a"));
  ASSERT_TRUE(limiter.decide(c, "r", "c", 95, at(kT0 + 11'000'000)));  // a is full by now
  EXPECT_FALSE(score(c, limiter.schema(), "r", "a"));
  EXPECT_TRUE(score(c, limiter.schema(), "r", "b"));
  EXPECT_TRUE(score(c, limiter.schema(), "r", "c"));
}

TEST_F(PressureIndex, AKeyDrainedAtTheRefillRateIsRewrittenAboutOnceASecond) {
  Connection& c = this->c();
  const RedisLimiter& limiter = limiter_;
  put(c, limiter.schema(), "r", single_limit(test::bucket(Algorithm::token_bucket, 100, 10)));
  ASSERT_TRUE(limiter.decide(c, "r", "hot", 95, at(kT0)));
  const long long before = zadd_calls(c);
  // 200 admissions of one token, one every 100 ms (the refill rate): the level stays at 5 and
  // the full-again instant moves 20 s.
  for (int i = 1; i <= 200; ++i) {
    const std::int64_t t = kT0 + i * 100'000;
    auto d = limiter.decide(c, "r", "hot", 1, at(t));
    ASSERT_TRUE(d && d->decision.allowed) << i;
    const auto s = score(c, limiter.schema(), "r", "hot");
    ASSERT_TRUE(s) << i;
    EXPECT_GE(*s,
              static_cast<double>(t) + static_cast<double>(d->decision.reset_after.count()) / 1000)
        << i;
  }
  const long long rewrites = zadd_calls(c) - before;
  EXPECT_GE(rewrites, 19);
  EXPECT_LE(rewrites, 21);
}

TEST_F(PressureIndex, ACompositeListsItsKeyOnceAtTheLatestInstant) {
  Connection& c = this->c();
  const RedisLimiter& limiter = limiter_;
  RuleConfig rc;
  rc.limits.push_back(NamedLimit{"rpm", test::bucket(Algorithm::token_bucket, 100, 10)});
  rc.limits.push_back(NamedLimit{"tpm", test::bucket(Algorithm::token_bucket, 1000, 1)});
  put(c, limiter.schema(), "gw", rc);
  DecideRequest r;
  r.key = "alice";
  r.costs = {95, 950};
  auto d = limiter.decide(c, "gw", r, at(kT0));
  ASSERT_TRUE(d && d->decision.allowed);
  EXPECT_EQ(must(c, {"ZCARD", limiter.schema().pressure_key("gw")}).integer, 1);
  const auto s = score(c, limiter.schema(), "gw", "alice");
  ASSERT_TRUE(s);
  EXPECT_GE(*s, static_cast<double>(kT0) + 950e6);  // tpm: 950 tokens at 1/s
}

TEST_F(PressureIndex, StaysBoundedKeepingTheLatest) {
  Connection& c = this->c();
  const RedisLimiter& limiter = limiter_;
  put(c, limiter.schema(), "r",
      single_limit(test::bucket(Algorithm::token_bucket, 100, 1, std::chrono::minutes(1))));
  constexpr int kKeys = 10'050;
  std::vector<DecideRequest> requests;
  for (int i = 0; i < kKeys; ++i) {
    DecideRequest q;
    q.key = "k" + std::to_string(i);
    q.costs = {95};
    q.now_us = kT0 + static_cast<std::int64_t>(i) * 10'000;  // 10 ms apart: 100 s in all
    requests.push_back(std::move(q));
  }
  auto done = limiter.decide_batch(c, "r", requests, 16, at(kT0));
  ASSERT_TRUE(done);
  for (const auto& d : *done) ASSERT_TRUE(d && d->decision.allowed);
  EXPECT_EQ(must(c, {"ZCARD", limiter.schema().pressure_key("r")}).integer, 10'000);
  EXPECT_FALSE(score(c, limiter.schema(), "r", "k0"));  // the earliest full-again went first
  EXPECT_TRUE(score(c, limiter.schema(), "r", "k" + std::to_string(kKeys - 1)));
}

}  // namespace
}  // namespace limitscope::redis
