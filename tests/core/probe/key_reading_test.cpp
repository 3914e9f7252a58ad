// Verifies evaluate() on exact replies: levels projected at the server's time for each kind
// (including float strings as gateways write them), windows that are over, and bad data
// (wrong types, garbage fields, times ahead of the server) reported per key.
#include "core/probe/key_reading.h"

#include <gtest/gtest.h>

namespace limitscope::probe {
namespace {

using redis::Value;

LimiterProfile profile_of(const char* json) {
  auto p = parse_profiles(std::string(R"({"profiles": [)") + json + "]}");
  EXPECT_TRUE(p.ok()) << p.error();
  return p->front();
}

// evaluate() over replies held in a vector (the probe passes spans of its pipeline reply).
KeyReading read(const LimiterProfile& p, const std::string& key, const std::vector<Value>& replies,
                std::int64_t now_us) {
  return evaluate(p, key, replies, now_us);
}

const std::int64_t kNowUs = 1'700'000'000'000'000;  // server TIME, µs

Value hash_pair(const char* a, const char* b) {
  return Value::of_array(
      {a ? Value::of_string(a) : Value::nil(), b ? Value::of_string(b) : Value::nil()});
}

TEST(KeyReading, TokenBucketHashProjectsTheRefillAtServerTime) {
  const auto p = profile_of(R"({"name": "gw", "match": "rl:*", "kind": "token_bucket_hash",
      "fields": {"tokens": "tokens", "updated": "ts"}, "time_unit": "ms", "capacity": 60, "refill": "1/s"})");
  // 0.17499999999999447 tokens 2.5 s ago: 2.67499999999999447 now.
  const auto r =
      read(p, "rl:a", {hash_pair("0.17499999999999447", "1699999997500"), Value::of_integer(57500)},
           kNowUs);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_DOUBLE_EQ(*r.level, 0.17499999999999447 + 2.5);
  EXPECT_DOUBLE_EQ(*r.fill, (0.17499999999999447 + 2.5) / 60);
  EXPECT_EQ(r.ttl_ms, 57500);
  // Long idle: capped at capacity.
  const auto full =
      read(p, "rl:a", {hash_pair("3", "1699999000000"), Value::of_integer(-1)}, kNowUs);
  EXPECT_EQ(full.level, 60);
  EXPECT_FALSE(full.ttl_ms.has_value());
}

TEST(KeyReading, TokenBucketInSecondsAndWithoutParameters) {
  const auto secs = profile_of(R"({"name": "tb", "match": "*", "kind": "token_bucket_hash",
      "fields": {"tokens": "tokens", "updated": "last_update"}, "time_unit": "s", "capacity": 10, "refill": "2/s"})");
  const auto r =
      read(secs, "k", {hash_pair("1.5", "1699999999.25"), Value::of_integer(100)}, kNowUs);
  EXPECT_DOUBLE_EQ(*r.level, 1.5 + 2 * 0.75);
  const auto bare = profile_of(R"({"name": "rl", "match": "*", "kind": "token_bucket_hash"})");
  const auto b = read(bare, "k", {hash_pair("7.25", "1"), Value::of_integer(100)}, kNowUs);
  EXPECT_EQ(b.level, 7.25);
  EXPECT_FALSE(b.capacity.has_value());
  EXPECT_FALSE(b.pressure().has_value());
}

TEST(KeyReading, SlidingWindowCountsTheWindowEndingNow) {
  const auto p = profile_of(R"({"name": "sw", "match": "*", "kind": "sliding_window_zset",
      "time_unit": "ms", "window": "60s", "limit": 100})");
  redis::CommandBatch cmds;
  ASSERT_EQ(read_commands(cmds, p, "rate_limit:a", kNowUs), 2u);
  ASSERT_EQ(cmds.size(), 2u);
  redis::CommandBatch expected;
  expected.add({"ZCOUNT", "rate_limit:a", "(1699999940000", "1700000000000"});
  EXPECT_EQ(cmds.command(0), expected.command(0));
  const auto r = read(p, "rate_limit:a", {Value::of_integer(37), Value::of_integer(59000)}, kNowUs);
  EXPECT_EQ(r.count, 37);
  EXPECT_DOUBLE_EQ(*r.occupancy, 0.37);
  EXPECT_DOUBLE_EQ(*r.pressure(), 0.37);
}

