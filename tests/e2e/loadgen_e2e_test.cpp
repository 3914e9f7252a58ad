// Verifies limitscope-cli loadgen against the real gateway: its status counts agree exactly with
// the gateway's /metrics, admitted cost per key and model stays within the token-bucket bound, and
// well-behaved clients' retries after Retry-After succeed.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/cli_usage.h"
#include "support/exposition_sums.h"
#include "support/process.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

struct TierLimit {
  double capacity;
  double per_second;
};

// The requests rule of e2e_policy_json() and its model costs.
TierLimit limit_of(const std::string& tier) {
  if (tier == "free") return {3, 1};
  if (tier == "pro") return {50, 20};
  return {500, 200};
}

double cost_of(const std::string& model) {
  if (model == "gpt-4.1") return 2;
  if (model == "claude-sonnet-4.5") return 3;
  return 1;
}

std::string scrape(const GatewayProcess& gw) {
  httplib::Client c(gw.url());
  auto r = c.Get("/metrics");
  EXPECT_TRUE(r);
  return r ? r->body : std::string();
}

json run_loadgen(const GatewayProcess& gw, const std::string& scenario, const std::string& extra,
                 double& elapsed_s) {
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r =
      run_cli("loadgen --target " + gw.url() + " --scenario " + scenario + " " + extra + " --json");
  elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out, nullptr, false);
}

TEST(LoadgenE2E, CountsAgreeWithMetricsAndStayWithinTheBucketBound) {
  GatewayProcess gw = e2e_mock_gateway("e2e_loadgen_policy.json");
  ASSERT_TRUE(gw.running());
  double elapsed = 0;
  const json report = run_loadgen(gw, "runaway", "--duration 2s --rate 150 --seed 7", elapsed);
  ASSERT_TRUE(report.is_object());
  const std::int64_t sent = report.at("sent");
  const std::int64_t ok = report.at("status").value("200", 0);
  const std::int64_t limited = report.at("status").value("429", 0);
  ASSERT_GT(sent, 100);
  ASSERT_GT(limited, 0);  // the runaway loop-bot is far over free's 1/s
  EXPECT_EQ(report.at("transport_errors"), 0);
  EXPECT_EQ(ok + limited, sent) << report.dump();

  const std::string m = scrape(gw);
  EXPECT_EQ(sum_samples(m, "gateway_rate_limit_hits_total"), static_cast<double>(limited));
  EXPECT_EQ(sum_samples(m, "gateway_token_bucket_usage_count"), static_cast<double>(ok));
  EXPECT_EQ(sum_samples(m, "limitscope_gateway_responses_total", {{"code", "200"}}),
            static_cast<double>(ok));
  EXPECT_EQ(sum_samples(m, "limitscope_gateway_responses_total", {{"code", "429"}}),
            static_cast<double>(limited));
  for (const auto& [tier, counts] : report.at("by_tier").items()) {
    EXPECT_EQ(
        sum_samples(m, "limitscope_requests_total", {{"tier", tier}, {"decision", "allowed"}}),
        counts.at("ok").get<double>())
        << tier;
  }

  // Per (key, model) bucket: admitted cost <= C + r * T over the whole run.
  for (const auto& [key, k] : report.at("by_key").items()) {
    const TierLimit lim = limit_of(k.at("tier"));
    for (const auto& [model, n] : k.at("ok_by_model").items()) {
      const double admitted = n.get<double>() * cost_of(model);
      EXPECT_LE(admitted, lim.capacity + lim.per_second * elapsed) << key << " " << model;
    }
  }
  const json loop = report.at("by_key").at("loop-bot");
  EXPECT_GT(loop.at("rate_limited").get<int>(), 0);
  EXPECT_EQ(loop.at("tier"), "free");
  EXPECT_LE(report.at("latency_ms").at("p50").get<double>(),
            report.at("latency_ms").at("p99").get<double>());
  EXPECT_LE(report.at("latency_ms").at("p99").get<double>(),
            report.at("latency_ms").at("max").get<double>());
}

TEST(LoadgenE2E, WellBehavedClientsRetryAfterRetryAfterAndSucceed) {
  const std::string policy = write_temp("e2e_loadgen_burst.json", e2e_policy_json());
  GatewayProcess gw({"--policy", policy, "--mock-upstream"});
  ASSERT_TRUE(gw.running());
  double elapsed = 0;
  // burst: pro-batch goes to 40 req/s of gpt-4.1 (80 cost units/s against pro's 20/s).
  const json report = run_loadgen(gw, "burst", "--duration 4s --seed 3", elapsed);
  ASSERT_TRUE(report.is_object());
  const json batch = report.at("by_key").at("pro-batch");
  EXPECT_GT(batch.at("rate_limited").get<int>(), 0) << report.dump();
  EXPECT_GT(report.at("retries").get<int>(), 0);
  EXPECT_GT(report.at("retries_succeeded").get<int>(), 0) << report.dump();
}

TEST(LoadgenCommandLine, BadUsageExits2) {
  expect_usage_errors(
      "loadgen",
      {{"--scenario steady --duration 1s", "--target is required"},
       {"--target http://127.0.0.1:1 --scenario nope --duration 1s", "unknown; known scenarios"},
       {"--target http://127.0.0.1:1 --scenario steady --duration soon", "--duration soon"},
       {"--target 127.0.0.1:1 --scenario steady --duration 1s", "expected http://"},
       {"--target http://127.0.0.1:1 --scenario steady --duration 1s --rate -3", "--rate -3"},
       {"--target http://127.0.0.1:1 --scenario steady --duration 1s --keys 0", "--keys 0"}});
  EXPECT_EQ(run_cli("loadgen --help").exit_code, 0);
}

}  // namespace
}  // namespace limitscope::test
