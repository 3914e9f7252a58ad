// Verifies `limitscope-cli rollout` end to end (issue 19 item 3, label e2e): a real gateway on a
// real redis-server under concurrent HTTP load, a candidate put into shadow, and the rollout
// driven by the CLI with a guard evaluated on the gateway's /metrics. A candidate too strict
// for the traffic refuses requests once enforced, trips the guard and rolls back (every key on
// the live config again, the live config unchanged, every step audited); a benign one completes
// and becomes the live config, and `config undo` returns to the config before it.

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// One tier whose live limit the test's load never reaches.
constexpr const char* kPolicy = R"({
  "tiers": { "big": { "requests": { "algorithm": "token-bucket", "capacity": 1000000, "refill": "1000000/s" } } },
  "models": { "gemini-2.5-flash": { "cost": 1, "price_per_million_tokens": 2.5 },
              "deepseek-v3.2": { "cost": 1, "price_per_million_tokens": 0.42 } },
  "keys": { "k1": "big", "k2": "big", "k3": "big", "k4": "big" }
})";
constexpr const char* kRule = "gw-big";
constexpr const char* kGuard = "sum(gateway_rate_limit_hits_total) > 0";

// Requests from two threads over 8 limited keys until stopped.
class Load {
 public:
  explicit Load(const GatewayProcess& gw) {
    for (int w = 0; w < 2; ++w) {
      threads_.emplace_back([this, url = gw.url(), w] {
        httplib::Client c(url);
        c.set_read_timeout(10);
        const char* models[] = {"gemini-2.5-flash", "deepseek-v3.2"};
        for (int i = 0; !stop_.load(); ++i) {
          const std::string key = "k" + std::to_string(1 + (i + w) % 4);
          c.Post("/v1/chat/completions", {{"Authorization", "Bearer " + key}}, e2e_chat_body(models[i % 2]),
                 "application/json");
        }
      });
    }
  }
  ~Load() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// The actions of a status's history, newest first.
std::vector<std::string> actions_of(const json& status) {
  std::vector<std::string> out;
  for (const auto& e : status["history"]) out.push_back(e["action"]);
  return out;
}

struct Rig {
  std::unique_ptr<RedisServer> server = RedisServer::start();
  std::unique_ptr<GatewayProcess> gw;
  std::string target;
  Rig() {
    gw = std::make_unique<GatewayProcess>(std::vector<std::string>{
        "--policy", write_temp("e2e_rollout_policy.json", kPolicy), "--mock-upstream", "--redis", server->url()});
    target = " --redis " + server->url() + " --rule " + kRule;
  }
  // Puts `candidate` (limit options) into shadow and rolls it out under load with kGuard.
  ProcessResult rollout_under_load(const std::string& candidate, const std::string& steps, const std::string& hold) {
    EXPECT_EQ(run_cli("shadow set" + target + " " + candidate).exit_code, 0);
    Load load(*gw);
    return run_cli("rollout start" + target + " --steps " + steps + " --hold " + hold + " --guard '" + kGuard +
                   "' --metrics " + gw->url() + "/metrics --json");
  }
};

TEST(GatewayRollout, ACandidateTooStrictTripsTheGuardAndRollsBack) {
  Rig rig;
  ASSERT_TRUE(rig.gw->running());
  const ProcessResult r = rig.rollout_under_load("--algorithm token-bucket --capacity 1 --refill 1/min", "100", "10m");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["state"], "rolled_back");
  EXPECT_EQ(j["share_percent"], 0);
  EXPECT_NE(j["reason"].get<std::string>().find("guard tripped at 100% of the keys"), std::string::npos)
      << j["reason"];
  ASSERT_TRUE(j["guard_value"].is_number());
  EXPECT_GT(j["guard_value"].get<double>(), 0);
  EXPECT_EQ(actions_of(j), (std::vector<std::string>{"trip", "start"}));
  // The live config is the one before; the status survives the controller.
  auto live = run_cli("config get" + rig.target + " --json");
  ASSERT_EQ(live.exit_code, 0) << live.err;
  EXPECT_EQ(json::parse(live.out)["limits"][0]["capacity"], 1000000.0);
  auto status = run_cli("rollout status" + rig.target + " --json");
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(json::parse(status.out)["state"], "rolled_back");
}

TEST(GatewayRollout, ABenignCandidateCompletesAndConfigUndoStillWorks) {
  Rig rig;
  ASSERT_TRUE(rig.gw->running());
  const ProcessResult r =
      rig.rollout_under_load("--algorithm token-bucket --capacity 2000000 --refill 2000000/s", "10,50,100", "300ms");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["state"], "completed");
  EXPECT_EQ(actions_of(j), (std::vector<std::string>{"complete", "step", "step", "start"}));
  auto live = run_cli("config get" + rig.target + " --json");
  ASSERT_EQ(live.exit_code, 0);
  EXPECT_EQ(json::parse(live.out)["limits"][0]["capacity"], 2000000.0);
  auto undo = run_cli("config undo" + rig.target + " --json");
  ASSERT_EQ(undo.exit_code, 0) << undo.err;
  auto back = run_cli("config get" + rig.target + " --json");
  EXPECT_EQ(json::parse(back.out)["limits"][0]["capacity"], 1000000.0);
  auto abort = run_cli("rollout abort" + rig.target);
  EXPECT_EQ(abort.exit_code, 1) << "nothing active to abort";
}

}  // namespace
}  // namespace limitscope::test
