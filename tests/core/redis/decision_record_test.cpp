// Verifies the parsing of decide.lua's decision records (docs/redis-schema.md, the reply): the
// byte layout common.lua's ls_record writes, read back exactly; a record that is short or has a
// field out of range is a protocol error naming the reply, never a decision; an error element
// is that decision's error. The scripts' records themselves are checked against the core by
// the equivalence tests (redis_limiter_test.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/redis/redis_limiter.h"

namespace limitscope::redis {
namespace {

void put_double(std::string& out, double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xffU));
}

struct Fields {
  int allowed = 0, reason = 1, reset = 0, shadow = 0;
  double remaining = 0.1 + 0.2, limit = 7.0 / 3.0, retry = 123456789,
         reset_after = 2305843009213693952.0;
  double version = 42;
  std::string name;
};

Value record(const Fields& f) {
  std::string s;
  for (int b : {f.allowed, f.reason, f.reset, f.shadow}) s.push_back(static_cast<char>(b));
  for (double d : {f.remaining, f.limit, f.retry, f.reset_after, f.version}) put_double(s, d);
  return Value::of_string(s + f.name);
}

TEST(DecisionRecord, ReadsEveryFieldExactly) {
  Fields f;
  f.name = "tpm";
  auto r = parse_decision_record(record(f));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->decision.allowed);
  EXPECT_EQ(r->decision.reason, DenyReason::exhausted);
  EXPECT_EQ(r->decision.remaining, 0.1 + 0.2);  // bit for bit, not 0.3
  EXPECT_EQ(r->decision.limit, 7.0 / 3.0);
  ASSERT_TRUE(r->decision.retry_after.has_value());
  EXPECT_EQ(r->decision.retry_after->count(), 123456789);
  EXPECT_EQ(r->decision.reset_after.count(), 2305843009213693952LL);
  EXPECT_EQ(r->config_version, 42);
  EXPECT_EQ(r->binding_limit, "tpm");
  EXPECT_FALSE(r->state_reset);
}

TEST(DecisionRecord, NeverRetryAndEachReasonCode) {
  const std::pair<int, DenyReason> codes[] = {{0, DenyReason::none},
                                              {1, DenyReason::exhausted},
                                              {3, DenyReason::cost_above_capacity},
                                              {4, DenyReason::invalid_cost}};
  for (auto [code, reason] : codes) {
    Fields f;
    f.reason = code;
    f.allowed = code == 0 ? 1 : 0;
    f.reset = 1;
    f.retry = -1;
    auto r = parse_decision_record(record(f));
    ASSERT_TRUE(r.ok()) << code << ": " << r.error().message;
    EXPECT_EQ(r->decision.reason, reason);
    EXPECT_EQ(r->decision.allowed, code == 0);
    EXPECT_FALSE(r->decision.retry_after.has_value()) << "-1 is never";
    EXPECT_TRUE(r->state_reset);
    EXPECT_EQ(r->binding_limit, "");
  }
}

// The lean token bucket's admission: remaining, limit, reset_after, version (32 bytes).
TEST(DecisionRecord, TheShortRecordIsAnAdmissionWithNothingElseToReport) {
  std::string s;
  for (double d : {0.1 + 0.2, 7.0 / 3.0, 2305843009213693952.0, 42.0}) put_double(s, d);
  auto r = parse_decision_record(Value::of_string(s));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->decision.allowed);
  EXPECT_EQ(r->decision.reason, DenyReason::none);
  EXPECT_EQ(r->decision.remaining, 0.1 + 0.2);
  EXPECT_EQ(r->decision.limit, 7.0 / 3.0);
  ASSERT_TRUE(r->decision.retry_after.has_value());
  EXPECT_EQ(r->decision.retry_after->count(), 0);
  EXPECT_EQ(r->decision.reset_after.count(), 2305843009213693952LL);
  EXPECT_EQ(r->config_version, 42);
  EXPECT_EQ(r->binding_limit, "");
  EXPECT_FALSE(r->state_reset);
  EXPECT_FALSE(r->shadow_allowed.has_value());
  // Its reset and version are checked as the long record's are.
  for (double bad_reset : {-1.0, 1.5, 4e18}) {
    std::string b;
    for (double d : {1.0, 2.0, bad_reset, 1.0}) put_double(b, d);
    EXPECT_FALSE(parse_decision_record(Value::of_string(b)).ok()) << bad_reset;
  }
  std::string b;
  for (double d : {1.0, 2.0, 3.0, -1.0}) put_double(b, d);
  EXPECT_FALSE(parse_decision_record(Value::of_string(b)).ok()) << "version -1";
}

TEST(DecisionRecord, AMalformedRecordIsAProtocolErrorNotADecision) {
  std::vector<std::pair<std::string, Value>> bad;
  const auto with = [&](std::string what, auto change) {
    Fields f;
    change(f);
    bad.emplace_back(std::move(what), record(f));
  };
  with("reason code 2", [](Fields& f) { f.reason = 2; });
  with("allowed 2", [](Fields& f) { f.allowed = 2; });
  with("state_reset 7", [](Fields& f) { f.reset = 7; });
  with("shadow 3", [](Fields& f) { f.shadow = 3; });
  with("retry -2", [](Fields& f) { f.retry = -2; });
  with("retry fractional", [](Fields& f) { f.retry = 1.5; });
  with("reset nan", [](Fields& f) { f.reset_after = std::nan(""); });
  with("reset beyond 2^61", [](Fields& f) { f.reset_after = 4e18; });
  with("version fractional", [](Fields& f) { f.version = 1.5; });
  with("version negative", [](Fields& f) { f.version = -1; });
  bad.emplace_back("43 bytes", Value::of_string(std::string(43, '\0')));
  bad.emplace_back("31 bytes", Value::of_string(std::string(31, '\0')));
  bad.emplace_back("33 bytes", Value::of_string(std::string(33, '\0')));
  bad.emplace_back("an integer", Value::of_integer(1));
  bad.emplace_back("nil", Value::nil());
  bad.emplace_back("the old 9-field array",
                   Value::of_array(std::vector<Value>(9, Value::of_integer(1))));
  for (const auto& [what, v] : bad) {
    auto r = parse_decision_record(v);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.error().kind, ErrorKind::protocol) << what;
    EXPECT_NE(r.error().message.find("decide.lua reply"), std::string::npos)
        << what << ": " << r.error().message;
  }
}

TEST(DecisionRecord, AnErrorElementIsThatDecisionsError) {
  auto r = parse_decision_record(Value::of_error("LSLOG decision log s: NOPERM no"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("LSLOG"), std::string::npos);
  // One without text (found by decision_record_fuzz) still says what was wrong.
  auto empty = parse_decision_record(Value::of_error(""));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().kind, ErrorKind::protocol);
  EXPECT_NE(empty.error().message.find("an error element without text"), std::string::npos);

  // A call's reply spreads over its decisions; a reply of the wrong length fails them all.
  std::vector<Result<RedisDecision>> out;
  collect_decisions(Value::of_array({record(Fields{}), Value::of_error("LSARG x")}), 2, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].ok());
  EXPECT_FALSE(out[1].ok());
  // A call of one decision replies with its record or error alone.
  out.clear();
  collect_decisions(record(Fields{}), 1, out);
  collect_decisions(Value::of_error("LSCONFIG c: no config"), 1, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].ok());
  EXPECT_FALSE(out[1].ok());
  out.clear();
  collect_decisions(Value::of_array({record(Fields{})}), 2, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(out[0].ok());
  EXPECT_FALSE(out[1].ok());
}

}  // namespace
}  // namespace limitscope::redis
