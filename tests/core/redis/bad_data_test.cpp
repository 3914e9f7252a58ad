// Verifies decide.lua on bad data: a state key of the wrong type, unreadable or infinite
// fields, timestamps far in the future are replaced by the most restrictive state (a documented
// reset, reported as state_reset, never an admit); a missing or invalid config is a clear error.
#include <gtest/gtest.h>

#include <cmath>

#include "core/redis/redis_limiter.h"
#include "core/redis/state_codec.h"
#include "limiter_test_support.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kNowUs = 1'700'000'000'000'000;  // a multiple of every window here
constexpr std::int64_t kFutureUs = kNowUs + 3'153'600'000'000'000;  // 100 years on
const std::string kNow = std::to_string(kNowUs);
const std::string kFuture = std::to_string(kFutureUs);

LimitParams params(Algorithm a) {
  LimitParams p;
  p.algorithm = a;
  p.capacity = 10;
  p.refill = Rate{10, 1s};
  p.limit = 10;
  p.window = 1s;
  return p;
}

struct Corruption {
  Algorithm algorithm;
  std::string what;
  std::vector<std::string> command;  // "KEY" stands for the state key
  bool legacy = false;  // a rule configured before issue 18 (no stamp): old hash states are read
};

std::string tb_state(double tokens, double ts_us, double exp_ms = 0) {
  return encode_token_bucket_state({tokens, ts_us, exp_ms});
}

// The 16-byte format before the state carried its TTL's end (still read).
std::string tb_state_v1(double tokens, double ts_us) {
  return encode_token_bucket_state_v1({tokens, ts_us});
}

