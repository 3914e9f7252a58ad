// Verifies `limitscope-cli key-names`: the CSV of a policy's named keys by api_key_hash, which
// the dashboard reads back; no raw key printed, not even in an error; exit 2 for bad input.

#include <gtest/gtest.h>

#include <string>

#include "core/common/sha256.h"
#include "core/dashboard/key_names.h"
#include "support/process.h"
#include "support/test_paths.h"

namespace limitscope {
namespace {

const char* const kPolicy = R"({
  "tiers": { "free": { "requests": { "algorithm": "token-bucket", "capacity": 5, "refill": "1/s" } } },
  "models": { "m": { "cost": 1 } },
  "keys": { "sk-acme-secret": { "tier": "free", "name": "acme, \"prod\"" },
            "sk-plain-secret": "free" }
})";

TEST(KeyNamesCli, WritesNamesByHashAndNeverAKey) {
  const std::string policy = test::write_temp("key_names_cli.json", kPolicy);
  const test::ProcessResult r = test::run_cli("key-names --policy " + policy);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "api_key_hash,name\n" + api_key_hash("sk-acme-secret") + ",\"acme, \"\"prod\"\"\"\n");
  EXPECT_EQ(r.out.find("secret"), std::string::npos);
  auto names = parse_key_names_csv(r.out, "stdout");  // what limitscope --key-names reads
  ASSERT_TRUE(names.ok()) << names.error();
  EXPECT_EQ(names->display(sha256_hex("sk-acme-secret")), "acme, \"prod\"");

  const std::string out = test::temp_path("key_names_cli.csv");
  const test::ProcessResult to_file =
      test::run_cli("key-names --policy " + policy + " --out " + out);
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(test::read_file(out), r.out);
}

TEST(KeyNamesCli, BadInputIsExit2WithoutTheKey) {
  const std::string bad = test::write_temp(
      "key_names_bad.json",
      R"({"tiers": {"free": {"requests": {"algorithm": "token-bucket", "capacity": 5, "refill": "1/s"}}},
          "models": {"m": {"cost": 1}}, "keys": {"sk-very-secret": "gold"}})");
  const test::ProcessResult r = test::run_cli("key-names --policy " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("sk-very-secret"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("<key sha256:" + api_key_hash("sk-very-secret") + ">"), std::string::npos)
      << r.err;
  EXPECT_EQ(test::run_cli("key-names").exit_code, 2);
  EXPECT_EQ(test::run_cli("key-names --policy /nonexistent/policy.json").exit_code, 2);
  EXPECT_EQ(test::run_cli("key-names --help").exit_code, 0);
}

}  // namespace
}  // namespace limitscope
