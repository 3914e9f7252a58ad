// Verifies what the gateway exports for the audits: cost admitted per key (fail-open
// admissions included, refusals not), and its wall clock and start time as epoch seconds.

#include <gtest/gtest.h>

#include "core/gateway/gateway_metrics.h"
#include "support/exposition_sums.h"

namespace limitscope::gateway {
namespace {

TEST(GatewayAuditMetrics, AdmittedCostPerKeyCountsFailOpenButNotRefusals) {
  const Policy& p = default_policy();
  GatewayMetrics m;
  AdmissionResult r;
  r.tier = p.find_tier("free");
  r.model = &p.models[*p.model_index("gpt-4.1")];
  r.cost = 8;
  r.allowed = true;
  r.requests = Decision{true, 60, 52, std::nullopt, Nanos{0}};
  m.on_decision(r, "aaaaaaaaaaaa", Nanos{0});
  r.degraded = true;  // fail-open: admitted without the store
  m.on_decision(r, "aaaaaaaaaaaa", Nanos{0});
  r.degraded = false;
  r.allowed = false;
  r.requests = Decision{false, 60, 0, Nanos{1'000'000'000}, Nanos{0}};
  m.on_decision(r, "aaaaaaaaaaaa", Nanos{0});
  const std::string text = m.render();
  EXPECT_EQ(test::sum_samples(text, "limitscope_key_admitted_cost_total",
                              {{"api_key_hash", "aaaaaaaaaaaa"}, {"model", "gpt-4.1"}}),
            16);
}

TEST(GatewayAuditMetrics, WallClockAndStartTimeInEpochSeconds) {
  GatewayMetrics m;
  m.set_start_time(Nanos{1'700'000'000'000'000'000});
  m.set_wall_time(Nanos{1'700'000'012'500'000'000});
  const std::string text = m.render();
  EXPECT_EQ(test::sum_samples(text, "limitscope_gateway_start_time_seconds"), 1'700'000'000.0);
  EXPECT_EQ(test::sum_samples(text, "limitscope_gateway_time_seconds"), 1'700'000'012.5);
}

}  // namespace
}  // namespace limitscope::gateway