const Corruption kCorruptions[] = {
    {Algorithm::token_bucket, "not 24 or 16 bytes", {"SET", "KEY", "x"}},
    {Algorithm::token_bucket, "20 bytes", {"SET", "KEY", tb_state(10, kNowUs).substr(0, 20)}},
    {Algorithm::token_bucket, "tokens nan", {"SET", "KEY", tb_state(std::nan(""), kNowUs)}},
    {Algorithm::token_bucket, "tokens inf", {"SET", "KEY", tb_state(INFINITY, kNowUs)}},
    // A level below zero is a debt settlement left, down to one hour of refill; deeper is corrupt.
    {Algorithm::token_bucket,
     "tokens below the debt bound",
     {"SET", "KEY", tb_state(-1e300, kNowUs)}},
    {Algorithm::token_bucket, "ts far ahead", {"SET", "KEY", tb_state(10, kFutureUs)}},
    {Algorithm::token_bucket, "ts fractional", {"SET", "KEY", tb_state(10, kNowUs + 0.5)}},
    {Algorithm::token_bucket, "ts negative", {"SET", "KEY", tb_state(10, -1)}},
    {Algorithm::token_bucket, "exp nan", {"SET", "KEY", tb_state(10, kNowUs, std::nan(""))}},
    {Algorithm::token_bucket, "exp inf", {"SET", "KEY", tb_state(10, kNowUs, INFINITY)}},
    {Algorithm::token_bucket, "exp negative", {"SET", "KEY", tb_state(10, kNowUs, -1)}},
    {Algorithm::token_bucket, "exp fractional", {"SET", "KEY", tb_state(10, kNowUs, 1.5)}},
    // The 16-byte format of before the state carried its TTL's end, read as such.
    {Algorithm::token_bucket,
     "16 bytes: tokens nan",
     {"SET", "KEY", tb_state_v1(std::nan(""), kNowUs)}},
    {Algorithm::token_bucket, "16 bytes: ts far ahead", {"SET", "KEY", tb_state_v1(10, kFutureUs)}},
    // The old hash form, read while a rule may still hold one.
    {Algorithm::token_bucket, "old hash: wrong type", {"SADD", "KEY", "x"}, true},
    {Algorithm::token_bucket,
     "old hash: tokens abc",
     {"HSET", "KEY", "tokens", "abc", "ts", kNow},
     true},
    {Algorithm::token_bucket,
     "old hash: tokens inf",
     {"HSET", "KEY", "tokens", "inf", "ts", kNow},
     true},
    {Algorithm::token_bucket,
     "old hash: tokens below the debt bound",
     {"HSET", "KEY", "tokens", "-1e300", "ts", kNow},
     true},
    {Algorithm::token_bucket,
     "old hash: ts far ahead",
     {"HSET", "KEY", "tokens", "10", "ts", kFuture},
     true},
    {Algorithm::token_bucket, "old hash: ts missing", {"HSET", "KEY", "tokens", "10"}, true},
    {Algorithm::gcra, "tat abc", {"SET", "KEY", "abc"}},
    {Algorithm::gcra, "tat far ahead", {"SET", "KEY", kFuture + "000"}},
    {Algorithm::gcra, "tat too long", {"SET", "KEY", "99999999999999999999999"}},
    {Algorithm::sliding_log, "wrong type", {"SET", "KEY", "x"}},
    {Algorithm::sliding_log, "junk member", {"ZADD", "KEY", "5", "junk"}},
    {Algorithm::sliding_log, "sum abc", {"ZADD", "KEY", "-inf", "u:abc", kNow, kNow + ":1"}},
    {Algorithm::sliding_log,
     "entry far ahead",
     {"ZADD", "KEY", "-inf", "u:1", kFuture, kFuture + ":1"}},
    {Algorithm::sliding_log, "entries without sum", {"ZADD", "KEY", kNow, kNow + ":1"}},
    {Algorithm::sliding_counter, "wrong type", {"LPUSH", "KEY", "x"}},
    {Algorithm::sliding_counter,
     "ws abc",
     {"HSET", "KEY", "ws", "abc", "prev", "0", "curr", "0", "w", "1000000"}},
    {Algorithm::sliding_counter,
     "curr nan",
     {"HSET", "KEY", "ws", kNow, "prev", "0", "curr", "nan", "w", "1000000"}},
    {Algorithm::sliding_counter,
     "ws far ahead",
     {"HSET", "KEY", "ws", kFuture, "prev", "0", "curr", "0", "w", "1000000"}},
    {Algorithm::fixed_window, "wrong type", {"SADD", "KEY", "x"}},
    {Algorithm::fixed_window,
     "count abc",
     {"HSET", "KEY", "ws", kNow, "count", "abc", "w", "1000000"}},
    {Algorithm::fixed_window,
     "count -inf",
     {"HSET", "KEY", "ws", kNow, "count", "-inf", "w", "1000000"}},
    {Algorithm::fixed_window,
     "ws far ahead",
     {"HSET", "KEY", "ws", kFuture, "count", "0", "w", "1000000"}},
};

class BadData : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = RedisServer::start();
    conn_ = std::make_unique<Connection>(connect(*server_));
  }
  Result<RedisDecision> decide_at(const std::string& rule, std::int64_t now_us, double cost = 1) {
    DecideOptions o;
    o.now_us = now_us;
    return limiter_.decide(*conn_, rule, "k", cost, o);
  }
  void corrupt(const std::string& rule, const Corruption& c) {
    const std::string key = limiter_.schema().state_key(rule, "k");
    if (c.legacy) must(*conn_, {"DEL", limiter_.schema().config_stamp_key(rule)});
    must(*conn_, {"DEL", key});
    std::vector<std::string> cmd = c.command;
    for (auto& a : cmd) {
      if (a == "KEY") a = key;
    }
    must(*conn_, cmd);
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<Connection> conn_;
  RedisLimiter limiter_;
};

