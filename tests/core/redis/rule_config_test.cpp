// Verifies rule configs in Redis: fields round-trip, invalid configs are refused by C++ and by
// the script with nothing changed, compare-and-set on the version, the audit stream, history and
// undo; one key's override: stored in the rule's hash, used by decide.lua for that key only, kept
// when the rule's limit changes within its algorithm and dropped when the algorithm changes, undone
// like any change, and refused (C++ and script) on a composite rule or with another algorithm.
#include "core/redis/rule_config.h"

#include <gtest/gtest.h>

#include "core/redis/limiter_scripts.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/script.h"
#include "limiter_test_support.h"
#include "support/limit_params_builders.h"
#include "support/refusals.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

LimitParams tb(double capacity, double amount, Nanos period) {
  return test::bucket(Algorithm::token_bucket, capacity, amount, period);
}

std::map<std::string, std::string> as_map(
    const std::vector<std::pair<std::string, std::string>>& v) {
  return {v.begin(), v.end()};
}

bool same_params(const LimitParams& a, const LimitParams& b) {
  return a.algorithm == b.algorithm && a.capacity == b.capacity &&
         a.refill.amount == b.refill.amount && a.refill.period == b.refill.period &&
         a.limit == b.limit && a.window == b.window;
}

TEST(RuleConfigFields, RoundTripSingleAndComposite) {
  const RuleConfig single = single_limit(tb(0.1 + 0.2, 7, 3s));  // not a short decimal
  auto back = parse_config_fields(as_map(config_fields(single)));
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->limits.size(), 1u);
  EXPECT_TRUE(same_params(back->limits[0].params, single.limits[0].params));
  EXPECT_FALSE(back->composite());

  RuleConfig both;
  both.limits = {{"rpm", test::window(Algorithm::sliding_log, 60, 1min)},
                 {"tpm", tb(100000, 100000, 1min)}};
  const auto fields = as_map(config_fields(both));
  EXPECT_EQ(fields.at("algorithm"), "composite");
  EXPECT_EQ(fields.at("limits"), "rpm,tpm");
  EXPECT_EQ(fields.at("rpm.window"), "1m");
  EXPECT_EQ(fields.at("tpm.refill"), "100000/min");
  auto parsed = parse_config_fields(fields);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  ASSERT_EQ(parsed->limits.size(), 2u);
  EXPECT_EQ(parsed->limits[1].name, "tpm");
  EXPECT_TRUE(same_params(parsed->limits[1].params, both.limits[1].params));
}

