// Verifies `limitscope-cli replay` and `sweep` end to end: the documented JSON on a small trace
// whose outcome is known by hand, refusal of traces with bad lines (line numbers in the error)
// unless --skip-bad-lines, every sweep cell present with a recommendation under a constraint,
// and bad parameters refused with exit 2; spend in dollars (tokens at the policy's prices, or
// an assumed count), the worst key's minute and the quota timeline in replay's JSON; a sweep's
// spend constraint, refused in words when the trace has no prices; the advice (first guess,
// spend limit against --current, edge of the grid) as the Tuner tab prints it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "support/cli_json.h"
#include "support/cli_usage.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/trace_text.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// Ten requests of key a within 90 ms, one of key b: a bucket of 3 admits a's first 3 and b.
std::string small_trace() {
  return trace_events(10, 0.01, R"("key": "a", "model": "gpt-4.1", "tier": "free")") +
         "{\"t\": 0.5, \"key\": \"b\", \"cost\": 2, \"tier\": \"pro\"}\n";
}

TEST(ReplayCli, PrintsCountsByKeyTierAndModel) {
  const std::string path = write_temp("trace.jsonl", small_trace());
  const json j = cli_json("replay --trace " + quoted(path) +
                          " --algorithm token-bucket --capacity 3 --refill 1/s --json");
  EXPECT_EQ(j["admitted"], 4);
  EXPECT_EQ(j["rejected"], 7);
  EXPECT_EQ(j["keys"]["a"]["admitted"], 3);
  EXPECT_EQ(j["keys"]["a"]["rejected"], 7);
  EXPECT_EQ(j["keys"]["b"]["admitted"], 1);
  EXPECT_EQ(j["tiers"]["pro"]["admitted_cost"], 2);
  EXPECT_EQ(j["models"]["gpt-4.1"]["rejected"], 7);
  EXPECT_EQ(j["largest_burst_admitted"], 4);  // all keys within one second
  EXPECT_EQ(j["events"], 11);

  const std::string csv = write_temp("trace.csv", "t,key,cost\n0,a,1\n0.1,a,1\n");
  auto w = run_cli("replay --trace " + quoted(csv) +
                   " --algorithm sliding-log --window 1s --limit 1 --json");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(json::parse(w.out)["rejected"], 1);
}

// Key a: 10 gpt-4.1 requests of 1,000,000 tokens ($8 each) in the first second; key b: one
// deepseek-v3.2 request of 500,000 tokens ($0.21) a minute later.
std::string priced_trace() {
  return trace_events(10, 0.01, R"("key": "a", "cost": 8, "model": "gpt-4.1", "tokens": 1000000)") +
         "{\"t\": 61, \"key\": \"b\", \"model\": \"deepseek-v3.2\", \"tokens\": 500000}\n";
}