TEST(KeyReading, GcraTatLevel) {
  const auto p = profile_of(R"({"name": "cell", "match": "*", "kind": "gcra_tat",
      "time_unit": "ns", "capacity": 10, "refill": "5/s"})");
  // T = 200 ms; TAT 600 ms ahead: 3 emission intervals used, 7 left.
  const auto r =
      read(p, "k", {Value::of_string("1700000000600000000"), Value::of_integer(600)}, kNowUs);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_NEAR(*r.level, 7, 1e-9);
  // TAT in the past: full.
  const auto idle =
      read(p, "k", {Value::of_string("1690000000000000000"), Value::of_integer(-1)}, kNowUs);
  EXPECT_EQ(idle.level, 10);
}

TEST(KeyReading, CountersAndFixedWindows) {
  const auto flex =
      profile_of(R"({"name": "flex", "match": "rlflx:*", "kind": "counter_ttl", "limit": 50})");
  const auto f = read(flex, "rlflx:a", {Value::of_string("20"), Value::of_integer(4000)}, kNowUs);
  EXPECT_DOUBLE_EQ(*f.occupancy, 0.4);
  EXPECT_EQ(f.ttl_ms, 4000);

  const auto envoy = profile_of(R"({"name": "envoy", "match": "*", "kind": "fixed_window_counter",
      "time_unit": "s", "window": "60s", "limit": 10})");
  const auto live = read(envoy, "rl_domain_key_value_1699999980",
                         {Value::of_integer(8), Value::of_integer(40000)}, kNowUs);
  EXPECT_DOUBLE_EQ(*live.occupancy, 0.8);
  const auto over = read(envoy, "rl_domain_key_value_1699999920",
                         {Value::of_integer(8), Value::of_integer(100)}, kNowUs);
  EXPECT_EQ(over.occupancy, 0) << "a finished window limits nothing";
  const auto bad =
      read(envoy, "rl_domain_key_value", {Value::of_integer(8), Value::of_integer(100)}, kNowUs);
  EXPECT_NE(bad.error.find("_<window start>"), std::string::npos);
}

struct BadRow {
  const char* what;
  std::vector<Value> replies;
  const char* error;
};

TEST(KeyReading, BadDataIsReportedPerKey) {
  const auto p = profile_of(R"({"name": "gw", "match": "*", "kind": "token_bucket_hash",
      "time_unit": "ms", "capacity": 60, "refill": "1/s"})");
  const BadRow rows[] = {
      {"wrong type",
       {Value::of_error("WRONGTYPE Operation against a key holding the wrong kind of value"),
        Value::of_integer(-1)},
       "wrong type for profile gw"},
      {"garbage tokens",
       {hash_pair("abc", "1699999999997500"), Value::of_integer(-1)},
       "field tokens holds 'abc'"},
      {"garbage time",
       {hash_pair("1", "yesterday"), Value::of_integer(-1)},
       "field ts holds 'yesterday'"},
      {"future time",
       {hash_pair("1", "1700000100000"), Value::of_integer(-1)},
       "ahead of the server's time"},
      {"nan", {hash_pair("nan", "1700000000000"), Value::of_integer(-1)}, "not a number"},
  };
  for (const auto& row : rows) {
    const auto r = read(p, "k", row.replies, kNowUs);
    EXPECT_NE(r.error.find(row.error), std::string::npos) << row.what << ": " << r.error;
  }
  // A future time still gives a bounded level: never more than the capacity.
  const auto future =
      read(p, "k", {hash_pair("1e9", "1700000100000"), Value::of_integer(-1)}, kNowUs);
  EXPECT_LE(*future.level, 60);
}

}  // namespace
}  // namespace limitscope::probe
