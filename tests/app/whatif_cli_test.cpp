// Verifies `limitscope-cli whatif outage` end to end: the documented JSON on a priced trace
// whose outcome is known by hand (a key asking 2/s against a 1/s limit through a one-minute
// outage), and bad input refused with exit 2 naming it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_json.h"
#include "support/process.h"
#include "support/trace_text.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

// Key a asks 2 requests/s of gpt-4.1 (1,000 tokens, $0.008 each) for 5 minutes from
// 2026-12-01 14:00 UTC; the limit admits 1/s after a burst of 10.
std::string trace() {
  const double start = 1'796'133'600;  // 14:00 UTC
  return trace_events(600, 0.5, R"("key": "a", "model": "gpt-4.1", "tokens": 1000)", start);
}

TEST(WhatIfCli, OutageUnderEachMode) {
  const std::string path = write_temp("outage.jsonl", trace());
  const json j =
      cli_json("whatif outage --trace " + quoted(path) +
               " --algorithm token-bucket --capacity 10 --refill 1/s --outage 1m@14:02 --json");
  EXPECT_TRUE(j.at("priced").get<bool>());
  EXPECT_EQ(j.at("replicas"), 1);
  EXPECT_DOUBLE_EQ(j.at("outage_end_s").get<double>() - j.at("outage_start_s").get<double>(), 60);
  EXPECT_EQ(j.at("baseline_in_outage").at("admitted").get<int>() +
                j.at("baseline_in_outage").at("rejected").get<int>(),
            120);
  ASSERT_EQ(j.at("modes").size(), 3u);
  const json& open = j.at("modes")[0];
  EXPECT_EQ(open.at("mode"), "fail-open");
  EXPECT_EQ(open.at("in_outage").at("admitted"), 120);
  // The limit admitted ~60 of the window's 120: fail-open lets ~60 more through, and the
  // bucket nobody drew from meanwhile is full when Redis is back: ~9 more. $0.008 each.
  EXPECT_NEAR(open.at("over_admitted_requests").get<double>(), 69, 2);
  EXPECT_NEAR(open.at("extra_spend_usd").get<double>(),
              open.at("over_admitted_requests").get<double>() * 0.008, 1e-9);
  const json& closed = j.at("modes")[1];
  EXPECT_EQ(closed.at("mode"), "fail-closed");
  EXPECT_EQ(closed.at("in_outage").at("admitted"), 0);
  EXPECT_LT(closed.at("extra_spend_usd").get<double>(), 0);
  EXPECT_EQ(j.at("modes")[2].at("mode"), "local-fallback");

  auto text = run_cli("whatif outage --trace " + quoted(path) +
                      " --algorithm token-bucket --capacity 10 --refill 1/s --outage 1m@14:02");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("fail-open"), std::string::npos) << text.out;
}

TEST(WhatIfCli, BadInputIsAUsageErrorNamingIt) {
  const std::string path = write_temp("outage-bad.jsonl", trace());
  const std::string base = "whatif outage --trace " + quoted(path) +
                           " --algorithm token-bucket --capacity 10 --refill 1/s ";
  struct Row {
    std::string args;
    std::string message;
  };
  const Row rows[] = {
      {base, "--outage D@HH:MM is required"},
      {base + "--outage 1m", "--outage 1m:"},
      {base + "--outage 1m@26:00", "--outage 1m@26:00"},
      {base + "--outage 1m@14:02 --replicas 0", "replicas"},
      {"whatif outage --trace /nonexistent.jsonl --algorithm token-bucket --capacity 10 --refill "
       "1/s --outage 1m@14:02",
       "/nonexistent.jsonl"},
  };
  for (const Row& row : rows) {
    auto r = run_cli(row.args);
    EXPECT_EQ(r.exit_code, 2) << row.args;
    EXPECT_NE(r.err.find(row.message), std::string::npos) << row.args << ": " << r.err;
  }
  EXPECT_EQ(run_cli("whatif outage --help").exit_code, 0);
  EXPECT_EQ(run_cli("whatif --help").exit_code, 0);
  EXPECT_EQ(run_cli("whatif").exit_code, 2);
}

}  // namespace
}  // namespace limitscope::test

namespace limitscope::test {
namespace {

TEST(WhatIfCli, RoutingSmallRequestsToACheaperModel) {
  // Ten small requests (500 tokens), then five large ones (5,000).
  const std::string fields = R"("key": "a", "cost": 8, "model": "gpt-4.1", "tokens": )";
  const std::string t =
      trace_events(10, 0.01, fields + "500") + trace_events(5, 0.01, fields + "5000", 0.1);
  const std::string path = write_temp("routing.jsonl", t);
  const json j =
      cli_json("whatif routing --trace " + quoted(path) +
               " --algorithm token-bucket --capacity 1000 --refill 1/s --under 1000 --to "
               "deepseek-v3.2 --json");
  EXPECT_EQ(j.at("requests_routed"), 10);
  EXPECT_NEAR(j.at("as_was").at("spend_usd").get<double>(), 0.24, 1e-9);
  EXPECT_NEAR(j.at("spend_saved_usd").get<double>(), 0.0379, 1e-9);
  EXPECT_EQ(j.at("extra_429s"), 0);
  auto bad =
      run_cli("whatif routing --trace " + quoted(path) +
              " --algorithm token-bucket --capacity 10 --refill 1/s --under 1000 --to gpt-9");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("gpt-9"), std::string::npos) << bad.err;
  EXPECT_EQ(run_cli("whatif routing --trace " + quoted(path) +
                    " --algorithm token-bucket --capacity 10 --refill 1/s")
                .exit_code,
            2);
}

}  // namespace
}  // namespace limitscope::test
