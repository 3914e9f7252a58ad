// Verifies `limitscope-cli simulate` end to end: byte-identical output for one seed, JSON keys,
// exit 2 with a one-line error naming the input for bad arguments, and --help.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope {
namespace {

using Result = test::ProcessResult;
using test::read_file;
using test::temp_path;

// Runs limitscope-cli with the given arguments (shell words, quoted by the caller).
Result cli(const std::string& args) {
  return test::run_cli(args);
}

TEST(SimulateCli, SameSeedSameBytes) {
  for (const char* extra : {"--json", ""}) {
    const std::string args =
        std::string("simulate --scenario mixed --duration 20s --seed 11 ") + extra;
    const Result a = cli(args);
    const Result b = cli(args);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_FALSE(a.out.empty());
    EXPECT_EQ(a.out, b.out) << extra;
    EXPECT_TRUE(a.err.empty()) << a.err;
  }
  const Result other = cli("simulate --scenario mixed --duration 20s --seed 12 --json");
  EXPECT_NE(other.out, cli("simulate --scenario mixed --duration 20s --seed 11 --json").out);
}

TEST(SimulateCli, JsonDocumentHasTheDocumentedKeys) {
  const Result r = cli("simulate --scenario runaway --duration 10s --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  for (const char* key : {"scenario", "description", "policy", "seed", "duration_s", "step_s",
                          "clients", "incidents", "totals", "series"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc["scenario"], "runaway");
  EXPECT_EQ(doc["seed"], 1);
  ASSERT_EQ(doc["series"].size(), 10u);
  const auto& totals = doc["totals"];
  for (const char* key : {"admitted", "rejected", "degraded", "retries", "gave_up", "llm_tokens",
                          "cost", "spend_usd", "ratio_429", "by_tier", "by_model", "by_key"}) {
    EXPECT_TRUE(totals.contains(key)) << key;
  }
  EXPECT_EQ(totals["by_key"]["loop-bot"]["tier"], "free");
  EXPECT_GT(totals["by_key"]["loop-bot"]["rejected"].get<long long>(), 1000);
  const auto& step = doc["series"][9];
  EXPECT_DOUBLE_EQ(step["t_s"].get<double>(), 10.0);
  for (const char* key : {"admitted", "rejected", "degraded", "retries", "gave_up", "spend_usd",
                          "ratio_429", "by_tier", "by_model", "keys", "incidents"}) {
    EXPECT_TRUE(step.contains(key)) << key;
  }
  ASSERT_FALSE(step["keys"].empty());
  for (const char* key :
       {"api_key", "tier", "model", "algorithm", "level", "occupancy", "admitted", "rejected",
        "degraded", "retries", "cost", "llm_tokens", "spend_usd", "quota_burn"}) {
    EXPECT_TRUE(step["keys"][0].contains(key)) << key;
  }
}

TEST(SimulateCli, ReadsAPolicyFile) {
  const std::string path = temp_path("policy.json");
  std::ofstream(path) << R"({"default_tier": "free",
    "tiers": {"free": {"requests": {"algorithm": "sliding-log", "limit": 100, "window": "10s"}}},
    "models": {"gpt-4.1": {"cost": 8, "price_per_million_tokens": 8},
               "claude-sonnet-4.5": {"cost": 15, "price_per_million_tokens": 15},
               "gemini-2.5-flash": {"cost": 2, "price_per_million_tokens": 2.5},
               "deepseek-v3.2": {"cost": 1, "price_per_million_tokens": 0.42}}})";
  const Result r = cli("simulate --scenario steady --duration 5s --json --policy '" + path + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["policy"], path);
  // Tiers the policy lacks fall back to its default tier.
  for (const auto& [key, row] : doc["totals"]["by_key"].items())
    EXPECT_EQ(row["tier"], "free") << key;
  EXPECT_EQ(doc["series"][0]["keys"][0]["algorithm"], "sliding-log");
  EXPECT_FALSE(doc["series"][0]["keys"][0]["occupancy"].is_null());
}

struct BadArgs {
  const char* args;
  const char* names;  // the input the one-line error must name
};

class SimulateCliBadArgs : public ::testing::TestWithParam<BadArgs> {};

TEST_P(SimulateCliBadArgs, ExitTwoWithOneLineNamingTheInput) {
  const Result r = cli(std::string("simulate ") + GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << GetParam().args;
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // exactly one line
  EXPECT_NE(r.err.find(GetParam().names), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, SimulateCliBadArgs,
    ::testing::Values(BadArgs{"--scenario nope", "nope"}, BadArgs{"", "--scenario"},
                      BadArgs{"--scenario steady --duration 10", "10"},
                      BadArgs{"--scenario steady --duration -5s", "-5s"},
                      BadArgs{"--scenario steady --duration 2d", "2d"},
                      BadArgs{"--scenario steady --seed abc", "abc"},
                      BadArgs{"--scenario steady --seed -1", "-1"},
                      BadArgs{"--scenario steady --policy /nonexistent/policy.json",
                              "/nonexistent/policy.json"},
                      BadArgs{"--scenario steady --bogus", "--bogus"}));

TEST(SimulateCli, InvalidPolicyFileIsNamed) {
  const std::string path = temp_path("bad-policy.json");
  std::ofstream(path)
      << R"({"tiers": {"free": {"requests": {"algorithm": "token-bucket", "capacity": -1, "refill": "1/s"}}}})";
  const Result r = cli("simulate --scenario steady --policy '" + path + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST(SimulateCli, HelpExitsZero) {
  const Result r = cli("simulate --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--scenario"), std::string::npos);
  EXPECT_NE(r.out.find("misconfigured-tenant"), std::string::npos);
}

TEST(SimulateCli, TableListsTiersModelsKeysAndSteps) {
  const Result r = cli("simulate --scenario misconfigured-tenant --duration 5s");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"scenario misconfigured-tenant", "enterprise", "claude-sonnet-4.5",
                        "newco-prod", "admitted", "5s"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace limitscope
