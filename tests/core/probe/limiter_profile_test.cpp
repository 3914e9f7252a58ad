// Verifies parse_profiles: the issue's example document, every kind's required fields, and
// errors that name the JSON path; and that the first matching profile wins over built-ins.
#include "core/probe/limiter_profile.h"

#include <gtest/gtest.h>

#include "support/refusals.h"

namespace limitscope::probe {
namespace {

const char* kExample = R"({"profiles": [
  {"name": "gw-free", "match": "rl:free-*", "kind": "token_bucket_hash",
   "fields": {"tokens": "tokens", "updated": "ts"}, "time_unit": "ms",
   "capacity": 60, "refill": "1/s"},
  {"name": "sw", "match": "rate_limit:*", "kind": "sliding_window_zset",
   "time_unit": "ms", "window": "60s", "limit": 100}
]})";

TEST(LimiterProfile, ParsesTheDocumentedExample) {
  auto profiles = parse_profiles(kExample);
  ASSERT_TRUE(profiles.ok()) << profiles.error();
  ASSERT_EQ(profiles->size(), 2u);
  const auto& free = (*profiles)[0];
  EXPECT_EQ(free.name, "gw-free");
  EXPECT_EQ(free.kind, ProfileKind::token_bucket_hash);
  EXPECT_EQ(free.updated_field, "ts");
  EXPECT_EQ(free.time_unit, TimeUnit::ms);
  EXPECT_EQ(free.capacity, 60);
  EXPECT_DOUBLE_EQ(free.refill->per_second(), 1);
  const auto& sw = (*profiles)[1];
  EXPECT_EQ(sw.kind, ProfileKind::sliding_window_zset);
  EXPECT_EQ(sw.window, std::chrono::seconds(60));
  EXPECT_EQ(sw.limit, 100);
}

TEST(LimiterProfile, ErrorsNameThePathAndReason) {
  const std::vector<test::Refusal> rows = {
      {"[", "not valid JSON"},
      {"[]", "must be an object"},
      {"{}", "profiles: required"},
      {R"({"profiles": [1]})", "profiles[0]: must be an object"},
      {R"({"profiles": [{"match": "x", "kind": "gcra_tat"}]})", "profiles[0].name: required"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "bucket"}]})",
       "profiles[0].kind: 'bucket' is not one of"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "sliding_window_zset", "limit": 5}]})",
       "profiles[0].window: required for kind sliding_window_zset"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "gcra_tat", "capacity": 5}]})",
       "profiles[0].refill: required for kind gcra_tat"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "counter_ttl"}]})",
       "profiles[0].limit: required"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "token_bucket_hash", "capacity": 5}]})",
       "capacity and refill go together"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "token_bucket_hash", "capacity": 5, "refill": "5"}]})",
       "profiles[0].refill"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "counter_ttl", "limit": -1}]})",
       "profiles[0].limit: must be a number > 0"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "counter_ttl", "limit": 1, "time_unit": "h"}]})",
       "profiles[0].time_unit"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "counter_ttl", "limit": 1, "colour": 1}]})",
       "profiles[0].colour: unknown field"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "token_bucket_hash", "fields": {"tok": "t"}}]})",
       "profiles[0].fields.tok: unknown field"},
      {R"({"profiles": [{"name": "a", "match": "x", "kind": "counter_ttl", "limit": 1},
                        {"name": "a", "match": "y", "kind": "counter_ttl", "limit": 1}]})",
       "profiles[1].name: 'a' is used twice"},
  };
  test::expect_refusals(rows, [](const std::string& json) { return parse_profiles(json); });
}

// Found by fuzz/probe_profiles_fuzz: a number beyond double (valid JSON) threw an uncaught
// json::out_of_range, so `probe --profiles FILE` aborted instead of naming the problem.
TEST(LimiterProfile, NumberBeyondDoubleIsAnErrorNotACrash) {
  auto profiles = parse_profiles(
      R"({"profiles": [{"name": "a", "match": "x", "kind": "gcra_tat", "capacity": 1e999, "refill": "1/s"}]})");
  ASSERT_FALSE(profiles.ok());
  EXPECT_NE(profiles.error().find("out of range"), std::string::npos) << profiles.error();
}

TEST(LimiterProfile, FirstMatchWinsAndBuiltinsFollow) {
  auto mine = parse_profiles(kExample);
  ASSERT_TRUE(mine.ok());
  auto all = *mine;
  for (auto& b : builtin_profiles()) all.push_back(b);
  EXPECT_EQ(match_profile(all, "rl:free-alice")->name, "gw-free");
  EXPECT_EQ(match_profile(all, "rl:pro-bob")->name, "rl-hash");            // built-in, no capacity
  EXPECT_EQ(match_profile(all, "rate_limit:token_bucket:x")->name, "sw");  // file first
  EXPECT_EQ(match_profile(all, "limitscope:{api}:s:carol")->name, "limitscope");
  EXPECT_EQ(match_profile(all, "session:123"), nullptr);
}

}  // namespace
}  // namespace limitscope::probe
