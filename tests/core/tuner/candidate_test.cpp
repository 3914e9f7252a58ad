// Verifies the Tuner's checks: zero and negative rates, capacities and limits below the
// trace's largest cost and too-short windows are field problems with a clear message; a sweep's
// state memory grows with keys × configurations; a change preview names old and new, the
// version it will compare-and-set on, the scope, and refuses what Redis cannot run.
#include "core/tuner/candidate.h"

#include <gtest/gtest.h>

#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(Candidate, FieldProblemsInTheOperatorsWords) {
  struct Row {
    LimitParams params;
    double largest;
    std::string field;  // "" = no problem
    std::string says;
  };
  const Row rows[] = {
      {test::bucket(Algorithm::token_bucket, 10, 5), 8, "", ""},
      {test::bucket(Algorithm::token_bucket, 10, 0), 1, "refill", "greater than 0"},
      {test::bucket(Algorithm::gcra, 10, -2), 1, "refill", "greater than 0 (got -2)"},
      {test::bucket(Algorithm::token_bucket, 0, 5), 1, "capacity", "greater than 0"},
      {test::bucket(Algorithm::token_bucket, 5, 5), 8, "capacity",
       "below the largest cost in the trace (8)"},
      {test::window(Algorithm::sliding_log, 5, seconds(1)), 8, "limit", "below the largest cost"},
      {test::window(Algorithm::fixed_window, 10, Nanos{0}), 1, "window", "greater than 0"},
      {test::window(Algorithm::fixed_window, 10, Nanos{500}), 1, "window", "at least 1 ms"},
      {test::window(Algorithm::sliding_counter, -1, seconds(1)), 1, "limit", "greater than 0"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.params.describe());
    const auto problems = check_candidate(row.params, row.largest);
    if (row.field.empty()) {
      EXPECT_TRUE(problems.empty()) << problems.front().message;
      continue;
    }
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems.front().field, row.field);
    EXPECT_NE(problems.front().message.find(row.says), std::string::npos)
        << problems.front().message;
  }
}

TEST(Candidate, SweepStateGrowsWithKeysAndConfigurations) {
  trace::Trace t;
  for (int k = 0; k < 10; ++k) t.add(k, "k" + std::to_string(k), 1);
  SweepSpec spec;
  spec.base = test::bucket(Algorithm::token_bucket, 1, 1);
  spec.x = {1, 10, 4};
  spec.y = {1, 10, 5};
  EXPECT_EQ(sweep_state_bytes(t, spec), 10u * 20u * 24u);
  spec.base = test::window(Algorithm::sliding_log, 1, seconds(1));
  EXPECT_GT(sweep_state_bytes(t, spec), 10u * 20u * 8u);
  EXPECT_EQ(largest_cost(t), 1);
}

TEST(Candidate, PreviewNamesOldNewVersionAndScope) {
  redis::RuleConfig live = redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 10));
  live.version = 7;
  Counts cur, cand;
  cur.rejected = 10;
  cur.admitted = 90;
  cand.rejected = 1;
  cand.admitted = 99;
  const auto p =
      preview_change("chat", live, test::bucket(Algorithm::token_bucket, 200, 10), cur, cand);
  EXPECT_EQ(p.expect_version, 7);
  EXPECT_NE(p.old_text.find("capacity=100"), std::string::npos) << p.old_text;
  EXPECT_NE(p.old_text.find("version 7"), std::string::npos);
  EXPECT_NE(p.new_text.find("capacity=200"), std::string::npos) << p.new_text;
  EXPECT_NE(p.scope.find("rule \"chat\""), std::string::npos);
  EXPECT_EQ(p.scope, "rule \"chat\": every key it limits, at its next decision");
  EXPECT_EQ(p.check, Status{});
  EXPECT_EQ(describe_429s(*p.current), "10 of 100 requests (10.00%)");

  const auto created =
      preview_change("new", std::nullopt, test::bucket(Algorithm::gcra, 5, 1), {}, {});
  EXPECT_EQ(created.expect_version, 0);
  EXPECT_NE(created.old_text.find("created"), std::string::npos);

  const auto leaky = preview_change("q", live, test::bucket(Algorithm::leaky_bucket, 5, 1), {}, {});
  EXPECT_FALSE(leaky.check.ok());
}

TEST(Candidate, PreviewOfOneLimitOfAComposite) {
  redis::RuleConfig live;
  live.limits = {{"rpm", test::bucket(Algorithm::token_bucket, 60, 1)},
                 {"tpm", test::bucket(Algorithm::token_bucket, 100000, 1000)}};
  live.version = 9;
  const auto p =
      preview_change("chat", live, test::bucket(Algorithm::gcra, 120, 2), {}, {}, "", "rpm");
  EXPECT_EQ(p.check, Status{});
  ASSERT_EQ(p.config.limits.size(), 2u);
  EXPECT_EQ(p.config.limits[0].name, "rpm");
  EXPECT_EQ(p.config.limits[0].params.algorithm, Algorithm::gcra);
  EXPECT_EQ(p.config.limits[0].params.capacity, 120);
  EXPECT_EQ(p.config.limits[1].params.capacity, 100000);  // the other limit is kept
  EXPECT_NE(p.scope.find("the other limits (tpm) are unchanged"), std::string::npos) << p.scope;
  EXPECT_NE(p.old_text.find("capacity=60"), std::string::npos) << p.old_text;
  EXPECT_EQ(p.expect_version, 9);
  EXPECT_TRUE(p.notes.empty());
  EXPECT_EQ(
      preview_change("chat", live, test::bucket(Algorithm::gcra, 1, 1), {}, {}, "", "nope").check,
      Status{make_error("rule chat has no limit named nope")});
  // Without a limit name the composite is replaced, with a note.
  const auto whole = preview_change("chat", live, test::bucket(Algorithm::gcra, 1, 1), {}, {});
  EXPECT_EQ(whole.config.limits.size(), 1u);
  ASSERT_EQ(whole.notes.size(), 1u);
  EXPECT_NE(whole.notes[0].find("replaces them with this single limit"), std::string::npos);
}