TEST(ReplayCli, SpendInDollarsTheWorstKeysMinuteAndTheQuotaTimeline) {
  const std::string path = write_temp("priced.jsonl", priced_trace());
  // A bucket of 24 cost units admits a's first three requests (8 each) and b's.
  const json j =
      cli_json("replay --trace " + quoted(path) +
               " --algorithm token-bucket --capacity 24 --refill 1/s --timeline-step 30s --json");
  EXPECT_EQ(j["keys"]["a"]["admitted"], 3);
  EXPECT_DOUBLE_EQ(j["keys"]["a"]["spend_usd"].get<double>(), 24.0);
  EXPECT_DOUBLE_EQ(j["spend_usd"].get<double>(), 24.21);
  const json& s = j["spend"];
  EXPECT_TRUE(s["priced"].get<bool>());
  EXPECT_DOUBLE_EQ(s["worst_key_usd_per_min"].get<double>(), 24.0);
  EXPECT_EQ(s["worst_key"], "a");
  EXPECT_EQ(s["worst_minute_t_s"], 0);
  EXPECT_EQ(s["unpriced_requests"], 0);
  ASSERT_EQ(j["timeline"].size(), 3u);  // 0-30 s, 30-60 s, 60-90 s
  EXPECT_EQ(j["timeline_step_s"], 30);
  EXPECT_EQ(j["timeline"][0]["admitted"], 3);
  EXPECT_EQ(j["timeline"][0]["rejected"], 7);
  // a is unknown to the policy, so on the default tier free: 24 of 1,000 cost units.
  EXPECT_DOUBLE_EQ(j["timeline"][0]["max_quota_burn"].get<double>(), 0.024);
  EXPECT_DOUBLE_EQ(j["timeline"][2]["spend_usd"].get<double>(), 0.21);

  // Without token counts the spend is unknown, said so, and an assumption prices it.
  const std::string plain = write_temp("plain.jsonl", small_trace());
  const json uj = cli_json("replay --trace " + quoted(plain) +
                           " --algorithm token-bucket --capacity 3 --refill 1/s --json");
  EXPECT_FALSE(uj["spend"]["priced"].get<bool>());
  EXPECT_NE(uj["spend"]["unpriced_reason"].get<std::string>().find("11 carry no token count"),
            std::string::npos);
  auto a = run_cli(
      "replay --trace " + quoted(plain) +
      " --algorithm token-bucket --capacity 3 --refill 1/s --tokens-per-request 1000 --json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const json aj = json::parse(a.out);
  EXPECT_TRUE(aj["spend"]["priced"].get<bool>());
  EXPECT_DOUBLE_EQ(aj["spend_usd"].get<double>(), 3 * 1000 * 8.0 / 1e6);  // a's 3 admitted gpt-4.1
  EXPECT_NE(aj["spend"]["unpriced_reason"].get<std::string>().find("(none given)"),
            std::string::npos);

  for (const char* bad : {"--tokens-per-request -1", "--tokens-per-request lots",
                          "--policy /nonexistent", "--timeline-step 0s"}) {
    SCOPED_TRACE(bad);
    auto b = run_cli("replay --trace " + quoted(path) +
                     " --algorithm gcra --capacity 5 --refill 1/s " + bad);
    EXPECT_EQ(b.exit_code, 2);
    EXPECT_NE(b.err.find(std::string(bad).substr(0, std::string(bad).find(' '))), std::string::npos)
        << b.err;
  }
}

TEST(SweepCli, SpendConstraint) {
  const std::string path = write_temp("priced_sweep.jsonl", priced_trace());
  // Capacities 8, 16, 24, 32: the worst key's minute costs $8 per 8 units of capacity.
  const json j = cli_json(
      "sweep --trace " + quoted(path) +
      " --algorithm token-bucket --capacity 8:32:4:lin --refill 1:1:1 --max-key-spend 20 --json");
  EXPECT_TRUE(j["priced"].get<bool>());
  ASSERT_EQ(j["cells"].size(), 4u);
  EXPECT_DOUBLE_EQ(j["cells"][2]["worst_key_usd_per_min"].get<double>(), 24.0);
  ASSERT_TRUE(j["recommendation"].is_object());
  EXPECT_EQ(j["recommendation"]["capacity"], 8);  // the cheapest under $20 a minute
  auto tight = run_cli("sweep --trace " + quoted(path) +
                       " --algorithm token-bucket --capacity 8:32:4:lin "
                       "--refill 1:1:1 --max-key-spend 20 --max-429 0.5 --json");
  ASSERT_EQ(tight.exit_code, 0) << tight.err;
  EXPECT_TRUE(json::parse(tight.out)["recommendation"].is_null());  // 429s above half at $16

  const std::string plain = write_temp("plain_sweep.jsonl", small_trace());
  auto refused =
      run_cli("sweep --trace " + quoted(plain) +
              " --algorithm token-bucket --capacity 1:10:2 --refill 1:2:2 --max-key-spend 5");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--max-key-spend: a spend limit needs prices"), std::string::npos)
      << refused.err;
}

TEST(ReplayCli, BadTracesAndParametersAreRefused) {
  const std::string bad = write_temp(
      "bad.jsonl", "{\"t\": 1, \"key\": \"a\"}\nnonsense\n{\"t\": 0.5, \"key\": \"a\"}\n");
  expect_usage_errors(
      "replay",
      {
          {"--trace " + quoted(bad) + " --algorithm gcra --capacity 5 --refill 1/s",
           "2 bad line(s), nothing replayed (--skip-bad-lines replays the 1 good ones): line 2"},
          {"--trace /nonexistent --algorithm gcra --capacity 5 --refill 1/s", "cannot be read"},
          {"--trace " + quoted(bad) + " --algorithm gcra --capacity 5",
           "--capacity and --refill are required"},
          {"--trace " + quoted(bad) + " --algorithm gcra --capacity 5 --refill 5", "--refill"},
          {"--trace " + quoted(bad) + " --algorithm gcra --capacity -5 --refill 1/s", "capacity"},
          {"--trace " + quoted(bad) + " --algorithm magic --capacity 5 --refill 1/s",
           "--algorithm 'magic'"},
          {"--algorithm gcra --capacity 5 --refill 1/s",
           "--trace FILE (or --redis URL --rule NAME) is required"},
      });
  auto skipped = run_cli("replay --trace " + quoted(bad) +
                         " --algorithm gcra --capacity 5 --refill 1/s --skip-bad-lines --json");
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  const json j = json::parse(skipped.out);
  EXPECT_EQ(j["events"], 1);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("skipped 2 bad trace line(s)"),
            std::string::npos);
}