TEST_F(BadData, CorruptStateIsResetToTheMostRestrictiveStateAndHeals) {
  for (const Corruption& c : kCorruptions) {
    const std::string rule(to_string(c.algorithm));
    put(*conn_, limiter_.schema(), rule, single_limit(params(c.algorithm)));
    corrupt(rule, c);
    auto d = decide_at(rule, kNowUs);
    ASSERT_TRUE(d.ok()) << rule << " " << c.what << ": " << d.error().message;
    EXPECT_FALSE(d->decision.allowed) << rule << " " << c.what;
    EXPECT_TRUE(d->state_reset) << rule << " " << c.what;
    EXPECT_EQ(d->decision.reason, DenyReason::exhausted) << rule << " " << c.what;
    EXPECT_EQ(d->decision.remaining, 0) << rule << " " << c.what;
    ASSERT_TRUE(d->decision.retry_after.has_value());
    EXPECT_GT(d->decision.retry_after->count(), 0);
    // The reset state is stored: the key now holds a valid state and recovers with time.
    auto later = decide_at(rule, kNowUs + 2'500'000);
    ASSERT_TRUE(later.ok()) << later.error().message;
    EXPECT_TRUE(later->decision.allowed) << rule << " " << c.what;
    EXPECT_FALSE(later->state_reset) << rule << " " << c.what;
    const Value ttl = must(*conn_, {"PTTL", limiter_.schema().state_key(rule, "k")});
    EXPECT_GT(ttl.integer, 0) << rule << " " << c.what;
  }
}

TEST_F(BadData, CorruptionOverAndOverNeverAdmits) {
  // Whatever keeps writing garbage into a state key, the limiter admits nothing meanwhile.
  for (const Corruption& c : kCorruptions) {
    const std::string rule(to_string(c.algorithm));
    put(*conn_, limiter_.schema(), rule, single_limit(params(c.algorithm)));
    int admitted = 0;
    for (int i = 0; i < 20; ++i) {
      corrupt(rule, c);
      auto d = decide_at(rule, kNowUs + i * 100'000);  // 100 ms apart: a bucket would refill
      ASSERT_TRUE(d.ok()) << d.error().message;
      admitted += d->decision.allowed ? 1 : 0;
    }
    EXPECT_EQ(admitted, 0) << rule << " " << c.what;
  }
}

TEST_F(BadData, AStringStateKeyOfAnotherTypeIsAMissingStateAndIsReplaced) {
  // Token-bucket and GCRA states are read with one MGET, which answers nil for a key of another
  // type: such a key is a missing state (a fresh bucket), as if it had been deleted, which
  // whoever wrote it could do as well. The admission replaces it with a valid state.
  for (Algorithm a : {Algorithm::token_bucket, Algorithm::gcra}) {
    const std::string rule(to_string(a));
    put(*conn_, limiter_.schema(), rule, single_limit(params(a)));
    const std::string key = limiter_.schema().state_key(rule, "k");
    must(*conn_, {"DEL", key});
    must(*conn_, {"RPUSH", key, "x"});
    auto d = decide_at(rule, kNowUs);
    ASSERT_TRUE(d.ok()) << rule << ": " << d.error().message;
    EXPECT_TRUE(d->decision.allowed) << rule;
    EXPECT_EQ(d->decision.remaining, 9) << rule;
    EXPECT_FALSE(d->state_reset) << rule;
    EXPECT_EQ(must(*conn_, {"TYPE", key}).str, "string") << rule;
    EXPECT_GT(must(*conn_, {"PTTL", key}).integer, 0) << rule;
  }
}

TEST_F(BadData, InvalidConfigIsAClearErrorAndTouchesNoState) {
  const std::string cfg = limiter_.schema().config_key("r");
  const struct {
    std::vector<std::string> fields;
    std::string error_has;
  } rows[] = {
      {{"algorithm", "token-bucket", "capacity", "-5", "refill_amount", "1", "refill_period_ns",
        "1000000000", "version", "1"},
       "capacity must be a finite number > 0, got '-5'"},
      {{"algorithm", "token-bucket", "capacity", "abc", "refill_amount", "1", "refill_period_ns",
        "1000000000", "version", "1"},
       "capacity must be a finite number > 0, got 'abc'"},
      {{"algorithm", "gcra", "capacity", "5", "refill_amount", "1", "refill_period_ns", "1.5",
        "version", "1"},
       "refill_period_ns must be an integer"},
      {{"algorithm", "leaky-bucket", "capacity", "5", "version", "1"}, "algorithm must be one of"},
      {{"algorithm", "fixed-window", "limit", "inf", "window_ns", "1000000000", "version", "1"},
       "limit must be a finite number > 0, got 'inf'"},
      {{"algorithm", "sliding-log", "limit", "5", "window_ns", "1000", "version", "1"},
       "at least 1ms"},
      {{"algorithm", "token-bucket", "capacity", "5", "refill_amount", "1", "refill_period_ns",
        "1000000000"},
       "version must be an integer"},
      {{"algorithm",
        "composite",
        "limits",
        "a,b",
        "a.algorithm",
        "gcra",
        "a.capacity",
        "5",
        "a.refill_amount",
        "1",
        "a.refill_period_ns",
        "1000000000",
        "b.algorithm",
        "fixed-window",
        "b.limit",
        "-1",
        "b.window_ns",
        "1000000000",
        "version",
        "1"},
       "limit b: limit must be a finite number > 0, got '-1'"},
      {{"algorithm", "composite", "limits", "", "version", "1"}, "needs limits"},
  };
  for (const auto& row : rows) {
    must(*conn_, {"DEL", cfg});
    std::vector<std::string> cmd{"HSET", cfg};
    cmd.insert(cmd.end(), row.fields.begin(), row.fields.end());
    must(*conn_, cmd);
    auto d = decide_at("r", kNowUs);
    ASSERT_FALSE(d.ok()) << row.error_has;
    EXPECT_EQ(d.error().kind, ErrorKind::reply);
    EXPECT_NE(d.error().message.find(row.error_has), std::string::npos) << d.error().message;
    EXPECT_NE(d.error().message.find(cfg), std::string::npos) << d.error().message;
  }
  must(*conn_, {"DEL", cfg});
  auto missing = decide_at("r", kNowUs);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no config at " + cfg), std::string::npos);
  must(*conn_, {"SET", cfg, "x"});
  auto wrong = decide_at("r", kNowUs);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("is not a hash"), std::string::npos)
      << wrong.error().message;
  EXPECT_EQ(must(*conn_, {"EXISTS", limiter_.schema().state_key("r", "k")}).integer, 0);
}

