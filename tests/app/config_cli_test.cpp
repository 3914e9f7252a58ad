// Verifies `limitscope-cli config set|get|history|undo|override` against a real redis-server:
// JSON keys, compare-and-set (exit 1), invalid values refused with exit 2 and nothing changed,
// undo, --help; one key's override set, kept by `set` within the algorithm, dropped with a note
// when the algorithm changes, removed, and refused on a composite rule or with wrong fields;
// `set --json` lists the overrides it dropped (`dropped_overrides`), and Redis holds none of them.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "support/cli_usage.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/rule_cli.h"

namespace limitscope {
namespace {

using nlohmann::json;
using test::ProcessResult;

class ConfigCli : public test::RuleCliTest {
 protected:
  ConfigCli() : RuleCliTest("pro") {}
  ProcessResult cli(const std::string& sub, const std::string& rest) {
    return run("config " + sub, rest);
  }
  // The rule's config hash field names as Redis holds them (not as the CLI reads them back).
  std::vector<std::string> config_fields() {
    auto c = test::connect(*server_);
    auto r = c.command({"HKEYS", redis::KeySchema().config_key("pro")});
    EXPECT_TRUE(r.ok()) << r.error().message;
    std::vector<std::string> names;
    if (r) {
      for (const auto& e : r->elements) names.push_back(e.str);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  // The hash fields of key `key`'s override (o.<field>.<key>).
  std::size_t override_fields_of(const std::string& key) {
    const auto names = config_fields();
    return static_cast<std::size_t>(std::count_if(
        names.begin(), names.end(),
        [&](const std::string& n) { return n.starts_with("o.") && n.ends_with("." + key); }));
  }
};

TEST_F(ConfigCli, OneKeysOverride) {
  ASSERT_EQ(cli("set", "--algorithm token-bucket --capacity 10 --refill 1/s").exit_code, 0);
  auto o = cli("override", "--key vip --capacity 100 --refill 5/s --reason contract --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json j = json::parse(o.out);
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["overrides"]["vip"]["capacity"], 100.0);
  EXPECT_EQ(j["overrides"]["vip"]["refill"], "5/s");
  EXPECT_EQ(j["limits"][0]["capacity"], 10.0);

  // The rule's limit changes within token-bucket: the override stays.
  auto wider = cli("set", "--algorithm token-bucket --capacity 20 --refill 2/s --json");
  ASSERT_EQ(wider.exit_code, 0) << wider.err;
  EXPECT_EQ(json::parse(wider.out)["overrides"]["vip"]["capacity"], 100.0);

  struct Row {
    std::string args;
    std::string message;
  };
  const Row refused[] = {
      {"--key vip --limit 5 --window 1s", "token-bucket needs capacity"},
      {"--key vip --capacity -1 --refill 1/s", "override of key \"vip\""},
      {"--key vip", "give the key's parameters"},
      {"--key vip --remove --capacity 3", "--remove takes no parameters"},
      {"--capacity 3 --refill 1/s", "--key is required"},
  };
  for (const auto& row : refused) {
    SCOPED_TRACE(row.args);
    auto r = cli("override", row.args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(row.message), std::string::npos) << r.err;
  }
  auto missing = cli("override", "--key nobody --remove");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("key nobody has no override"), std::string::npos) << missing.err;

  auto removed = cli("override", "--key vip --remove --json");
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_TRUE(json::parse(removed.out)["overrides"].empty());
  ASSERT_EQ(cli("override", "--key vip --capacity 50 --refill 1/s").exit_code, 0);

  // Another algorithm drops the override, and says so.
  auto changed = cli("set", "--algorithm sliding-log --limit 60 --window 1m --json");
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_TRUE(json::parse(changed.out)["overrides"].empty());
  EXPECT_NE(changed.err.find("the override of key vip was dropped"), std::string::npos)
      << changed.err;

  ASSERT_EQ(cli("set", "--composite-limit rpm:sliding-log:limit=60:window=1m").exit_code, 0);
  auto composite = cli("override", "--key vip --limit 5 --window 1m");
  EXPECT_EQ(composite.exit_code, 2);
  EXPECT_NE(composite.err.find("is composite"), std::string::npos) << composite.err;
}

// An override key that is not UTF-8 (a limited key is any bytes): history reads both sides of
// each change (--json replaces the bytes with U+FFFD), and undo restores the exact bytes.
// Before, the audit entry's JSON did not parse: history showed "(none)" and undo refused.
TEST_F(ConfigCli, HistoryAndUndoKeepAnOverrideKeyThatIsNotUtf8) {
  const std::string key = "k\xff\xfe";
  ASSERT_EQ(cli("set", "--algorithm token-bucket --capacity 10 --refill 1/s").exit_code, 0);
  ASSERT_EQ(cli("override", "--key '" + key + "' --capacity 100 --refill 5/s").exit_code, 0);
  ASSERT_EQ(cli("override", "--key '" + key + "' --capacity 200 --refill 5/s").exit_code, 0);

  auto h = cli("history", "--json");
  ASSERT_EQ(h.exit_code, 0) << h.err;
  const json entries = json::parse(h.out)["entries"];
  ASSERT_EQ(entries.size(), 3u);
  const std::string shown = "o.capacity.k\uFFFD\uFFFD";
  EXPECT_EQ(entries[0]["new"].value(shown, ""), "200") << h.out;
  EXPECT_EQ(entries[0]["old"].value(shown, ""), "100") << h.out;
  EXPECT_EQ(entries[0]["old"].value("capacity", ""), "10") << h.out;
  auto text = cli("history", "");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // Newest first: version 3 changed the override from 100 to 200.
  const std::string newest = text.out.substr(0, text.out.find("version 2"));
  EXPECT_NE(newest.find("old: token-bucket capacity=10 refill=1/s; override " + key +
                        ": token-bucket capacity=100"),
            std::string::npos)
      << text.out;
  EXPECT_NE(newest.find("override " + key + ": token-bucket capacity=200"), std::string::npos)
      << text.out;

  auto undo = cli("undo", "--json");
  ASSERT_EQ(undo.exit_code, 0) << undo.err;
  auto c = test::connect(*server_);
  auto restored = c.command({"HGET", redis::KeySchema().config_key("pro"), "o.capacity." + key});
  ASSERT_TRUE(restored.ok());
  EXPECT_EQ(restored->str, "100") << "the exact bytes of the key";
  EXPECT_EQ(override_fields_of(key), 3u);
  auto redo = cli("undo", "");
  ASSERT_EQ(redo.exit_code, 0) << redo.err;
  restored = c.command({"HGET", redis::KeySchema().config_key("pro"), "o.capacity." + key});
  ASSERT_TRUE(restored.ok());
  EXPECT_EQ(restored->str, "200");
}

TEST_F(ConfigCli, SetJsonListsTheOverridesItDropped) {
  ASSERT_EQ(cli("set", "--algorithm token-bucket --capacity 10 --refill 1/s").exit_code, 0);
  ASSERT_EQ(cli("override", "--key key-a --capacity 100 --refill 5/s").exit_code, 0);
  ASSERT_EQ(cli("override", "--key key-b --capacity 30 --refill 2/s").exit_code, 0);
  ASSERT_EQ(override_fields_of("key-a"), 3u);  // capacity, refill_amount, refill_period_ns
  ASSERT_EQ(override_fields_of("key-b"), 3u);

  // Same algorithm: nothing dropped, both overrides still in Redis.
  auto same = cli("set", "--algorithm token-bucket --capacity 20 --refill 2/s --json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  const json s = json::parse(same.out);
  ASSERT_TRUE(s.contains("dropped_overrides")) << same.out;
  EXPECT_EQ(s["dropped_overrides"], json::array());
  EXPECT_EQ(s["overrides"].size(), 2u);
  EXPECT_EQ(same.err.find("dropped"), std::string::npos) << same.err;
  EXPECT_EQ(override_fields_of("key-a"), 3u);
  EXPECT_EQ(override_fields_of("key-b"), 3u);

  // Another algorithm: both keys listed, and neither an o.* field nor the count left in Redis.
  auto other = cli("set", "--algorithm fixed-window --limit 60 --window 1m --json");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  const json o = json::parse(other.out);
  EXPECT_EQ(o["dropped_overrides"], (json{"key-a", "key-b"}));
  EXPECT_TRUE(o["overrides"].empty());
  EXPECT_NE(other.err.find("the override of key key-a was dropped"), std::string::npos)
      << other.err;
  EXPECT_NE(other.err.find("the override of key key-b was dropped"), std::string::npos)
      << other.err;
  const auto fields = config_fields();
  ASSERT_FALSE(fields.empty());
  for (const auto& f : fields) {
    EXPECT_FALSE(f.starts_with("o.")) << f;
    EXPECT_NE(f, "overrides");
  }
  auto got = cli("get", "--json");
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_TRUE(json::parse(got.out)["overrides"].empty());
  EXPECT_FALSE(json::parse(got.out).contains("dropped_overrides"));  // a `set` result only
}

TEST_F(ConfigCli, SetGetHistoryUndoWithJson) {
  auto set = cli(
      "set",
      "--algorithm token-bucket --capacity 100 --refill 10/s --reason launch --by alice --json");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  const json s = json::parse(set.out);
  EXPECT_EQ(s["rule"], "pro");
  EXPECT_EQ(s["version"], 1);
  EXPECT_EQ(s["updated_by"], "alice");
  EXPECT_EQ(s["reason"], "launch");
  EXPECT_EQ(s["composite"], false);
  ASSERT_EQ(s["limits"].size(), 1u);
  EXPECT_EQ(s["limits"][0]["algorithm"], "token-bucket");
  EXPECT_EQ(s["limits"][0]["capacity"], 100.0);
  EXPECT_EQ(s["limits"][0]["refill"], "10/s");
  EXPECT_EQ(s["limits"][0]["refill_per_s"], 10.0);
  EXPECT_GT(s["updated_at_ms"].get<std::int64_t>(), 0);

  auto second = cli(
      "set", "--algorithm sliding-log --limit 60 --window 1m --expect-version 1 --by bob --json");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(json::parse(second.out)["limits"][0]["window"], "1m");

  auto got = cli("get", "--json");
  ASSERT_EQ(got.exit_code, 0) << got.err;
  const json g = json::parse(got.out);
  EXPECT_EQ(g["version"], 2);
  EXPECT_EQ(g["limits"][0]["limit"], 60.0);
  EXPECT_EQ(g["limits"][0]["window_ms"], 60000.0);

  auto hist = cli("history", "--json");
  ASSERT_EQ(hist.exit_code, 0) << hist.err;
  const json h = json::parse(hist.out);
  ASSERT_EQ(h["entries"].size(), 2u);
  EXPECT_EQ(h["entries"][0]["version"], 2);
  EXPECT_EQ(h["entries"][0]["by"], "bob");
  EXPECT_EQ(h["entries"][0]["old"]["algorithm"], "token-bucket");
  EXPECT_EQ(h["entries"][0]["new"]["algorithm"], "sliding-log");
  EXPECT_TRUE(h["entries"][1]["old"].empty());

  auto undo = cli("undo", "--by carol --json");
  ASSERT_EQ(undo.exit_code, 0) << undo.err;
  const json u = json::parse(undo.out);
  EXPECT_EQ(u["version"], 3);
  EXPECT_EQ(u["limits"][0]["algorithm"], "token-bucket");
  EXPECT_EQ(u["reason"], "undo of version 2");

  auto text = cli("history", "--count 1");
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("version 3 undo"), std::string::npos) << text.out;
}

TEST_F(ConfigCli, StaleVersionExitsOneAndChangesNothing) {
  ASSERT_EQ(cli("set", "--algorithm gcra --capacity 5 --refill 1/s").exit_code, 0);
  auto stale = cli("set", "--algorithm gcra --capacity 50 --refill 1/s --expect-version 0");
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_NE(stale.err.find("version 1, expected 0"), std::string::npos) << stale.err;
  auto got = cli("get", "--json");
  EXPECT_EQ(json::parse(got.out)["limits"][0]["capacity"], 5.0);
}

// A config that cannot be read (a garbage version written by hand) is replaced only with
// --force: audited, compare-and-set on the version field as read.
TEST_F(ConfigCli, AGarbageVersionIsReplacedOnlyWithForceAndAudited) {
  ASSERT_EQ(cli("set", "--algorithm gcra --capacity 5 --refill 1/s").exit_code, 0);
  auto c = test::connect(*server_);
  ASSERT_TRUE(c.command({"HSET", redis::KeySchema().config_key("pro"), "version", "garbage"}).ok());

  auto refused = cli("set", "--algorithm gcra --capacity 7 --refill 1/s");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  auto forced = cli("set", "--algorithm gcra --capacity 7 --refill 1/s --force --by ops");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  auto got = cli("get", "--json");
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(json::parse(got.out)["limits"][0]["capacity"], 7.0);
  EXPECT_EQ(json::parse(got.out)["version"], 2);  // after the audit stream's newest entry
  auto history = cli("history", "--json");
  ASSERT_EQ(history.exit_code, 0) << history.err;
  const json newest = json::parse(history.out)["entries"][0];
  EXPECT_EQ(newest["by"], "ops");
  EXPECT_NE(newest["reason"].get<std::string>().find("forced over an unreadable config"),
            std::string::npos)
      << history.out;
}

TEST_F(ConfigCli, BadInputExitsTwoWithOneLineAndChangesNothing) {
  ASSERT_EQ(cli("set", "--algorithm gcra --capacity 5 --refill 1/s").exit_code, 0);
  test::expect_usage_errors(
      "config set --redis " + server_->url() + " --rule pro",
      {
          {"--algorithm token-bucket --capacity -100 --refill 10/s",
           "capacity must be a finite number > 0, got -100"},
          {"--algorithm token-bucket --capacity 100 --refill 10", "refill"},
          {"--algorithm token-bucket --capacity abc --refill 10/s",
           "capacity \"abc\" is not a number"},
          {"--algorithm leaky-bucket --capacity 10 --refill 1/s", "leaky-bucket is not available"},
          {"--algorithm fixed-window --limit 10", "needs window"},
          {"--algorithm token-bucket --capacity 10 --refill 1/s --window 1m",
           "--window does not apply"},
          {"--algorithm nope --capacity 10 --refill 1/s", "algorithm \"nope\""},
          {"--algorithm gcra --capacity 10 --refill 1/s --expect-version x", "--expect-version"},
          {"--composite-limit rpm:sliding-log:limit=60", "needs window"},
          {"--composite-limit rpm", "NAME:ALGORITHM"},
      },
      /*one_line=*/true);
  auto got = cli("get", "--json");
  EXPECT_EQ(json::parse(got.out)["version"], 1);
  auto bad_rule = test::run_cli("config get --redis " + server_->url() + " --rule 'a{b}'");
  EXPECT_EQ(bad_rule.exit_code, 2);
  auto no_url = test::run_cli("config get --rule pro");
  EXPECT_EQ(no_url.exit_code, 2);
  auto unknown = test::run_cli("config frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
}

TEST_F(ConfigCli, CompositeAndNothingToUndo) {
  auto set = cli("set",
                 "--composite-limit rpm:sliding-log:limit=60:window=1m "
                 "--composite-limit tpm:token-bucket:capacity=100000:refill=100000/min --json");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  const json s = json::parse(set.out);
  EXPECT_EQ(s["composite"], true);
  ASSERT_EQ(s["limits"].size(), 2u);
  EXPECT_EQ(s["limits"][1]["name"], "tpm");
  auto undo = cli("undo", "");
  EXPECT_EQ(undo.exit_code, 1);
  EXPECT_NE(undo.err.find("no earlier config"), std::string::npos) << undo.err;
  auto none = test::run_cli("config get --redis " + server_->url() + " --rule nobody");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("has no config"), std::string::npos);
}

TEST(ConfigCliHelp, EverySubcommandHasHelp) {
  for (const char* sub : {"", "set ", "get ", "history ", "undo "}) {
    auto r = test::run_cli(std::string("config ") + sub + "--help");
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_NE(r.out.find("usage"), std::string::npos) << sub << r.out;
  }
}

}  // namespace
}  // namespace limitscope
