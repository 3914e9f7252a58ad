// Verifies key names: our schema's limited keys split into key, model and limit; names joined
// on the first 12 hex digits of a key's hash from a CSV file and from limitscope_key_info
// series; line-numbered CSV errors; and chart legends and alerts that say the name, with no
// two lines of a chart under one label.

#include "core/dashboard/key_names.h"

#include <gtest/gtest.h>

#include <set>

#include "core/dashboard/alert_view.h"
#include "core/dashboard/dashboard_charts.h"
#include "core/metrics/alert_engine.h"
#include "core/metrics/rule_file.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {
namespace {

const std::string kHash32 = "014badae33b80a3786c4b116e54d1c66";

struct SplitRow {
  std::string rest, limit_name;
  std::string key, model, limit;
};

class SplitLimitedKey : public ::testing::TestWithParam<SplitRow> {};

TEST_P(SplitLimitedKey, KeyModelAndLimitApart) {
  const SplitRow& r = GetParam();
  const LimitedKeyParts p = split_limited_key(r.rest, r.limit_name);
  EXPECT_EQ(p.api_key, r.key);
  EXPECT_EQ(p.model, r.model);
  EXPECT_EQ(p.limit, r.limit);
}

INSTANTIATE_TEST_SUITE_P(
    Keys, SplitLimitedKey,
    ::testing::Values(SplitRow{kHash32 + ":deepseek-v3.2:requests", "requests", kHash32,
                               "deepseek-v3.2", "requests"},
                      SplitRow{kHash32 + ":gpt-4.1:llm_tokens", "llm_tokens", kHash32, "gpt-4.1",
                               "llm_tokens"},
                      SplitRow{kHash32 + ":ft:gpt-4:acme:requests", "requests", kHash32,
                               "ft:gpt-4:acme", "requests"},
                      SplitRow{kHash32 + ":openai/gpt-4.1", "", kHash32, "openai/gpt-4.1", ""},
                      SplitRow{"alice", "", "alice", "", ""},
                      SplitRow{"alice:requests", "requests", "alice", "", "requests"},
                      SplitRow{"0123:m", "", "0123:m", "", ""}));

TEST(KeyNames, JoinsOnTheFirstTwelveHexDigits) {
  KeyNames names;
  ASSERT_TRUE(names.set("014BADAE33B8", "acme-prod"));
  EXPECT_FALSE(names.set("014bad", "short"));
  EXPECT_FALSE(names.set("not-a-hash-at-all", "x"));
  EXPECT_EQ(names.display(kHash32), "acme-prod");
  EXPECT_EQ(names.display(kHash32 + ":gpt-4.1"), "acme-prod");
  EXPECT_EQ(names.display("014badae33b8"), "acme-prod");
  EXPECT_EQ(names.display("ffffffffffffffffffffffffffffffff"),
            "ffffffffffff");                         // unnamed: the short hash
  EXPECT_EQ(names.display("rl:alice"), "rl:alice");  // not a hash: as is
}

TEST(KeyNames, CsvWithHeaderQuotesCommentsAndLineNumberedErrors) {
  auto ok = parse_key_names_csv(
      "api_key_hash,name\n# comment\n\n014badae33b8,acme-prod\r\naaaaaaaaaaaaaaaa,\"beta, "
      "\"\"inc\"\"\"\n",
      "n.csv");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok->size(), 2u);
  EXPECT_EQ(ok->display(kHash32), "acme-prod");
  EXPECT_EQ(ok->display("aaaaaaaaaaaa"), "beta, \"inc\"");

  struct Bad {
    const char* text;
    const char* error;
  };
  for (const Bad& b :
       {Bad{"014badae33b8,acme\nxyz,beta\n", "n.csv:2: \"xyz\" is not an api_key_hash"},
        Bad{"014badae33b8\n", "n.csv:1: expected two fields"},
        Bad{"014badae33b8,a,b\n", "n.csv:1: expected two fields"},
        Bad{"014badae33b8,\"open\n", "n.csv:1: malformed CSV"},
        Bad{"014badae33b8,\n", "n.csv:1: a name must be 1 to 128 characters"}}) {
    auto r = parse_key_names_csv(b.text, "n.csv");
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_EQ(r.error().rfind(b.error, 0), 0u) << r.error();
  }
  EXPECT_NE(load_key_names_file("/nonexistent/names.csv").error().find("/nonexistent/names.csv"),
            std::string::npos);
}

