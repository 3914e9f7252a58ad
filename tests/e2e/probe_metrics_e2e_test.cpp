// Verifies `limitscope-cli probe --metrics` against the real gateway under load: the series it
// prints agree exactly with the load generator's own counts (429s, admitted requests), and the
// derived 429 rate over two scrapes is the increase of the hit counters over the interval.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/cli_usage.h"
#include "support/process.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

double sum_series(const json& probe, const std::string& name) {
  double total = 0;
  for (const auto& s : probe.at("series")) {
    if (s.at("name") == name) total += s.at("value").get<double>();
  }
  return total;
}

TEST(ProbeMetricsE2E, SeriesAgreeWithTheLoadGeneratorsCounts) {
  GatewayProcess gw = e2e_mock_gateway("e2e_probe_policy.json");
  ASSERT_TRUE(gw.running());
  const json report = e2e_runaway_load(gw.url(), "2s", 120, 11);
  const double ok = report.at("status").value("200", 0);
  const double limited = report.at("status").value("429", 0);
  ASSERT_GT(limited, 0);

  auto probe = run_cli("probe --metrics " + gw.url() + "/metrics --scrapes 1 --json");
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  const json p = json::parse(probe.out);
  EXPECT_TRUE(p.at("errors").empty());
  EXPECT_TRUE(p.at("derived").is_null()) << "one scrape gives no rates";
  EXPECT_EQ(sum_series(p, "gateway_rate_limit_hits_total"), limited);
  EXPECT_EQ(sum_series(p, "gateway_token_bucket_usage_count"), ok);
  bool burn = false;
  for (const auto& s : p.at("series")) {
    if (s.at("name") == "gateway_quota_burn_ratio") {
      burn = true;
      EXPECT_EQ(s.at("labels").at("api_key_hash").get<std::string>().size(), 12u);
    }
  }
  EXPECT_TRUE(burn);

  // Idle gateway: two scrapes see no new 429s.
  auto idle =
      run_cli("probe --metrics " + gw.url() + "/metrics --scrapes 2 --interval 200ms --json");
  ASSERT_EQ(idle.exit_code, 0) << idle.err;
  const json d = json::parse(idle.out).at("derived");
  ASSERT_TRUE(d.is_object());
  EXPECT_EQ(d.at("rejected_per_s").get<double>(), 0);
  EXPECT_GT(d.at("interval_s").get<double>(), 0.1);
  EXPECT_FALSE(d.at("counter_reset").get<bool>());
}

TEST(ProbeMetricsE2E, UnreachableOrBadTargetsAreUsageErrors) {
  expect_usage_errors(
      "probe",
      {
          {"--metrics ftp://x/metrics", "expected http://"},
          {"--metrics http://127.0.0.1:1/metrics --scrapes 1", "GET http://127.0.0.1:1/metrics"},
          {"--metrics http://127.0.0.1:1/metrics --redis redis://x",
           "give one of --redis, --metrics and --prometheus"},
          {"--metrics http://127.0.0.1:1/metrics --bearer-token-env LIMITSCOPE_NO_SUCH_VAR",
           "is not set"},
      });
}

}  // namespace
}  // namespace limitscope::test
