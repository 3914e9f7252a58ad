// Verifies the tuner's promise end to end (label e2e): a setting applied to the live limiter
// in Redis (config set: the write the Tuner tab's Apply makes) and the same trace then played
// open loop through limitscope-gateway (loadgen --trace) gives the 429s `replay` predicted for
// that setting, and not those of the setting it replaced.
//
// Tolerance, per key: 2 decisions, plus what the setting refills during the run's largest send
// lag. The gateway decides on Redis's clock when a request arrives, not at the trace's
// instant; a request that leaves late (the loader's scheduling, a busy machine) can find one
// more token, or one less for the next. The total a key gets over the run is bounded by
// capacity + refill × elapsed either way, so lateness moves a key's count by the refill over the
// lag, not by an unbounded amount.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "support/child_process.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// One tier whose only limit is requests, one model of cost 1: every trace event costs 1 in
// the gateway, as it does in the replay.
constexpr const char* kPolicy = R"({
  "tiers": { "tuned": { "requests": { "algorithm": "token-bucket", "capacity": 30, "refill": "10/s" } } },
  "models": { "m1": { "cost": 1, "price_per_million_tokens": 1 } },
  "keys": { "k-steady": "tuned", "k-bursty": "tuned", "k-runaway": "tuned" }
})";

// 6 s: a steady key at 2/s, a bursty key (two bursts of 20, 10 ms apart), a runaway at 25/s.
std::string trace_jsonl() {
  struct Event {
    double t;
    const char* key;
  };
  std::vector<Event> events;
  for (int i = 0; i < 12; ++i) events.push_back({0.25 + 0.5 * i, "k-steady"});
  for (int i = 0; i < 20; ++i) events.push_back({1.0 + 0.01 * i, "k-bursty"});
  for (int i = 0; i < 20; ++i) events.push_back({4.0 + 0.01 * i, "k-bursty"});
  for (int i = 0; i < 150; ++i) events.push_back({0.02 + 0.04 * i, "k-runaway"});
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.t < b.t; });
  std::ostringstream out;
  for (const Event& e : events) {
    out << json{{"t", 1'700'000'000.0 + e.t},
                {"key", e.key},
                {"cost", 1},
                {"model", "m1"},
                {"tier", "tuned"}}
               .dump()
        << "\n";
  }
  return out.str();
}

json run_json(const std::string& args) {
  const ProcessResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return json::parse(r.out.empty() ? "{}" : r.out);
}

std::map<std::string, int> predicted_rejections(const std::string& trace, double capacity,
                                                const std::string& refill) {
  const json j =
      run_json("replay --trace " + quoted(trace) + " --algorithm token-bucket --capacity " +
               std::to_string(capacity) + " --refill " + refill + " --json");
  std::map<std::string, int> out;
  for (const auto& [key, k] : j.at("keys").items()) out[key] = k.at("rejected").get<int>();
  return out;
}

TEST(TunerPredictionE2E, AppliedSettingGivesThePredicted429sThroughTheGateway) {
  auto redis = RedisServer::start();
  ASSERT_NE(redis, nullptr);
  const std::string policy = write_temp("tuner_e2e_policy.json", kPolicy);
  const std::string trace = write_temp("tuner_e2e_trace.jsonl", trace_jsonl());
  // Fail closed with a generous timeout: a slow Redis on a busy machine shows as 503s (which
  // the test refuses), never as admissions nobody predicted.
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", redis->url(),
                     "--redis-failure-mode", "closed", "--redis-timeout", "2s"});
  ASSERT_TRUE(gw.running());

  const auto current = predicted_rejections(trace, 30, "10/s");
  const auto candidate = predicted_rejections(trace, 8, "3/s");
  ASSERT_EQ(candidate.size(), 3u);
  // The candidate limits the burst and the runaway much harder than the current setting.
  EXPECT_EQ(candidate.at("k-steady"), 0);
  EXPECT_GT(candidate.at("k-bursty"), current.at("k-bursty") + 10);
  EXPECT_GT(candidate.at("k-runaway"), current.at("k-runaway") + 30);

  // Apply: the gateway wrote its policy's rule at start; the tuner replaces it in Redis.
  const ProcessResult set =
      run_cli("config set --redis " + quoted(redis->url()) +
              " --rule gw-tuned --algorithm token-bucket --capacity 8 --refill 3/s"
              " --reason 'tuner e2e' --by e2e --json");
  ASSERT_EQ(set.exit_code, 0) << set.err;

  const json load =
      run_json("loadgen --target " + gw.url() + " --trace " + quoted(trace) + " --json");
  ASSERT_TRUE(load.contains("by_key")) << load.dump();
  EXPECT_EQ(load.at("sent").get<int>(), 202);
  EXPECT_EQ(load.at("transport_errors").get<int>(), 0);
  const double lag_s = load.at("max_send_lag_ms").get<double>() / 1000.0;
  const int tolerance = 2 + static_cast<int>(std::ceil(3.0 * lag_s));
  int actual_total = 0;
  int predicted_total = 0;
  for (const auto& [key, predicted] : candidate) {
    const json k = load.at("by_key").at(key);
    EXPECT_EQ(k.at("other").get<int>(), 0) << key << ": " << k.dump();
    const int actual = k.at("rate_limited").get<int>();
    EXPECT_LE(std::abs(actual - predicted), tolerance)
        << key << ": gateway 429s " << actual << ", predicted " << predicted
        << " (current setting would give " << current.at(key) << "), max send lag " << lag_s
        << " s";
    std::printf("%-10s predicted 429s %3d (current setting %3d), gateway %3d, tolerance %d\n",
                key.c_str(), predicted, current.at(key), actual, tolerance);
    actual_total += actual;
    predicted_total += predicted;
  }
  int current_total = 0;
  for (const auto& [key, n] : current) current_total += n;
  // The run followed the applied setting, not the one it replaced.
  EXPECT_LT(std::abs(actual_total - predicted_total), std::abs(actual_total - current_total));
}

}  // namespace
}  // namespace limitscope::test