TEST(KeyNames, TakesNamesFromKeyInfoSeries) {
  metrics::SeriesStore store;
  ASSERT_TRUE(store
                  .append({{"__name__", "limitscope_key_info"},
                           {"api_key_hash", "014badae33b8"},
                           {"name", "acme-prod"},
                           {"tier", "pro"}},
                          {1000, 1})
                  .ok());
  ASSERT_TRUE(store
                  .append({{"__name__", "limitscope_key_info"},
                           {"api_key_hash", "bbbbbbbbbbbb"},
                           {"name", ""},
                           {"tier", "free"}},
                          {1000, 1})
                  .ok());
  KeyNames names;
  names.set("014badae33b8", "from-file");
  names.join_key_info(store);
  EXPECT_EQ(names.display(kHash32), "acme-prod");  // the gateway's name wins over the file's
  EXPECT_EQ(names.find("bbbbbbbbbbbb"), nullptr);  // no name: none invented
}

TEST(KeyNames, LegendsSayTheNameAndNeverRepeatALabel) {
  metrics::SeriesStore store;
  KeyNames names;
  names.set("014badae33b8", "acme-prod");
  names.set("aaaaaaaaaaaa", "acme-prod");  // two keys, one name
  for (const std::string& key : {kHash32, std::string("aaaaaaaaaaaa") + std::string(20, '1')}) {
    for (const char* limit : {"requests", "llm_tokens"}) {
      metrics::Labels l{{"__name__", std::string(dashboard_series::kKeyLevel)},
                        {"api_key", key},
                        {"tier", "gw-pro"},
                        {"model", "gpt-4.1"},
                        {"limit", limit}};
      ASSERT_TRUE(store.append(l, {1000, 0.5}).ok());
    }
  }
  ChartView view;
  view.start_ms = 0;
  view.end_ms = 2000;
  const ChartData c = bucket_level_chart(store, view, &names);
  ASSERT_EQ(c.lines.size(), 4u);
  std::set<std::string> labels;
  for (const ChartLine& l : c.lines) {
    EXPECT_EQ(l.name.rfind("acme-prod / gpt-4.1 / ", 0), 0u) << l.name;
    labels.insert(l.name);
  }
  EXPECT_EQ(labels.size(), 4u) << "two lines share a label";
}

TEST(KeyNames, AlertsNameTheKeyTheyAreAbout) {
  metrics::SeriesStore store;
  auto rules = metrics::parse_rule_file(R"(groups:
  - name: g
    interval: 15s
    rules:
      - alert: LimiterKeyNearlyEmpty
        expr: limitscope_key_level_ratio < 0.1
        annotations:
          summary: "{{ $labels.api_key }} is nearly empty"
)",
                                        "r.yml");
  ASSERT_TRUE(rules.ok()) << rules.error();
  metrics::AlertEngine engine(store, std::move(rules->groups));
  ASSERT_TRUE(store
                  .append({{"__name__", "limitscope_key_level_ratio"},
                           {"api_key", kHash32},
                           {"tier", "gw-pro"}},
                          {15'000, 0.01})
                  .ok());
  engine.evaluate_due(15'000);
  KeyNames names;
  names.set(kHash32.substr(0, 12), "acme-prod");
  std::vector<AlertRow> rows;
  std::vector<AlertInterval> intervals;
  alert_view(*engine.snapshot(), 15'000, rows, intervals, &names);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].entity, "acme-prod");
  EXPECT_EQ(rows[0].summary, "acme-prod is nearly empty");
}

}  // namespace
}  // namespace limitscope
