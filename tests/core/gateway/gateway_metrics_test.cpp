// Verifies the gateway's metric families under their cardinality cap: past max_series the
// quota-burn series and the quota table share one "__overflow__" row, and the overflow is counted;
// and limitscope_key_info names the policy's keys by hash, never by the key itself.

#include "core/gateway/gateway_metrics.h"

#include <gtest/gtest.h>

#include "core/common/sha256.h"
#include "core/metrics/exposition_parser.h"
#include "support/exposition_sums.h"

namespace limitscope::gateway {
namespace {

TEST(GatewayMetrics, KeysPastTheCapShareTheOverflowSeries) {
  const Policy& p = default_policy();
  GatewayMetrics m(/*max_series=*/2);
  AdmissionResult r;
  r.allowed = true;
  r.tier = p.find_tier("free");
  r.model = &p.models[*p.model_index("gpt-4.1")];
  r.cost = 8;
  r.requests = Decision{true, 60, 52, std::nullopt, Nanos{0}};
  for (const char* hash : {"aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc", "dddddddddddd"}) {
    m.on_decision(r, hash, Nanos{0});
  }
  const std::string text = m.render();
  EXPECT_EQ(test::sum_samples(text, "gateway_quota_burn_ratio", {{"api_key_hash", "aaaaaaaaaaaa"}}),
            8.0 / 1000);
  EXPECT_EQ(text.find("cccccccccccc"), std::string::npos);
  EXPECT_EQ(text.find("dddddddddddd"), std::string::npos);
  // The two keys past the cap share one row: 16 units of the 1,000-unit quota.
  EXPECT_EQ(test::sum_samples(text, "gateway_quota_burn_ratio", {{"api_key_hash", "__overflow__"}}),
            16.0 / 1000);
  EXPECT_GT(test::sum_samples(text, "limitscope_metric_series_overflow_total"), 0);
  EXPECT_EQ(test::sum_samples(text, "gateway_token_bucket_usage_count"), 4);
}

TEST(GatewayMetrics, QuotaUseStartsAgainOnANewUtcDay) {
  const Policy& p = default_policy();
  GatewayMetrics m;
  AdmissionResult r;
  r.allowed = true;
  r.tier = p.find_tier("free");
  r.model = &p.models[*p.model_index("deepseek-v3.2")];
  r.cost = 1;
  const Nanos day = std::chrono::hours(24);
  m.on_decision(r, "aaaaaaaaaaaa", day * 20000 + std::chrono::hours(23));
  m.on_decision(r, "aaaaaaaaaaaa", day * 20000 + std::chrono::hours(23));
  EXPECT_EQ(test::sum_samples(m.render(), "gateway_quota_burn_ratio"), 2.0 / 1000);
  m.on_decision(r, "aaaaaaaaaaaa", day * 20001 + std::chrono::hours(1));
  EXPECT_EQ(test::sum_samples(m.render(), "gateway_quota_burn_ratio"), 1.0 / 1000);
}

TEST(GatewayMetrics, KeyInfoNamesEveryListedKeyByHashAndFollowsAReload) {
  auto p = parse_policy(
      R"({"tiers": {"free": {"requests": {"algorithm": "token-bucket", "capacity": 10, "refill": "1/s"}},
                                      "pro": {"requests": {"algorithm": "token-bucket", "capacity": 100, "refill": "10/s"}}},
                            "models": {"m": {"cost": 1}},
                            "keys": {"sk-secret-acme": {"tier": "pro", "name": "acme-prod"},
                                     "sk-secret-bare": "free"}})",
      "named.json");
  ASSERT_TRUE(p.ok()) << p.error();
  GatewayMetrics m;
  m.set_key_info(*p);
  const std::string text = m.render();
  EXPECT_EQ(text.find("sk-secret"), std::string::npos) << "a raw key was exported";
  EXPECT_EQ(test::sum_samples(text, "limitscope_key_info",
                              {{"api_key_hash", api_key_hash("sk-secret-acme")},
                               {"name", "acme-prod"},
                               {"tier", "pro"}}),
            1);
  EXPECT_EQ(test::sum_samples(text, "limitscope_key_info",
                              {{"api_key_hash", api_key_hash("sk-secret-bare")}, {"tier", "free"}}),
            1);
  EXPECT_TRUE(metrics::parse_exposition_collect(text).errors.empty()) << text;

  p->keys.erase("sk-secret-bare");  // a reloaded policy without that key
  m.set_key_info(*p);
  EXPECT_EQ(m.render().find(api_key_hash("sk-secret-bare")), std::string::npos);
}

}  // namespace
}  // namespace limitscope::gateway