TEST(RuleConfigFields, CheckRefusesWhatRedisCannotRun) {
  LimitParams leaky = tb(10, 1, 1s);
  leaky.algorithm = Algorithm::leaky_bucket;
  RuleConfig dup;
  dup.limits = {{"a", tb(1, 1, 1s)}, {"a", tb(2, 1, 1s)}};
  RuleConfig badname;
  badname.limits = {{"a.b", tb(1, 1, 1s)}, {"c", tb(2, 1, 1s)}};
  const struct {
    RuleConfig config;
    std::string reason_has;
  } rows[] = {
      {single_limit(tb(-1, 1, 1s)), "capacity must be"},
      {single_limit(tb(10, 0, 1s)), "refill must be"},
      {single_limit(leaky), "leaky-bucket is not available"},
      {single_limit(test::window(Algorithm::fixed_window, 10, Nanos{1'500'000'001})),
       "whole number of microseconds"},
      {single_limit(test::window(Algorithm::sliding_log, 0, 1s)), "limit must be"},
      {dup, "appears twice"},
      {badname, "limit name"},
      {RuleConfig{}, "at least one limit"},
  };
  for (const auto& row : rows) test::expect_refused(check_for_redis(row.config), row.reason_has);
  EXPECT_EQ(check_for_redis(single_limit(tb(10, 7, 3s))), Status{});
}

class RuleConfigRedis : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = RedisServer::start();
    conn_ = std::make_unique<Connection>(connect(*server_));
  }
  std::int64_t audit_len() { return must(*conn_, {"XLEN", schema_.audit_key("pro")}).integer; }
  // The config-set script run by hand on rule "pro" with these hash fields, as "mallory".
  Result<Value> set_fields_by_script(const std::vector<std::string>& fields) {
    std::vector<std::string> args{"", "mallory", "", "100", "set"};
    args.insert(args.end(), fields.begin(), fields.end());
    return eval(*conn_, config_set_script(), {schema_.config_key("pro"), schema_.audit_key("pro")},
                args);
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<Connection> conn_;
  KeySchema schema_{"t:"};
};

TEST_F(RuleConfigRedis, SetGetCompareAndSetHistoryUndo) {
  auto none = get_config(*conn_, schema_, "pro");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_FALSE(none->has_value());

  // Create only if absent (expect 0).
  auto v1 =
      set_config(*conn_, schema_, "pro", single_limit(tb(500, 50, 1s)), {"alice", "launch", 0});
  ASSERT_TRUE(v1.ok()) << v1.error().message;
  EXPECT_EQ(v1->version, 1);
  EXPECT_GT(v1->updated_at_ms, 1'600'000'000'000);
  auto again = set_config(*conn_, schema_, "pro", single_limit(tb(1, 1, 1s)), {"bob", "", 0});
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(is_version_conflict(again.error())) << again.error().message;

  auto v2 =
      set_config(*conn_, schema_, "pro", single_limit(tb(400, 40, 1s)), {"bob", "too generous", 1});
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  EXPECT_EQ(v2->version, 2);
  // A stale writer (still at version 1) is refused and changes nothing.
  auto stale = set_config(*conn_, schema_, "pro", single_limit(tb(9, 9, 1s)), {"carol", "", 1});
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(is_version_conflict(stale.error()));
  EXPECT_EQ(audit_len(), 2);

  auto got = get_config(*conn_, schema_, "pro");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->version, 2);
  EXPECT_EQ((*got)->updated_by, "bob");
  EXPECT_EQ((*got)->reason, "too generous");
  EXPECT_TRUE(same_params((*got)->limits[0].params, tb(400, 40, 1s)));

  auto h = config_history(*conn_, schema_, "pro", 10);
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[0].version, 2);
  EXPECT_EQ((*h)[0].by, "bob");
  EXPECT_EQ((*h)[0].action, "set");
  EXPECT_EQ((*h)[0].old_fields.at("capacity"), "500");
  EXPECT_EQ((*h)[0].new_fields.at("capacity"), "400");
  EXPECT_EQ((*h)[0].new_fields.at("version"), "2");
  EXPECT_TRUE((*h)[1].old_fields.empty());  // version 1 created the rule

  // Undo re-applies version 1's config as version 3; undoing that re-applies version 2's.
  auto v3 = undo_config(*conn_, schema_, "pro", {"alice", "", std::nullopt});
  ASSERT_TRUE(v3.ok()) << v3.error().message;
  EXPECT_EQ(v3->version, 3);
  EXPECT_EQ(v3->reason, "undo of version 2");
  EXPECT_TRUE(same_params(v3->limits[0].params, tb(500, 50, 1s)));
  auto v4 = undo_config(*conn_, schema_, "pro", {"alice", "flip back", std::nullopt});
  ASSERT_TRUE(v4.ok()) << v4.error().message;
  EXPECT_EQ(v4->version, 4);
  EXPECT_TRUE(same_params(v4->limits[0].params, tb(400, 40, 1s)));
  auto h2 = config_history(*conn_, schema_, "pro", 1);
  ASSERT_TRUE(h2.ok());
  EXPECT_EQ((*h2)[0].action, "undo");
  EXPECT_EQ((*h2)[0].reason, "flip back");
}

TEST_F(RuleConfigRedis, UndoOfTheFirstVersionOrOfAnUnknownRuleIsRefused) {
  auto none = undo_config(*conn_, schema_, "pro", {"a", "", std::nullopt});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, ErrorKind::usage);
  ASSERT_TRUE(
      set_config(*conn_, schema_, "pro", single_limit(tb(5, 1, 1s)), {"a", "", std::nullopt}).ok());
  auto first = undo_config(*conn_, schema_, "pro", {"a", "", std::nullopt});
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().message.find("no earlier config"), std::string::npos)
      << first.error().message;
  EXPECT_EQ(audit_len(), 1);
}

