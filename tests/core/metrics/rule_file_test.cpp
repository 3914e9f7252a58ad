// Verifies rule-file parsing (YAML and JSON) and Prometheus-compatible validation errors.

#include "core/metrics/rule_file.h"

#include <gtest/gtest.h>

#include "support/test_paths.h"

namespace limitscope::metrics {
namespace {

constexpr const char* kYaml = R"(groups:
  - name: gateway
    interval: 30s
    limit: 5
    rules:
      - record: tier:hits:rate5m
        expr: sum by (tier) (rate(hits_total[5m]))
        labels:
          source: rules
      - alert: Hot
        expr: tier:hits:rate5m > 1
        for: 1h30m
        keep_firing_for: 5m
        labels:
          severity: page
          tier_upper: "{{ $labels.tier | toUpper }}"
        annotations:
          summary: "{{ $value | humanize }} hits/s"
)";

TEST(RuleFile, ParsesYamlGroupsAndRules) {
  auto f = parse_rule_file(kYaml, "rules.yml");
  ASSERT_TRUE(f.ok()) << f.error();
  ASSERT_EQ(f->groups.size(), 1u);
  const RuleGroup& g = f->groups[0];
  EXPECT_EQ(g.name, "gateway");
  EXPECT_EQ(g.interval_ms, 30'000);
  EXPECT_EQ(g.limit, 5u);
  ASSERT_EQ(g.rules.size(), 2u);
  EXPECT_EQ(g.rules[0].kind, RuleKind::recording);
  EXPECT_EQ(g.rules[0].name, "tier:hits:rate5m");
  ASSERT_EQ(g.rules[0].labels.size(), 1u);
  EXPECT_EQ(g.rules[0].labels[0].text, "rules");
  const Rule& a = g.rules[1];
  EXPECT_EQ(a.kind, RuleKind::alerting);
  EXPECT_EQ(a.name, "Hot");
  EXPECT_EQ(a.for_ms, 5'400'000);
  EXPECT_EQ(a.keep_firing_for_ms, 300'000);
  EXPECT_EQ(a.line, 10);
  ASSERT_EQ(a.labels.size(), 2u);
  EXPECT_EQ(a.labels[0].name, "severity");  // sorted by name
  EXPECT_EQ(a.labels[1].name, "tier_upper");
  EXPECT_TRUE(a.labels[1].tmpl.has_actions());
  ASSERT_EQ(a.annotations.size(), 1u);
  ASSERT_NE(a.expr, nullptr);
  EXPECT_EQ(a.expr->type, ValueType::instant_vector);
}

TEST(RuleFile, ParsesTheSameStructureInJson) {
  const char* json = R"js({"groups": [{"name": "g", "rules": [
      {"alert": "A", "expr": "up == 0", "for": "5m", "labels": {"severity": "warning"},
       "annotations": {"summary": "{{ $labels.instance }} down"}},
      {"record": "r", "expr": "sum(up)"}]}]})js";
  auto f = parse_rule_file(json, "rules.json");
  ASSERT_TRUE(f.ok()) << f.error();
  ASSERT_EQ(f->groups.at(0).rules.size(), 2u);
  EXPECT_EQ(f->groups[0].rules[0].for_ms, 300'000);
  EXPECT_EQ(f->groups[0].rules[1].kind, RuleKind::recording);
  EXPECT_FALSE(
      parse_rule_file(R"({"groups": [{"name": "g", "rules": [{"alert": "A"}]}]})", "x.json").ok());
}

TEST(RuleFile, EmptyFileHasNoGroups) {
  auto f = parse_rule_file("", "empty.yml");
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_TRUE(f->groups.empty());
  EXPECT_TRUE(parse_rule_file("groups: []\n", "e.yml").ok());
}

// Found by fuzz/rule_file_fuzz: a group without `rules` read a missing key as a list, which
// yaml-cpp answers with an uncaught YAML::InvalidNode (std::terminate).
TEST(RuleFile, GroupWithoutRulesIsEmptyNotACrash) {
  for (const char* text : {"groups:\n  - name: x\n", "{\"groups\": [{\"name\": \"x\"}]}"}) {
    auto f = parse_rule_file(text, "no-rules.yml");
    ASSERT_TRUE(f.ok()) << f.error();
    ASSERT_EQ(f->groups.size(), 1u);
    EXPECT_EQ(f->groups[0].name, "x");
    EXPECT_TRUE(f->groups[0].rules.empty());
  }
}

struct ErrorRow {
  const char* text;
  const char* expected;  // the whole first error
};

