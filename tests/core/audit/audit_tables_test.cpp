// Verifies the Audits panel's tables: a replica leak's row names the tenant and its ratio, the
// likely cause is the first note; a Retry-After lie is flagged with its examples in the
// row's detail, the key named and never shown raw; a cluster's skewed master reads SKEW and the
// reference master "reference".

#include "core/audit/audit_tables.h"

#include <gtest/gtest.h>

#include "core/audit/audit_names.h"
#include "core/common/sha256.h"
#include "named_test_policy.h"

namespace limitscope::test {
namespace {

TEST(AuditTables, ReplicaLeakRowNamesTheTenant) {
  const Policy policy = named_test_policy();
  std::vector<audit::ReplicaWindow> ws(2);
  for (auto& w : ws) {
    w.window_s = 10;
    w.admitted_cost[{api_key_hash("sk-acme"), "m"}] =
        20;  // each replica: its own full 10 + 10 s refill
  }
  const ResultTable t = audit::replica_table(audit::audit_replicas(ws, policy));
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_TRUE(t.problem);
  EXPECT_TRUE(t.rows[0].flagged);
  EXPECT_EQ(t.rows[0].cells[0], "acme-prod");
  EXPECT_EQ(t.rows[0].cells[1], api_key_hash("sk-acme"));
  EXPECT_EQ(t.rows[0].cells[7], "2.00x");
  EXPECT_EQ(t.rows[0].cells[9], "LEAK");
  EXPECT_EQ(t.verdict, "1 leak over 2 replicas (window 10 s, tolerance 20%)");
  ASSERT_FALSE(t.notes.empty());
  EXPECT_EQ(t.notes[0].rfind("Likely cause: limits counted per replica", 0), 0u) << t.notes[0];
}

TEST(AuditTables, RetryAfterLieIsFlaggedWithExamplesAndNoRawKey) {
  const Policy policy = named_test_policy();
  const std::int64_t t0 = 1'796'120'229'000'000;
  const std::vector<audit::LoggedDecision> ds = {{t0, "sk-acme", false, 200'000},
                                                 {t0 + 300'000, "sk-acme", false, 200'000},
                                                 {t0 + 1'000'000, "sk-acme", false, 200'000},
                                                 {t0 + 1'500'000, "sk-acme", true, std::nullopt},
                                                 {t0, "other", false, 1'000'000},
                                                 {t0 + 10'000, "other", false, 1'000'000}};
  auto a = audit::audit_retry_after(ds);
  audit::name_keys(a, audit::policy_key_names(policy), &policy);
  audit::DecisionRead read;
  read.decisions = ds;
  const ResultTable t = audit::retry_after_table(a, read, "foreign");
  EXPECT_TRUE(t.problem);
  EXPECT_EQ(t.title, "Retry-After honesty (rule foreign)");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].cells[0], "acme-prod");  // most lies first
  EXPECT_EQ(t.rows[0].cells[1], api_key_hash("sk-acme"));
  EXPECT_EQ(t.rows[0].cells[5], "2");
  EXPECT_TRUE(t.rows[0].flagged);
  EXPECT_EQ(t.rows[0].detail,
            "lie: promised 0.200 s, waited 0.300 s, refused again\n"
            "lie: promised 0.200 s, waited 0.700 s, refused again");
  EXPECT_EQ(t.rows[1].cells[7], "impatient client");
  for (const auto& r : t.rows) {
    for (const auto& c : r.cells) EXPECT_EQ(c.find("sk-acme"), std::string::npos) << c;
  }
  EXPECT_EQ(t.verdict.rfind("Retry-After lied", 0), 0u) << t.verdict;
}

TEST(AuditTables, ClusterMastersInTheClockTable) {
  constexpr double kT = 1'796'120'229.0;
  const std::vector<audit::RedisClockReading> nodes = {
      {"127.0.0.1:7001", audit::ClockSample{kT, kT, kT, 0}, {}},
      {"127.0.0.1:7002", audit::ClockSample{kT, kT, kT + 3, 0}, {}},
      {"127.0.0.1:7003", audit::ClockSample{kT, kT, kT + 0.01, 0}, {}}};
  const ResultTable t = audit::clock_table(audit::audit_clocks({}, nodes, 1.0));
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].cells[4], "ok");
  EXPECT_EQ(t.rows[1].cells[4], "SKEW");
  EXPECT_EQ(t.rows[2].cells[3], "reference");
  EXPECT_TRUE(t.problem);
  EXPECT_EQ(t.verdict, "1 clock of 3 off by more than 1.00 s");
}

}  // namespace
}  // namespace limitscope::test
