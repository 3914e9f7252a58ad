// Verifies the Retry-After audit on canned decision sequences: each refusal is judged by its
// key's next decision (early = impatient, refused after the full wait = lie, admitted after it
// = honoured, none = unanswered), keys do not mix, and examples are capped.

#include "core/audit/retry_after_audit.h"

#include <gtest/gtest.h>

namespace limitscope::test {
namespace {

using audit::LoggedDecision;

LoggedDecision ok(std::int64_t t, const std::string& key = "a") {
  return {t, key, true, std::nullopt};
}
LoggedDecision no(std::int64_t t, std::int64_t retry, const std::string& key = "a") {
  return {t, key, false, retry};
}

TEST(RetryAfterAudit, EachRefusalIsJudgedByTheKeysNextDecision) {
  const std::vector<LoggedDecision> ds = {
      no(0, 1'000'000),          // next at 500 ms: impatient
      no(500'000, 1'000'000),    // next 1 s later, refused: a lie
      no(1'500'000, 1'000'000),  // next exactly 1 s later, admitted: honoured
      ok(2'500'000),
      no(3'000'000, 1'000'000),  // never retried
  };
  const auto a = audit::audit_retry_after(ds);
  EXPECT_EQ(a.refusals, 4u);
  EXPECT_EQ(a.impatient, 1u);
  EXPECT_EQ(a.lies, 1u);
  EXPECT_EQ(a.honoured, 1u);
  EXPECT_EQ(a.unanswered, 1u);
  ASSERT_EQ(a.keys.size(), 1u);
  ASSERT_EQ(a.keys[0].lie_examples.size(), 1u);
  EXPECT_EQ(a.keys[0].lie_examples[0].t_us, 500'000);
  EXPECT_EQ(a.keys[0].lie_examples[0].promised_us, 1'000'000);
  EXPECT_EQ(a.keys[0].lie_examples[0].waited_us, 1'000'000);
  EXPECT_EQ(a.keys[0].impatient_examples[0].waited_us, 500'000);
}

TEST(RetryAfterAudit, KeysDoNotMixAndTheLyingKeyComesFirst) {
  const std::vector<LoggedDecision> ds = {
      no(0, 100'000, "honest"),     no(10, 200'000, "liar"),      ok(100'000, "honest"),
      no(200'010, 200'000, "liar"), no(400'010, 200'000, "liar"), ok(400'020, "other"),
  };
  const auto a = audit::audit_retry_after(ds);
  ASSERT_EQ(a.keys.size(), 2u);  // "other" never refused
  EXPECT_EQ(a.keys[0].key, "liar");
  EXPECT_EQ(a.keys[0].lies, 2u);
  EXPECT_EQ(a.keys[0].unanswered, 1u);
  EXPECT_EQ(a.keys[1].key, "honest");
  EXPECT_EQ(a.keys[1].honoured, 1u);
  EXPECT_EQ(a.keys[1].lies, 0u);
}

TEST(RetryAfterAudit, ExamplesAreCappedButCountsAreNot) {
  std::vector<LoggedDecision> ds;
  for (int i = 0; i < 10; ++i) ds.push_back(no(i * 10, 1'000'000));
  const auto a = audit::audit_retry_after(ds, 2);
  EXPECT_EQ(a.impatient, 9u);
  EXPECT_EQ(a.keys[0].impatient_examples.size(), 2u);
}

}  // namespace
}  // namespace limitscope::test