TEST(RuleFile, ErrorsNameFileGroupRuleAndReason) {
  const ErrorRow rows[] = {
      {"groups:\n- name: g\n  rules:\n  - alert: A\n    expr: up\n    for: 1.5m\n",
       "r.yml:6: group \"g\", rule 1 (\"A\"): bad 'for' duration: not a valid duration string: "
       "\"1.5m\""},
      {"groups:\n- name: g\n  rules:\n  - alert: A\n    expr: rate(up[5m]\n",
       "r.yml:5: group \"g\", rule 1 (\"A\"): could not parse expression: "},
      {"groups:\n- name: g\n  rules:\n  - alert: A\n",
       "r.yml:4: group \"g\", rule 1 (\"A\"): field 'expr' must be set in rule"},
      {"groups:\n- name: g\n  rules:\n  - expr: up\n",
       "r.yml:4: group \"g\", rule 1: one of 'record' or 'alert' must be set"},
      {"groups:\n- name: g\n  rules:\n  - alert: A\n    record: r\n    expr: up\n",
       "r.yml:4: group \"g\", rule 1 (\"r\"): only one of 'record' and 'alert' must be set"},
      {"groups:\n- name: g\n  rules:\n  - record: r\n    expr: up\n    for: 5m\n",
       "r.yml:6: group \"g\", rule 1 (\"r\"): invalid field 'for' in recording rule"},
      {"groups:\n- name: g\n  rules:\n  - record: r\n    expr: up\n    keep_firing_for: 5m\n",
       "r.yml:6: group \"g\", rule 1 (\"r\"): invalid field 'keep_firing_for' in recording rule"},
      {"groups:\n- name: g\n  rules:\n  - record: r\n    expr: up\n    annotations: {a: b}\n",
       "r.yml:6: group \"g\", rule 1 (\"r\"): invalid field 'annotations' in recording rule"},
      {"groups:\n- name: g\n  rules:\n  - record: 'bad name'\n    expr: up\n",
       "r.yml:4: group \"g\", rule 1 (\"bad name\"): invalid recording rule name: bad name"},
      {"groups:\n- name: g\n  rules:\n  - alert: A\n    expr: up\n    labels: {__name__: x}\n",
       "r.yml:6: group \"g\", rule 1 (\"A\"): invalid label name: __name__"},
      {"groups:\n- name: g\n  rules:\n  - alert: A\n    expr: up\n    annotations: {'a-b': x}\n",
       "r.yml:6: group \"g\", rule 1 (\"A\"): invalid annotation name: a-b"},
      {"groups:\n- name: g\n  rules:\n  - alert: A\n    expr: up\n    annotations: {s: '{{ nope "
       "}}'}\n",
       "r.yml:6: group \"g\", rule 1 (\"A\"): template annotations.s: line 1, column 4: function "
       "\"nope\" not defined"},
      {"groups:\n- name: g\n  rules:\n  - alert: A\n    expr: up\n    severity: x\n",
       "r.yml:6: group \"g\", rule 1: field severity not found in rulefmt.RuleNode"},
      {"groups:\n- name: g\n  rules: []\n- name: g\n  rules: []\n",
       "r.yml:4: groupname: \"g\" is repeated in the same file"},
      {"groups:\n- rules: []\n", "r.yml:2: Groupname must not be empty"},
      {"groups:\n- name: g\n  interval: 1x\n  rules: []\n",
       "r.yml:3: group \"g\": bad interval: not a valid duration string: \"1x\""},
      {"groups:\n- name: g\n  rules:\n  - alert: A\n    expr: up[5m]\n",
       "r.yml:5: group \"g\", rule 1 (\"A\"): expression must return an instant vector or a "
       "scalar, not a range vector"},
      {"groups: [\n", "r.yml:2: invalid YAML: "},
      {"rules: []\n", "r.yml:1: field rules not found in rulefmt.RuleGroups"},
  };
  for (const auto& r : rows) {
    auto f = parse_rule_file(r.text, "r.yml");
    ASSERT_FALSE(f.ok()) << r.text;
    EXPECT_EQ(f.error().rfind(r.expected, 0), 0u)
        << "got: " << f.error() << "\nwant prefix: " << r.expected;
  }
}

TEST(RuleFile, CountsFurtherErrors) {
  auto f = parse_rule_file("groups:\n- name: g\n  rules:\n  - alert: A\n  - alert: B\n", "r.yml");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().find("(and 1 more errors)"), std::string::npos) << f.error();
}

TEST(RuleFile, DuplicateAlertNamesInAGroupAreAllowed) {
  auto f = parse_rule_file(
      "groups:\n- name: g\n  rules:\n  - alert: A\n    expr: up == 0\n  - alert: A\n    expr: up "
      "== 2\n",
      "r.yml");
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(f->groups[0].rules.size(), 2u);
}

TEST(RuleFile, LoadsTheShippedDefaultRules) {
  auto f = load_rule_file(std::string(LIMITSCOPE_RESOURCES_DIR) + "/alerts/default-rules.yml");
  ASSERT_TRUE(f.ok()) << f.error();
  ASSERT_EQ(f->groups.size(), 1u);
  const auto& rules = f->groups[0].rules;
  ASSERT_EQ(rules.size(), 3u);
  const struct {
    const char* name;
    std::int64_t for_ms;
    const char* severity;
  } want[] = {{"HighRateLimitRejection", 600'000, "warning"},
              {"QuotaBurnAnomaly", 1'800'000, "critical"},
              {"TokenBucketExhausted", 300'000, "warning"}};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(rules[i].name, want[i].name);
    EXPECT_EQ(rules[i].for_ms, want[i].for_ms);
    ASSERT_EQ(rules[i].labels.size(), 1u);
    EXPECT_EQ(rules[i].labels[0].text, want[i].severity);
    EXPECT_EQ(rules[i].annotations.size(), 2u);
  }
  EXPECT_FALSE(load_rule_file("/nonexistent/rules.yml").ok());
}

TEST(RuleFile, NameValidation) {
  EXPECT_TRUE(is_valid_metric_name("tier:hits:rate5m"));
  EXPECT_FALSE(is_valid_metric_name("9lives"));
  EXPECT_TRUE(is_valid_label_name("_x9"));
  EXPECT_FALSE(is_valid_label_name("a:b"));
  EXPECT_FALSE(is_valid_label_name(""));
}

}  // namespace
}  // namespace limitscope::metrics