TEST_F(RuleConfigRedis, InvalidValuesAreRefusedAndChangeNothing) {
  ASSERT_TRUE(
      set_config(*conn_, schema_, "pro", single_limit(tb(5, 1, 1s)), {"a", "", std::nullopt}).ok());
  const Value before = must(*conn_, {"HGETALL", schema_.config_key("pro")});
  auto bad =
      set_config(*conn_, schema_, "pro", single_limit(tb(-5, 1, 1s)), {"a", "", std::nullopt});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::usage);
  EXPECT_NE(bad.error().message.find("capacity must be a finite number > 0, got -5"),
            std::string::npos)
      << bad.error().message;

  // Past the C++ check (another client): the script checks the same and refuses.
  const std::vector<std::vector<std::string>> rows = {
      {"algorithm", "token-bucket", "capacity", "-5", "refill_amount", "1", "refill_period_ns",
       "1000000000"},
      {"algorithm", "token-bucket", "capacity", "abc", "refill_amount", "1", "refill_period_ns",
       "1000000000"},
      {"algorithm", "token-bucket", "capacity", "inf", "refill_amount", "1", "refill_period_ns",
       "1000000000"},
      {"algorithm", "leaky-bucket", "capacity", "5", "refill_amount", "1", "refill_period_ns",
       "1000000000"},
      {"algorithm", "fixed-window", "limit", "5", "window_ns", "1500"},
      {"algorithm", "composite", "limits", "a", "a.algorithm", "gcra", "a.capacity", "0",
       "a.refill_amount", "1", "a.refill_period_ns", "1000000000"},
      {"algorithm", "token-bucket", "capacity", "5", "refill_amount", "1", "refill_period_ns",
       "1000000000", "version", "99"},
  };
  for (const auto& fields : rows) {
    auto r = set_fields_by_script(fields);
    ASSERT_FALSE(r.ok()) << fields[1] << " " << fields[3];
    EXPECT_NE(r.error().message.find("LSCONFIG"), std::string::npos) << r.error().message;
  }
  const Value after = must(*conn_, {"HGETALL", schema_.config_key("pro")});
  EXPECT_EQ(before.describe(), after.describe());
  EXPECT_EQ(audit_len(), 1);
}

TEST(RuleConfigFields, OverridesRoundTripAndAreChecked) {
  RuleConfig c = single_limit(tb(10, 1, 1s));
  c.overrides["vip.customer:gpt-4.1"] = tb(100, 5, 1s);  // keys may hold dots and colons
  c.overrides["slow"] = tb(2, 1, 1min);
  const auto fields = as_map(config_fields(c));
  EXPECT_EQ(fields.at("overrides"), "2");
  EXPECT_EQ(fields.at("o.capacity.vip.customer:gpt-4.1"), "100");
  EXPECT_EQ(fields.count("o.algorithm.slow"), 0u);  // an override keeps the rule's algorithm
  auto back = parse_config_fields(fields);
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->overrides.size(), 2u);
  EXPECT_TRUE(same_params(back->overrides.at("vip.customer:gpt-4.1"), tb(100, 5, 1s)));
  EXPECT_TRUE(same_params(back->params_for("slow"), tb(2, 1, 1min)));
  EXPECT_TRUE(same_params(back->params_for("anyone"), tb(10, 1, 1s)));
  EXPECT_NE(back->describe().find("override slow: "), std::string::npos) << back->describe();

  RuleConfig other = c;
  other.overrides["x"] = test::window(Algorithm::sliding_log, 5, 1s);
  ASSERT_FALSE(check_for_redis(other).ok());
  EXPECT_NE(check_for_redis(other).error().find("keeps the rule's algorithm (token-bucket)"),
            std::string::npos);
  RuleConfig composite;
  composite.limits = {{"rpm", test::window(Algorithm::sliding_log, 60, 1min)}};
  composite.overrides["x"] = test::window(Algorithm::sliding_log, 5, 1min);
  ASSERT_FALSE(check_for_redis(composite).ok());
  EXPECT_NE(check_for_redis(composite).error().find("composite rule takes no per-key overrides"),
            std::string::npos);
  RuleConfig bad = c;
  bad.overrides["y"] = tb(-1, 1, 1s);
  const Status bad_override = check_for_redis(bad);
  ASSERT_FALSE(bad_override.ok());
  EXPECT_NE(bad_override.error().find("override of key \"y\": "), std::string::npos);

  // with_rule_limits: kept within the algorithm, dropped (and listed) across algorithms.
  EXPECT_EQ(with_rule_limits(c, single_limit(tb(20, 2, 1s))).overrides.size(), 2u);
  std::vector<std::string> dropped;
  EXPECT_TRUE(
      with_rule_limits(c, single_limit(test::window(Algorithm::fixed_window, 5, 1s)), &dropped)
          .overrides.empty());
  EXPECT_EQ(dropped, (std::vector<std::string>{"slow", "vip.customer:gpt-4.1"}));
}

