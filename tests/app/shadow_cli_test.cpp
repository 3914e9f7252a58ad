// Verifies `limitscope-cli shadow set|show|clear` against a real redis-server: the shadow is
// stored beside the live config (its own hash and version, the live config untouched), takes
// the `config set` limit options, compare-and-set (exit 1 on a moved version, nothing written),
// audit entries in its own stream, versions that keep rising across a clear, bad input refused
// with exit 2, and `show` counting what the rule's decisions made of the shadow (or saying no
// decision has evaluated it yet).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/rule_config.h"
#include "core/redis/shadow_config.h"
#include "support/cli_usage.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/rule_cli.h"

namespace limitscope {
namespace {

using nlohmann::json;

class ShadowCli : public test::RuleCliTest {
 protected:
  ShadowCli() : RuleCliTest("free") {}
};

TEST_F(ShadowCli, SetShowClearBesideTheLiveConfig) {
  ASSERT_EQ(run("config set", "--algorithm token-bucket --capacity 60 --refill 1/s").exit_code, 0);
  auto set =
      run("shadow set",
          "--algorithm token-bucket --capacity 120 --refill 2/s --reason try --by ann --json");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  json j = json::parse(set.out);
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["shadow"]["limits"][0]["capacity"], 120.0);
  EXPECT_EQ(j["shadow"]["limits"][0]["refill"], "2/s");
  EXPECT_EQ(j["live"]["limits"][0]["capacity"], 60.0);
  EXPECT_EQ(j["evaluated"], false);
  EXPECT_NE(j["note"].get<std::string>().find("not yet evaluated"), std::string::npos);

  // The live config is untouched: same version, same capacity; the shadow has its own hash.
  auto conn = test::connect(*server_);
  const redis::KeySchema schema;
  auto live = redis::get_config(conn, schema, "free");
  ASSERT_TRUE(live.ok() && *live);
  EXPECT_EQ((*live)->version, 1);
  EXPECT_EQ((*live)->limits.front().params.capacity, 60);
  auto shadow = redis::get_shadow(conn, schema, "free");
  ASSERT_TRUE(shadow.ok()) << shadow.error().message;
  ASSERT_TRUE(shadow->config);
  EXPECT_EQ(shadow->config->limits.front().params.capacity, 120);
  EXPECT_EQ(redis::cluster_slot(schema.shadow_key("free")),
            redis::cluster_slot(schema.config_key("free")));

