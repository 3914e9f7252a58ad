// Verifies the shadow's fidelity (issue 19, label e2e): a real gateway on a real redis-server,
// every decision logged (--log-decisions 1), a candidate config put into shadow with the CLI and
// concurrent HTTP load from the test. What the shadow counted (`shadow show`, the gateway's
// limitscope_shadow_* metrics, the decision stream's `shadow` field) equals what
// `limitscope-cli replay` computes with the candidate's parameters on the same decision stream.
//
// Tolerance: none, the counts must be equal. They can be, because the shadow is the same Lua
// as the live decision (decide.lua is checked against core/limiter to the ns,
// tests/core/redis/redis_limiter_test.cpp and shadow_eval_test.cpp), it is evaluated on the
// same request at the same server instant that the stream records (`t`, µs; the core decides at
// t·1000 ns), on fresh state keys of its own, and every decision of the rule is logged in the
// order Redis ran them. Sampling below 1, a stream trimmed by MAXLEN, or a shadow set while
// the rule's keys were mid-burst (the replay starts every key full, the shadow's states too)
// would each break the equality; the test has none of them.

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/exposition_sums.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// The candidate: far stricter than the enterprise tier's 500 and 200/s, so it refuses part of
// a burst the live limit admits whole.
constexpr const char* kCandidate = "--algorithm token-bucket --capacity 5 --refill 2/s";
constexpr const char* kRule = "gw-enterprise";

TEST(GatewayShadowFidelity, TheShadowsCountsEqualAReplayOfTheCandidateOnTheSameStream) {
  auto server = RedisServer::start();
  ASSERT_NE(server, nullptr);
  GatewayProcess gw = e2e_logging_gateway(*server, "e2e_shadow_policy.json");
  ASSERT_TRUE(gw.running());
  const std::string target = " --redis " + server->url() + " --rule " + kRule;
  auto set =
      run_cli(std::string("shadow set") + target + " " + kCandidate + " --reason fidelity --json");
  ASSERT_EQ(set.exit_code, 0) << set.err;

  // Concurrent requests (the gateway coalesces them into batches that repeat keys) over four
  // limited keys (one API key, four models of costs 1 to 3).
  const char* models[] = {"gpt-4.1", "claude-sonnet-4.5", "gemini-2.5-flash", "deepseek-v3.2"};
  std::atomic<int> ok{0}, other{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      httplib::Client c(gw.url());
      c.set_read_timeout(10);
      for (int i = 0; i < 40; ++i) {
        auto r = c.Post("/v1/chat/completions", {{"Authorization", "Bearer enterprise-bank"}},
                        e2e_chat_body(models[(w + i) % 4]), "application/json");
        (r && r->status == 200 ? ok : other)++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 160) << "the shadow never enforces: the live limit admits all";
  EXPECT_EQ(other.load(), 0);

  auto show = run_cli("shadow show" + target + " --json");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const json counts = json::parse(show.out)["counts"];
  const long long rejected = counts["rejected"].get<long long>();
  EXPECT_EQ(counts["allowed"].get<long long>() + rejected, 160);
  EXPECT_GT(rejected, 0)
      << "the candidate must refuse part of the load for the test to mean something";
  EXPECT_EQ(counts["would_reject"].get<long long>(), rejected)
      << "the live limit admitted every request";
  EXPECT_EQ(counts["would_admit"].get<long long>(), 0);

  // The replay of the candidate on the same decision stream.
  auto replay = run_cli("replay" + target + " " + kCandidate + " --json");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const json r = json::parse(replay.out);
  EXPECT_EQ(r["events"].get<long long>(), 160);
  EXPECT_EQ(r["rejected"].get<long long>(), rejected) << replay.out;
  EXPECT_EQ(r["admitted"].get<long long>(), counts["allowed"].get<long long>());

  // The gateway's metrics and the stream say the same.
  httplib::Client c(gw.url());
  auto m = c.Get("/metrics");
  ASSERT_TRUE(m && m->status == 200);
  EXPECT_EQ(sum_samples(m->body, "limitscope_shadow_decisions_total",
                        {{"rule", kRule}, {"decision", "rejected"}}),
            static_cast<double>(rejected));
  EXPECT_EQ(sum_samples(m->body, "limitscope_shadow_decisions_total",
                        {{"rule", kRule}, {"decision", "allowed"}}),
            static_cast<double>(160 - rejected));
  EXPECT_EQ(sum_samples(m->body, "limitscope_shadow_disagreements_total",
                        {{"rule", kRule}, {"kind", "would_reject"}}),
            static_cast<double>(rejected));
  auto conn = connect(*server);
  auto entries = conn.command({"XRANGE", redis::KeySchema().decisions_key(kRule), "-", "+"});
  ASSERT_TRUE(entries && entries->is_array());
  long long logged_rejected = 0;
  for (const auto& e : entries->elements) {
    const auto& kv = e.elements[1].elements;
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) {
      if (kv[i].str == "shadow" && kv[i + 1].str == "0") ++logged_rejected;
    }
  }
  EXPECT_EQ(logged_rejected, rejected);
}

}  // namespace
}  // namespace limitscope::test
