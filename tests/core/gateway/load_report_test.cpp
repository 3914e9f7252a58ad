// Verifies the load report: status counts, transport errors, retries, nearest-rank latency
// percentiles, and per key/tier/model groups in the JSON document.

#include "core/gateway/load_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scenario_support.h"

namespace limitscope::gateway {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(LoadReport, CountsStatusesPercentilesAndGroups) {
  LoadPlanOptions o;
  o.duration = seconds(10);
  auto p = LoadPlan::create(test::single_client_scenario(), o);
  ASSERT_TRUE(p.ok());
  LoadReport report(**p);
  PlannedRequest r;
  for (int i = 1; i <= 100; ++i) {
    AttemptResult a;
    a.status = i <= 90 ? 200 : 429;
    a.latency = milliseconds(i);
    if (i > 90) a.after_429 = RetryVerdict::retry_scheduled;
    r.attempt = i % 10 == 0 ? 1 : 0;
    report.record(r, a);
  }
  AttemptResult failed;  // no HTTP answer
  failed.latency = milliseconds(500);
  report.record(r, failed);
  const auto j = nlohmann::json::parse(report.json({{"scenario", "\"test\""}}, false));
  EXPECT_EQ(j.at("scenario"), "test");
  EXPECT_EQ(j.at("sent"), 101);
  EXPECT_EQ(j.at("status").at("200"), 90);
  EXPECT_EQ(j.at("status").at("429"), 10);
  EXPECT_EQ(j.at("transport_errors"), 1);
  EXPECT_EQ(j.at("retries"), 11);
  EXPECT_EQ(j.at("retries_succeeded"), 9);
  EXPECT_DOUBLE_EQ(j.at("latency_ms").at("p50").get<double>(), 51);
  EXPECT_DOUBLE_EQ(j.at("latency_ms").at("p99").get<double>(), 100);
  EXPECT_DOUBLE_EQ(j.at("latency_ms").at("max").get<double>(), 500);
  const auto& key = j.at("by_key").at("key");
  EXPECT_EQ(key.at("tier"), "free");
  EXPECT_EQ(key.at("ok"), 90);
  EXPECT_EQ(key.at("rate_limited"), 10);
  EXPECT_EQ(key.at("errors"), 1);
  EXPECT_EQ(key.at("ok_by_model").at("gpt-4.1"), 90);
  EXPECT_EQ(j.at("by_tier").at("free").at("sent"), 101);
  EXPECT_EQ(j.at("by_model").at("gpt-4.1").at("ok"), 90);
}

}  // namespace
}  // namespace limitscope::gateway