  auto show = run("shadow show", "");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("shadow version 1: token-bucket capacity=120"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("live: version 1: token-bucket capacity=60"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("not yet evaluated"), std::string::npos) << show.out;

  // A window algorithm and a composite take the same options as `config set`.
  auto window = run("shadow set", "--algorithm sliding-log --limit 100 --window 1m --json");
  ASSERT_EQ(window.exit_code, 0) << window.err;
  EXPECT_EQ(json::parse(window.out)["version"], 2);
  auto comp = run("shadow set",
                  "--composite-limit rpm:sliding-log:limit=60:window=1m "
                  "--composite-limit burst:token-bucket:capacity=10:refill=1/s --json");
  ASSERT_EQ(comp.exit_code, 0) << comp.err;
  EXPECT_EQ(json::parse(comp.out)["shadow"]["composite"], true);

  auto clear = run("shadow clear", "--reason done --json");
  ASSERT_EQ(clear.exit_code, 0) << clear.err;
  EXPECT_EQ(json::parse(clear.out)["version"], 4);
  EXPECT_TRUE(json::parse(clear.out)["shadow"].is_null());
  auto gone = run("shadow show", "--json");
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_TRUE(json::parse(gone.out)["shadow"].is_null());
  EXPECT_EQ(json::parse(gone.out)["version"], 4);
  EXPECT_EQ(run("shadow clear", "").exit_code, 1);  // nothing to clear

  // After a clear the versions keep rising: a holder of version 1 cannot write over it.
  auto stale = run("shadow set", "--algorithm gcra --capacity 5 --refill 1/s --expect-version 1");
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_NE(stale.err.find("LSCAS"), std::string::npos) << stale.err;
  auto again =
      run("shadow set", "--algorithm gcra --capacity 5 --refill 1/s --expect-version 4 --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["version"], 5);

  // Every change is in the shadow's own audit stream; the live rule's stream has only its own.
  auto audit = redis::shadow_history(conn, schema, "free", 10);
  ASSERT_TRUE(audit.ok()) << audit.error().message;
  ASSERT_EQ(audit->size(), 5u);
  EXPECT_EQ((*audit)[0].version, 5);
  EXPECT_EQ((*audit)[1].action, "clear");
  EXPECT_EQ((*audit)[1].reason, "done");
  EXPECT_EQ((*audit)[4].action, "set");
  EXPECT_EQ((*audit)[4].by, "ann");
  EXPECT_EQ((*audit)[4].reason, "try");
  EXPECT_EQ((*audit)[4].new_fields.at("capacity"), "120");
  auto live_audit = redis::config_history(conn, schema, "free", 10);
  ASSERT_TRUE(live_audit.ok());
  EXPECT_EQ(live_audit->size(), 1u);
  // ... so `config undo` of the live rule is not disturbed by shadow changes.
  EXPECT_EQ(run("config undo", "").exit_code, 1);  // version 1 created the rule: nothing to undo
}

TEST_F(ShadowCli, MovedVersionAndBadInputChangeNothing) {
  ASSERT_EQ(run("shadow set", "--algorithm token-bucket --capacity 10 --refill 1/s").exit_code, 0);
  auto moved =
      run("shadow set", "--algorithm token-bucket --capacity 11 --refill 1/s --expect-version 0");
  EXPECT_EQ(moved.exit_code, 1);
  EXPECT_EQ(run("shadow clear", "--expect-version 7").exit_code, 1);
  test::expect_usage_errors(
      "shadow set --redis " + server_->url() + " --rule free",
      {
          {"--algorithm token-bucket --capacity 0 --refill 1/s", "capacity"},
          {"--algorithm token-bucket --capacity 5", "needs refill"},
          {"--algorithm leaky-bucket --capacity 5 --refill 1/s", "leaky-bucket"},
          {"--algorithm fixed-window --limit 5 --window 1s --capacity 3",
           "--capacity does not apply"},
          {"--algorithm gcra --capacity 5 --refill 1/s --expect-version x", "--expect-version"},
      },
      /*one_line=*/true);
  EXPECT_EQ(test::run_cli("shadow show --redis " + server_->url() + " --rule 'a{b}'").exit_code, 2);
  EXPECT_EQ(test::run_cli("shadow frobnicate").exit_code, 2);
  auto show = run("shadow show", "--json");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const json j = json::parse(show.out);
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["shadow"]["limits"][0]["capacity"], 10.0);
  EXPECT_TRUE(j["live"].is_null());
}

TEST_F(ShadowCli, ShowCountsWhatTheDecisionsMadeOfTheShadow) {
  ASSERT_EQ(run("config set", "--algorithm token-bucket --capacity 10 --refill 1/min").exit_code,
            0);
  ASSERT_EQ(run("shadow set", "--algorithm token-bucket --capacity 2 --refill 1/min").exit_code, 0);
  for (int i = 0; i < 3; ++i) {
    auto d = run("decide", "--key k --json");
    ASSERT_EQ(d.exit_code, 0) << d.err;
    EXPECT_EQ(json::parse(d.out)["allowed"], true) << "the shadow never enforces";
  }
  auto show = run("shadow show", "--json");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const json j = json::parse(show.out);
  EXPECT_EQ(j["evaluated"], true);
  EXPECT_FALSE(j.contains("note"));
  EXPECT_EQ(j["counts"]["allowed"], 2);
  EXPECT_EQ(j["counts"]["rejected"], 1);
  EXPECT_EQ(j["counts"]["would_reject"], 1);
  EXPECT_EQ(j["counts"]["would_admit"], 0);
  auto text = run("shadow show", "");
  EXPECT_NE(text.out.find("2 allowed, 1 rejected; would reject 1"), std::string::npos) << text.out;
}

TEST(ShadowCliHelp, EverySubcommandHasHelpAndSaysTheShadowIsNeverEnforced) {
  auto top = test::run_cli("shadow --help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("never enforced"), std::string::npos);
  for (const char* sub : {"set", "show", "clear"}) {
    auto h = test::run_cli(std::string("shadow ") + sub + " --help");
    EXPECT_EQ(h.exit_code, 0) << sub;
    EXPECT_NE(h.out.find("--rule"), std::string::npos) << sub;
  }
}

}  // namespace
}  // namespace limitscope
