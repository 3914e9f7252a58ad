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
#include "support/prometheus_process.h"
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
          c.Post("/v1/chat/completions", {{"Authorization", "Bearer " + key}},
                 e2e_chat_body(models[i % 2]), "application/json");
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
    gw = std::make_unique<GatewayProcess>(
        std::vector<std::string>{"--policy", write_temp("e2e_rollout_policy.json", kPolicy),
                                 "--mock-upstream", "--redis", server->url()});
    target = " --redis " + server->url() + " --rule " + kRule;
  }
  // Puts `candidate` (limit options) into shadow and rolls it out under load with kGuard.
  // `source`: the guard's source option (default: the gateway's /metrics).
  ProcessResult rollout_under_load(const std::string& candidate, const std::string& steps,
                                   const std::string& hold, std::string source = {}) {
    EXPECT_EQ(run_cli("shadow set" + target + " " + candidate).exit_code, 0);
    if (source.empty()) source = "--metrics " + gw->url() + "/metrics";
    Load load(*gw);
    return run_cli("rollout start" + target + " --steps " + steps + " --hold " + hold +
                   " --guard '" + kGuard + "' " + source + " --json");
  }
};

TEST(GatewayRollout, ACandidateTooStrictTripsTheGuardAndRollsBack) {
  Rig rig;
  ASSERT_TRUE(rig.gw->running());
  const ProcessResult r =
      rig.rollout_under_load("--algorithm token-bucket --capacity 1 --refill 1/min", "100", "10m");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["state"], "rolled_back");
  EXPECT_EQ(j["share_percent"], 0);
  EXPECT_NE(j["reason"].get<std::string>().find("guard tripped at 100% of the keys"),
            std::string::npos)
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
  const ProcessResult r = rig.rollout_under_load(
      "--algorithm token-bucket --capacity 2000000 --refill 2000000/s", "10,50,100", "300ms");
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

TEST(GatewayRollout, AGuardOnAPrometheusServerTripsAndRollsBack) {
  Rig rig;
  ASSERT_TRUE(rig.gw->running());
  const PrometheusProcess prometheus =
      PrometheusProcess::start("rollout-prometheus", rig.gw->port());
  ASSERT_NE(prometheus.process, nullptr);
  // Wait for the event "Prometheus is ready and has scraped the gateway": the query is asked
  // again after each scrape.
  ASSERT_TRUE(prometheus.recheck_on_scrapes([&] {
    auto r = run_cli("probe --prometheus " + prometheus.base_url + " --query 'up == 1' --json");
    return r.exit_code == 0 && !json::parse(r.out).at("series").empty();
  })) << prometheus.process->stderr_text();
  // A held step (10m) never completes here: only the guard, evaluated by Prometheus on its
  // scrapes of the gateway, ends the rollout.
  const ProcessResult r =
      rig.rollout_under_load("--algorithm token-bucket --capacity 1 --refill 1/min", "100", "10m",
                             "--prometheus " + prometheus.base_url);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["state"], "rolled_back");
  EXPECT_EQ(j["source"], "prometheus=" + prometheus.base_url);
  ASSERT_TRUE(j["guard_value"].is_number());
  EXPECT_GT(j["guard_value"].get<double>(), 0);
  EXPECT_EQ(actions_of(j), (std::vector<std::string>{"trip", "start"}));

  // An expression Prometheus refuses is a usage error before anything is enforced.
  auto bad = run_cli("rollout start" + rig.target + " --steps 100 --guard 'sum(' --prometheus " +
                     prometheus.base_url);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("the guard cannot be evaluated"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("bad_data"), std::string::npos) << bad.err;
  EXPECT_EQ(json::parse(run_cli("rollout status" + rig.target + " --json").out)["state"],
            "rolled_back");
}

TEST(GatewayRollout, PauseFreezesTheHoldAndResumeContinuesToCompletion) {
  Rig rig;
  ASSERT_TRUE(rig.gw->running());
  ASSERT_EQ(run_cli("shadow set" + rig.target +
                    " --algorithm token-bucket --capacity 2000000 --refill 2000000/s")
                .exit_code,
            0);
  const std::string guard =
      " --guard '" + std::string(kGuard) + "' --metrics " + rig.gw->url() + "/metrics";
  auto started = run_cli("rollout start" + rig.target +
                         " --steps 10,100 --hold 1s --detach --by alice" + guard);
  ASSERT_EQ(started.exit_code, 0) << started.err;
  auto paused = run_cli("rollout pause" + rig.target + " --by bob --reason 'checking' --json");
  ASSERT_EQ(paused.exit_code, 0) << paused.err;
  const json p = json::parse(paused.out);
  EXPECT_EQ(p["state"], "paused");
  EXPECT_EQ(p["share_percent"], 10);
  EXPECT_LE(p["hold_left_ms"].get<std::int64_t>(), 1000);
  EXPECT_EQ(p["started_by"], "alice");
  const json st = json::parse(run_cli("rollout status" + rig.target + " --json").out);
  EXPECT_EQ(st["state"], "paused");
  EXPECT_EQ(st["hold_left_ms"], p["hold_left_ms"]) << "frozen while paused";
  EXPECT_EQ(run_cli("rollout pause" + rig.target).exit_code, 1) << "already paused";
  // resume: continues step 1 with the rest of its hold, then 100%, then completes.
  auto resumed = run_cli("rollout resume" + rig.target + " --by carol --json");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  const json j = json::parse(resumed.out);
  EXPECT_EQ(j["state"], "completed");
  EXPECT_EQ(actions_of(j),
            (std::vector<std::string>{"complete", "step", "resume", "pause", "start"}));
  EXPECT_EQ(j["history"][2]["by"], "carol");
  EXPECT_EQ(j["history"][3]["by"], "bob");
}

}  // namespace
}  // namespace limitscope::test