TEST(Candidate, PreviewOfOneKeysOverrideAndOfARuleWithOverrides) {
  redis::RuleConfig live = redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 5));
  live.version = 4;
  live.overrides["vip"] = test::bucket(Algorithm::token_bucket, 1000, 50);
  const auto key =
      preview_change("chat", live, test::bucket(Algorithm::token_bucket, 300, 20), {}, {}, "alice");
  EXPECT_EQ(key.check, Status{});
  EXPECT_EQ(key.key, "alice");
  EXPECT_NE(key.scope.find("key \"alice\" of rule \"chat\" only"), std::string::npos) << key.scope;
  EXPECT_NE(key.old_text.find("capacity=100"), std::string::npos) << key.old_text;
  EXPECT_NE(key.old_text.find("no override yet"), std::string::npos) << key.old_text;
  EXPECT_EQ(key.expect_version, 4);
  EXPECT_EQ(key.config.limits.front().params.capacity, 100);  // the rule is unchanged
  EXPECT_EQ(key.config.overrides.at("alice").capacity, 300);
  EXPECT_EQ(key.config.overrides.at("vip").capacity, 1000);

  const auto vip =
      preview_change("chat", live, test::bucket(Algorithm::token_bucket, 10, 1), {}, {}, "vip");
  EXPECT_NE(vip.old_text.find("capacity=1000"), std::string::npos) << vip.old_text;
  EXPECT_NE(vip.old_text.find("the key's override"), std::string::npos);

  const auto other_alg =
      preview_change("chat", live, test::bucket(Algorithm::gcra, 10, 1), {}, {}, "alice");
  ASSERT_FALSE(other_alg.check.ok());
  EXPECT_NE(other_alg.check.error().find("keeps the rule's algorithm"), std::string::npos)
      << other_alg.check.error();
  const auto no_rule =
      preview_change("chat", std::nullopt, test::bucket(Algorithm::gcra, 10, 1), {}, {}, "a");
  ASSERT_FALSE(no_rule.check.ok());
  EXPECT_NE(no_rule.check.error().find("rule chat has no config yet"), std::string::npos)
      << no_rule.check.error();

  // The whole rule: the override is kept within the algorithm, and dropped with a note across.
  const auto rule =
      preview_change("chat", live, test::bucket(Algorithm::token_bucket, 200, 10), {}, {});
  EXPECT_EQ(rule.config.overrides.size(), 1u);
  EXPECT_NE(rule.scope.find("except the 1 key(s) with their own override"), std::string::npos)
      << rule.scope;
  const auto gcra = preview_change("chat", live, test::bucket(Algorithm::gcra, 200, 10), {}, {});
  EXPECT_TRUE(gcra.config.overrides.empty());
  ASSERT_EQ(gcra.notes.size(), 1u);
  EXPECT_NE(gcra.notes[0].find("key vip's override is dropped"), std::string::npos);
}

}  // namespace
}  // namespace limitscope::tuner

namespace limitscope::tuner {
namespace {

TEST(Candidate, SuggestedAxesAreLogSpacedAroundTheFirstGuessAndTheLargestCost) {
  trace::Trace t;  // a: 2 cost/s, b: 20 cost/s over 100 s; largest cost 4
  for (int i = 0; i < 100; ++i) {
    t.add(i * 1'000'000'000LL, "a", 2);
    for (int j = 0; j < 5; ++j) t.add(i * 1'000'000'000LL + j * 1'000'000 + 1000, "b", 4);
  }
  // Two keys: both well-behaved; the 95th percentile is b's: 20 in its busiest second and
  // 1,200 in its busiest minute (20/s).
  const auto [x, y] = suggest_axes(t, Algorithm::token_bucket, 8);
  EXPECT_EQ(x.spacing, Spacing::log);
  EXPECT_EQ(x.min, 4);  // 20 / 8 = 2.5 is below the largest cost
  EXPECT_EQ(x.max, 160);
  EXPECT_NEAR(y.min, 2.5, 1e-9);
  EXPECT_NEAR(y.max, 160, 1e-9);
  EXPECT_EQ(x.steps, 8);
  const auto [w, l] = suggest_axes(t, Algorithm::sliding_log, 5);
  EXPECT_EQ(w.min, 1);
  EXPECT_EQ(w.max, 600);
  EXPECT_GE(l.min, 4);
  EXPECT_TRUE(parse_axis(std::to_string(l.min) + ":" + std::to_string(l.max) + ":5", "limit").ok());
}

}  // namespace
}  // namespace limitscope::tuner