TEST(SweepCli, EveryCellAndARecommendation) {
  const std::string path = write_temp("sweep.jsonl", small_trace());
  const json j =
      cli_json("sweep --trace " + quoted(path) +
               " --algorithm token-bucket --capacity 1:10:4 --refill 1:20:3 --max-429 0.5 --json");
  ASSERT_EQ(j["cells"].size(), 12u);
  EXPECT_EQ(j["cells"][0]["capacity"], 1);
  EXPECT_EQ(j["cells"][0]["refill_per_s"], 1);
  EXPECT_EQ(j["cells"][11]["capacity"], 10);
  EXPECT_EQ(j["cells"][11]["refill_per_s"], 20);
  EXPECT_EQ(j["cells"][11]["rejected"], 0);
  ASSERT_TRUE(j["recommendation"].is_object());
  EXPECT_LE(j["recommendation"]["ratio_429"].get<double>(), 0.5);
  EXPECT_FALSE(j["frontier"].empty());

  auto windows = run_cli("sweep --trace " + quoted(path) +
                         " --algorithm fixed-window --window 1:2:2 --limit 1:5:2 --json");
  ASSERT_EQ(windows.exit_code, 0) << windows.err;
  EXPECT_EQ(json::parse(windows.out)["cells"][0]["window_s"], 1);

  auto bad = run_cli("sweep --trace " + quoted(path) +
                     " --algorithm token-bucket --capacity 10:1:3 --refill 1:2:2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--capacity '10:1:3': needs 0 < MIN <= MAX"), std::string::npos)
      << bad.err;
}

// Key k sends cost 1 every 100 ms for 100 s (exactly 10/s).
std::string steady_trace() {
  return trace_events(1000, 0.1, R"("key": "k")");
}

TEST(SweepCli, AdvisesWithTheSpendLimitTheGridsEdgeAndAFirstGuess) {
  const std::string path = write_temp("steady.jsonl", steady_trace());
  // Without axes: a log grid around the first guess (10 in its busiest second, 10/s).
  const json g = cli_json("sweep --trace " + quoted(path) +
                          " --algorithm token-bucket --steps 5 --max-429 0.001 --json");
  EXPECT_EQ(g["cells"].size(), 25u);
  EXPECT_EQ(g["spacing"][0], "log");
  EXPECT_EQ(g["first_guess"]["setting"], "token-bucket capacity 10, refill 10/s");
  ASSERT_TRUE(g["recommendation"].is_object());
  EXPECT_TRUE(g["advice"]["spend_cap"].is_null());  // no --current: no spend limit

  // The current setting admits 100; every setting meeting ≤ 0.1% 429s admits 1,000: excluded.
  const std::string grid =
      " --algorithm token-bucket --capacity 1:4:3:lin --refill 10:40:3:lin --max-429 0.001";
  const json c = cli_json("sweep --trace " + quoted(path) + grid + " --current 1,1 --json");
  EXPECT_TRUE(c["recommendation"].is_null());
  EXPECT_DOUBLE_EQ(c["advice"]["spend_cap"].get<double>(), 110.0);
  EXPECT_EQ(c["advice"]["excluded_by_spend"]["refill_per_s"], 10);
  EXPECT_EQ(c["advice"]["current"]["admitted"], 100);
  // The excluded cell is on the refill axis's low end: widen the range downward.
  ASSERT_EQ(c["advice"]["edges"].size(), 1u);
  EXPECT_EQ(c["advice"]["edges"][0]["axis"], "refill");
  EXPECT_EQ(c["advice"]["edges"][0]["end"], "low");

  auto text =
      run_cli("sweep --trace " + quoted(path) + grid + " --current 1,1 --max-spend-increase 10");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Recommended ★: token-bucket capacity 1, refill 10/s."),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("(the current setting: 100 cost units, +900%; limit +1,000%)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("widen the range downward"), std::string::npos) << text.out;

  for (const char* bad :
       {"--current 1", "--current 0,1", "--max-spend-increase -1", "--refill 1:2:2"}) {
    auto b = run_cli("sweep --trace " + quoted(path) + " --algorithm token-bucket " + bad);
    EXPECT_EQ(b.exit_code, 2) << bad;
  }
}

TEST(ReplayCli, ReadsTheDecisionStreamOfARule) {
  auto server = RedisServer::start();
  auto c = redis::Connection::open(server->redis_url());
  ASSERT_TRUE(c.ok());
  const std::string stream = redis::KeySchema().decisions_key("api");
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(c->command({"XADD", stream, "*", "t", std::to_string(1000 * i), "key", "a", "cost",
                            "1", "allowed", "1", "level", "0"})
                    .ok());
  }
  const json j = cli_json("replay --redis " + server->url() +
                          " --rule api --algorithm token-bucket --capacity 2 --refill 1/s --json");
  EXPECT_EQ(j["admitted"], 2);
  EXPECT_EQ(j["rejected"], 3);
  EXPECT_EQ(j["tiers"]["api"]["admitted"], 2);
  auto none = run_cli("replay --redis " + server->url() +
                      " --rule empty --algorithm gcra --capacity 2 --refill 1/s");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no events"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace limitscope::test