TEST_F(RuleConfigRedis, AKeysOverrideIsUsedForThatKeyOnlyAndUndoesLikeAnyChange) {
  auto v1 = set_config(*conn_, schema_, "pro", single_limit(tb(3, 1, 1h)), {"a", "rule", 0});
  ASSERT_TRUE(v1.ok()) << v1.error().message;
  auto v2 =
      set_config(*conn_, schema_, "pro", with_override(*v1, "vip", tb(6, 1, 1h)), {"a", "vip", 1});
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  EXPECT_EQ(v2->version, 2);
  const RedisLimiter limiter(schema_);
  DecideOptions at;
  at.now_us = 1'000'000'000'000;
  auto admitted = [&](const std::string& key) {
    int n = 0;
    for (int i = 0; i < 10; ++i) {
      auto d = limiter.decide(*conn_, "pro", key, 1, at);
      EXPECT_TRUE(d.ok()) << d.error().message;
      if (d.ok() && d->decision.allowed) ++n;
    }
    return n;
  };
  EXPECT_EQ(admitted("vip"), 6);
  EXPECT_EQ(admitted("someone"), 3);

  // The rule's limit changes within its algorithm: the override stays.
  auto live = get_config(*conn_, schema_, "pro");
  ASSERT_TRUE(live.ok() && live->has_value());
  EXPECT_EQ((*live)->overrides.size(), 1u);
  auto v3 = set_config(*conn_, schema_, "pro", with_rule_limits(*live, single_limit(tb(4, 1, 1h))),
                       {"a", "wider", 2});
  ASSERT_TRUE(v3.ok()) << v3.error().message;
  EXPECT_EQ(v3->overrides.count("vip"), 1u);
  EXPECT_EQ(admitted("newcomer"), 4);
  // Undo of v3: back to v2's config, the rule's capacity 3 and vip's override.
  ASSERT_TRUE(undo_config(*conn_, schema_, "pro", {"a", "", std::nullopt}).ok());
  auto v4 = get_config(*conn_, schema_, "pro");
  ASSERT_TRUE(v4.ok() && v4->has_value());
  EXPECT_EQ((*v4)->overrides.size(), 1u);
  EXPECT_EQ((*v4)->limits.front().params.capacity, 3);
  auto history = config_history(*conn_, schema_, "pro", 10);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->at(2).new_fields.at("o.capacity.vip"), "6");  // v2's entry names the override

  // Removing the override: the vip key is limited by the rule again.
  RuleConfig without = with_override(**v4, "vip", std::nullopt);
  ASSERT_TRUE(set_config(*conn_, schema_, "pro", without, {"a", "remove", (*v4)->version}).ok());
  EXPECT_EQ(admitted("vip2"), 3);
  must(*conn_, {"DEL", schema_.state_key("pro", "vip")});
  EXPECT_EQ(admitted("vip"), 3);
}

TEST_F(RuleConfigRedis, BadOverridesAreRefusedByTheScriptAndNamedByTheDecision) {
  ASSERT_TRUE(
      set_config(*conn_, schema_, "pro", single_limit(tb(5, 1, 1s)), {"a", "", std::nullopt}).ok());
  const std::vector<std::vector<std::string>> rows = {
      // count missing or wrong
      {"algorithm", "token-bucket", "capacity", "5", "refill_amount", "1", "refill_period_ns",
       "1000000000", "o.capacity.k", "9", "o.refill_amount.k", "1", "o.refill_period_ns.k",
       "1000000000"},
      // an invalid override value
      {"algorithm", "token-bucket", "capacity", "5", "refill_amount", "1", "refill_period_ns",
       "1000000000", "overrides", "1", "o.capacity.k", "-9", "o.refill_amount.k", "1",
       "o.refill_period_ns.k", "1000000000"},
      // a window override on a bucket rule
      {"algorithm", "token-bucket", "capacity", "5", "refill_amount", "1", "refill_period_ns",
       "1000000000", "overrides", "1", "o.limit.k", "9", "o.window_ns.k", "1000000000"},
      // a composite with an override
      {"algorithm", "composite", "limits", "a", "a.algorithm", "gcra", "a.capacity", "3",
       "a.refill_amount", "1", "a.refill_period_ns", "1000000000", "overrides", "1", "o.capacity.k",
       "1"},
      {"algorithm", "token-bucket", "capacity", "5", "refill_amount", "1", "refill_period_ns",
       "1000000000", "overrides", "2"},
  };
  for (const auto& fields : rows) {
    auto r = set_fields_by_script(fields);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("LSCONFIG"), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(audit_len(), 1);
  // Written by hand past every check: the decision for that key names the override and fails
  // (the failure policy decides); other keys are decided as before.
  must(*conn_, {"HSET", schema_.config_key("pro"), "overrides", "1", "o.capacity.k", "abc"});
  const RedisLimiter limiter(schema_);
  auto broken = limiter.decide(*conn_, "pro", "k");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("override of k"), std::string::npos)
      << broken.error().message;
  EXPECT_TRUE(limiter.decide(*conn_, "pro", "other").ok());
}

}  // namespace
}  // namespace limitscope::redis
