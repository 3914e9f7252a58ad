// Verifies `limitscope-cli replay` and `sweep` end to end: the documented JSON on a small trace
// whose outcome is known by hand, refusal of traces with bad lines (line numbers in the error)
// unless --skip-bad-lines, every sweep cell present with a recommendation under a constraint,
// and bad parameters refused with exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// Ten requests of key a within 90 ms, one of key b: a bucket of 3 admits a's first 3 and b.
std::string small_trace() {
  std::string t;
  for (int i = 0; i < 10; ++i) {
    t += "{\"t\": " + std::to_string(0.01 * i) + ", \"key\": \"a\", \"model\": \"gpt-4.1\", \"tier\": \"free\"}\n";
  }
  t += "{\"t\": 0.5, \"key\": \"b\", \"cost\": 2, \"tier\": \"pro\"}\n";
  return t;
}

TEST(ReplayCli, PrintsCountsByKeyTierAndModel) {
  const std::string path = write_temp("trace.jsonl", small_trace());
  auto r = run_cli("replay --trace " + quoted(path) + " --algorithm token-bucket --capacity 3 --refill 1/s --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
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
  auto w = run_cli("replay --trace " + quoted(csv) + " --algorithm sliding-log --window 1s --limit 1 --json");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(json::parse(w.out)["rejected"], 1);
}

TEST(ReplayCli, BadTracesAndParametersAreRefused) {
  const std::string bad = write_temp("bad.jsonl", "{\"t\": 1, \"key\": \"a\"}\nnonsense\n{\"t\": 0.5, \"key\": \"a\"}\n");
  struct Row {
    std::string args;
    std::string message;
  };
  const Row rows[] = {
      {"--trace " + quoted(bad) + " --algorithm gcra --capacity 5 --refill 1/s",
       "2 bad line(s), nothing replayed (--skip-bad-lines replays the 1 good ones): line 2"},
      {"--trace /nonexistent --algorithm gcra --capacity 5 --refill 1/s", "cannot be read"},
      {"--trace " + quoted(bad) + " --algorithm gcra --capacity 5", "--capacity and --refill are required"},
      {"--trace " + quoted(bad) + " --algorithm gcra --capacity 5 --refill 5", "--refill"},
      {"--trace " + quoted(bad) + " --algorithm gcra --capacity -5 --refill 1/s", "capacity"},
      {"--trace " + quoted(bad) + " --algorithm magic --capacity 5 --refill 1/s", "--algorithm 'magic'"},
      {"--algorithm gcra --capacity 5 --refill 1/s", "--trace FILE (or --redis URL --rule NAME) is required"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.args);
    auto r = run_cli("replay " + row.args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(row.message), std::string::npos) << r.err;
  }
  auto skipped = run_cli("replay --trace " + quoted(bad) + " --algorithm gcra --capacity 5 --refill 1/s --skip-bad-lines --json");
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  const json j = json::parse(skipped.out);
  EXPECT_EQ(j["events"], 1);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("skipped 2 bad trace line(s)"), std::string::npos);
}

TEST(SweepCli, EveryCellAndARecommendation) {
  const std::string path = write_temp("sweep.jsonl", small_trace());
  auto r = run_cli("sweep --trace " + quoted(path) +
                   " --algorithm token-bucket --capacity 1:10:4 --refill 1:20:3 --max-429 0.5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["cells"].size(), 12u);
  EXPECT_EQ(j["cells"][0]["capacity"], 1);
  EXPECT_EQ(j["cells"][0]["refill_per_s"], 1);
  EXPECT_EQ(j["cells"][11]["capacity"], 10);
  EXPECT_EQ(j["cells"][11]["refill_per_s"], 20);
  EXPECT_EQ(j["cells"][11]["rejected"], 0);
  ASSERT_TRUE(j["recommendation"].is_object());
  EXPECT_LE(j["recommendation"]["ratio_429"].get<double>(), 0.5);
  EXPECT_FALSE(j["frontier"].empty());

  auto windows = run_cli("sweep --trace " + quoted(path) + " --algorithm fixed-window --window 1:2:2 --limit 1:5:2 --json");
  ASSERT_EQ(windows.exit_code, 0) << windows.err;
  EXPECT_EQ(json::parse(windows.out)["cells"][0]["window_s"], 1);

  auto bad = run_cli("sweep --trace " + quoted(path) + " --algorithm token-bucket --capacity 10:1:3 --refill 1:2:2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--capacity '10:1:3': needs 0 < MIN <= MAX"), std::string::npos) << bad.err;
}

TEST(ReplayCli, ReadsTheDecisionStreamOfARule) {
  auto server = RedisServer::start();
  redis::RedisUrl url;
  url.port = server->port();
  auto c = redis::Connection::open(url);
  ASSERT_TRUE(c.ok());
  const std::string stream = redis::KeySchema().decisions_key("api");
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(c->command({"XADD", stream, "*", "t", std::to_string(1000 * i), "key", "a", "cost", "1",
                            "allowed", "1", "level", "0"}).ok());
  }
  auto r = run_cli("replay --redis " + server->url() + " --rule api --algorithm token-bucket --capacity 2 --refill 1/s --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["admitted"], 2);
  EXPECT_EQ(j["rejected"], 3);
  EXPECT_EQ(j["tiers"]["api"]["admitted"], 2);
  auto none = run_cli("replay --redis " + server->url() + " --rule empty --algorithm gcra --capacity 2 --refill 1/s");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no events"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace limitscope::test
