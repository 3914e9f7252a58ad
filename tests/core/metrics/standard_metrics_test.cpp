// Verifies that the gateway and limitscope families carry exactly the names, labels and
// buckets of DESIGN.md section 5, and that registering them twice is refused.

#include "core/metrics/standard_metrics.h"

#include <gtest/gtest.h>

#include "core/metrics/metric_names.h"

namespace limitscope::metrics {
namespace {

using Names = std::vector<std::string>;

TEST(GatewayMetrics, NamesLabelsAndBucketsMatchTheDesign) {
  MetricsRegistry r;
  auto m = register_gateway_metrics(r);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->rate_limit_hits->name(), "gateway_rate_limit_hits_total");
  EXPECT_EQ(m->rate_limit_hits->label_names(), (Names{"tier", "model"}));
  EXPECT_EQ(m->token_bucket_usage->name(), "gateway_token_bucket_usage");
  EXPECT_EQ(m->token_bucket_usage->label_names(), (Names{"tier", "model"}));
  EXPECT_EQ(m->token_bucket_usage->bounds(),
            (std::vector<double>{0, 5, 10, 50, 100, 500, 1000, 5000}));
  EXPECT_EQ(m->quota_burn_ratio->name(), "gateway_quota_burn_ratio");
  EXPECT_EQ(m->quota_burn_ratio->label_names(), (Names{"api_key_hash", "model"}));
  EXPECT_FALSE(register_gateway_metrics(r).ok());
}

TEST(GatewayMetrics, RenderedExpositionHasEveryBucketAndParses) {
  MetricsRegistry r;
  auto m = *register_gateway_metrics(r);
  m.rate_limit_hits->with({"free", "gpt-4.1"}).inc();
  m.token_bucket_usage->with({"free", "gpt-4.1"}).observe(42);
  m.quota_burn_ratio->with({"ab12", "gpt-4.1"}).set(0.9);
  const std::string text = r.render();
  for (const char* le : {"0", "5", "10", "50", "100", "500", "1000", "5000", "+Inf"}) {
    EXPECT_NE(text.find(std::string("le=\"") + le + "\""), std::string::npos) << le;
  }
  const auto p = parse_exposition_collect(text);
  EXPECT_TRUE(p.errors.empty());
  EXPECT_EQ(p.report.families.size(), 3u);
  EXPECT_EQ(p.report.families[0].type, MetricType::kCounter);
  EXPECT_EQ(p.report.families[1].type, MetricType::kHistogram);
  EXPECT_EQ(p.report.families[2].type, MetricType::kGauge);
}

TEST(LimitscopeMetrics, AllUnderTheLimitscopePrefix) {
  MetricsRegistry r;
  auto m = register_limitscope_metrics(r);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->requests->label_names(), (Names{"tier", "model", "decision"}));
  const MetricFamilyBase* all[] = {m->requests,      m->bucket_level,   m->window_occupancy,
                                   m->spend_dollars, m->backend_errors, m->circuit_state};
  for (const auto* f : all) EXPECT_TRUE(f->name().starts_with("limitscope_")) << f->name();
  // Both sets live in one registry, as in the gateway.
  EXPECT_TRUE(register_gateway_metrics(r).ok());
}

}  // namespace
}  // namespace limitscope::metrics