TEST_F(BadData, BadArgumentsAreRefused) {
  put(*conn_, limiter_.schema(), "r", single_limit(params(Algorithm::gcra)));
  auto bad_rule = limiter_.decide(*conn_, "a{b}", "k");
  ASSERT_FALSE(bad_rule.ok());
  EXPECT_EQ(bad_rule.error().kind, ErrorKind::usage);
  DecideRequest two;
  two.key = "k";
  two.costs = {1, 2};  // two costs for a one-limit rule
  auto bad_costs = limiter_.decide(*conn_, "r", two);
  ASSERT_FALSE(bad_costs.ok());
  EXPECT_NE(bad_costs.error().message.find("LSARG"), std::string::npos)
      << bad_costs.error().message;
  // Invalid costs are refusals like core/limiter's, not errors.
  auto nan = decide_at("r", kNowUs, std::nan(""));
  ASSERT_TRUE(nan.ok()) << nan.error().message;
  EXPECT_EQ(nan->decision.reason, DenyReason::invalid_cost);
  EXPECT_FALSE(nan->decision.retry_after.has_value());
  auto none = limiter_.decide_batch(*conn_, "r", {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto zero = limiter_.decide_batch(*conn_, "r", {two}, 0);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().kind, ErrorKind::usage);
  auto huge = decide_at("r", kNowUs, 11);
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ(huge->decision.reason, DenyReason::cost_above_capacity);
  EXPECT_FALSE(huge->decision.retry_after.has_value());
}

}  // namespace
}  // namespace limitscope::redis
