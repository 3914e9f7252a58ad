// Verifies the Prometheus source against a real Prometheus (Debian package prometheus) that
// scrapes the real gateway on loopback: once a scrape after the load has landed, the query
// through `limitscope-cli probe --prometheus` returns the 429 count the load generator saw.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/prometheus_process.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

TEST(PrometheusE2E, QueriesSeeTheGatewaysCounters) {
  GatewayProcess gw = e2e_mock_gateway("e2e_prom_policy.json");
  ASSERT_TRUE(gw.running());
  const double limited = e2e_runaway_load(gw.url(), "1s", 100, 3).at("status").value("429", 0);
  ASSERT_GT(limited, 0);

  const PrometheusProcess prometheus = PrometheusProcess::start("prometheus", gw.port());
  const auto& prom = prometheus.process;
  ASSERT_NE(prom, nullptr);
  const std::string& base = prometheus.base_url;

  // Wait for the event "a scrape with the final counters is queryable": the query is checked
  // again after each scrape Prometheus makes.
  double seen = -1;
  std::string last_error;
  prometheus.recheck_on_scrapes([&] {
    auto r = run_cli("probe --prometheus " + base +
                     " --query 'sum(gateway_rate_limit_hits_total)' --json");
    if (r.exit_code != 0) {
      last_error = r.err;
      return false;
    }
    const json j = json::parse(r.out);
    if (!j.at("series").empty()) seen = j.at("series")[0].at("value").get<double>();
    return seen == limited;
  });
  EXPECT_EQ(seen, limited) << "last error: " << last_error
                           << "\nprometheus: " << prom->stderr_text();

  auto bad = run_cli("probe --prometheus " + base + " --query 'sum(' --json");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("Prometheus error bad_data"), std::string::npos) << bad.err;
  auto alerts = run_cli("probe --prometheus " + base + " --alerts --json");
  ASSERT_EQ(alerts.exit_code, 0) << alerts.err;
  EXPECT_TRUE(json::parse(alerts.out).at("alerts").is_array());
}

}  // namespace
}  // namespace limitscope::test
