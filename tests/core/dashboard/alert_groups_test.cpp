// Verifies the alerts table's grouping in core: one group per rule and evaluator, worst first,
// its count, and the worst alert named by the key's display name (the key-names join), with
// "worst" following the side the rule alerts on (the lowest level for "x < c", the highest
// rate for "x > c").

#include "core/dashboard/alert_groups.h"

#include <gtest/gtest.h>

#include "core/common/sha256.h"
#include "core/dashboard/alert_view.h"
#include "core/metrics/promql.h"
#include "core/sources/session_state.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {
namespace {

constexpr std::int64_t kMin = 60'000;
constexpr std::int64_t kT0 = 1'800'000'000'000 - 1'800'000'000'000 % kMin;

TEST(AlertGroups, TheSideARuleAlertsOnComesFromItsExpression) {
  const std::pair<const char*, std::optional<bool>> cases[] = {
      {"x > 0.5", true},         {"x >= 1", true},
      {"0.5 < x", true},         {"x < 0.1", false},
      {"(x <= 2)", false},       {"10 > rate(x[5m])", false},
      {"x == 1", std::nullopt},  {"x > bool 1", std::nullopt},
      {"x > y", std::nullopt},   {"x", std::nullopt},
      {"up == 0", std::nullopt},
  };
  for (const auto& [text, want] : cases) {
    auto e = metrics::parse_promql(text);
    ASSERT_TRUE(e.ok()) << text << ": " << e.error();
    EXPECT_EQ(metrics::alerts_when_higher(**e), want) << text;
  }
}

TEST(AlertGroups, OneGroupPerRuleWorstFirstNamedByItsKeysName) {
  SessionOptions o;
  o.rules_source = "groups.yml";
  o.rules_text = R"(groups:
  - name: g
    interval: 1m
    rules:
      - alert: NearlyEmpty
        expr: limitscope_key_level_ratio < 0.1
      - alert: Rejecting
        expr: limitscope_tier_rejected_per_second > 0.5
        for: 10m
)";
  auto made = SessionState::create(o);
  ASSERT_TRUE(made.ok()) << made.error();
  SessionState& s = **made;
  const std::string acme = sha256_hex("sk-acme").substr(0, 32);
  const std::string beta = sha256_hex("sk-beta").substr(0, 32);
  const std::string gamma = sha256_hex("sk-gamma").substr(0, 32);
  KeyNames names;
  ASSERT_TRUE(names.set(acme, "acme-prod"));
  ASSERT_TRUE(names.set(beta, "beta-staging"));
  s.set_names(std::move(names));
  const auto level = [](const std::string& key) {
    return metrics::Labels{{"__name__", std::string(dashboard_series::kKeyLevel)},
                           {"api_key", key},
                           {"tier", "free"},
                           {"model", "gpt-4.1"}};
  };
  const auto rejected = [](const std::string& tier) {
    return metrics::Labels{{"__name__", std::string(dashboard_series::kTierRejectedRate)},
                           {"tier", tier}};
  };
  // Three keys nearly empty (beta the emptiest), one well; two tiers rejecting (pro more).
  ASSERT_TRUE(s.append(level(acme), {kT0, 0.05}));
  ASSERT_TRUE(s.append(level(beta), {kT0, 0.01}));
  ASSERT_TRUE(s.append(level(gamma), {kT0, 0.08}));
  ASSERT_TRUE(s.append(level("well"), {kT0, 0.9}));
  ASSERT_TRUE(s.append(rejected("free"), {kT0, 2}));
  ASSERT_TRUE(s.append(rejected("pro"), {kT0, 40}));
  (void)s.evaluate(kT0);
  DashboardSnapshot snap;
  s.fill(snap, ChartView{kT0, kT0, 100, 8, {}}, kT0);
  ASSERT_EQ(snap.alerts.size(), 5u);

  const std::vector<AlertGroup> groups = group_alerts(snap.alerts);
  ASSERT_EQ(groups.size(), 2u);
  // NearlyEmpty fires (no `for`); Rejecting is pending: the firing group comes first.
  EXPECT_EQ(groups[0].rule, "NearlyEmpty");
  EXPECT_EQ(groups[0].members.size(), 3u);
  EXPECT_EQ(groups[0].active, 3u);
  EXPECT_EQ(snap.alerts[groups[0].worst()].value, 0.01)
      << "the lowest level is the worst for \"<\"";
  EXPECT_EQ(worst_entity(groups[0], snap.alerts), "beta-staging") << "named by the key-names join";
  EXPECT_EQ(snap.alerts[groups[0].members[1]].entity, "acme-prod");
  EXPECT_EQ(snap.alerts[groups[0].members[2]].entity, gamma.substr(0, kKeyHashDigits))
      << "no name: its short hash";

  EXPECT_EQ(groups[1].rule, "Rejecting");
  EXPECT_EQ(groups[1].members.size(), 2u);
  EXPECT_EQ(snap.alerts[groups[1].worst()].value, 40) << "the highest rate is the worst for \">\"";
  EXPECT_EQ(worst_entity(groups[1], snap.alerts), "tier pro")
      << "about no one key: its tier, not a label set";
}

TEST(AlertGroups, StateBeforeValueAndTheOriginKeepsServersApart) {
  const auto row = [](std::string rule, AlertState st, double v, std::string origin = "") {
    AlertRow a;
    a.rule = std::move(rule);
    a.state = st;
    a.value = v;
    a.higher_is_worse = true;
    a.origin = std::move(origin);
    a.since_ms = kT0;
    return a;
  };
  const std::vector<AlertRow> rows{
      row("R", AlertState::pending, 99), row("R", AlertState::firing, 1),
      row("R", AlertState::no_data, 5), row("R", AlertState::firing, 3, "prometheus"),
      row("A", AlertState::resolved, 7)};
  const auto groups = group_alerts(rows);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].rule, "R");
  EXPECT_EQ(groups[0].origin, "");
  EXPECT_EQ(groups[0].members, (std::vector<std::size_t>{1, 0, 2}))
      << "firing, then pending, then no data";
  EXPECT_EQ(groups[1].origin, "prometheus");
  EXPECT_EQ(groups[2].rule, "A") << "a resolved group last";
  EXPECT_EQ(groups[2].active, 0u);
  EXPECT_TRUE(group_alerts({}).empty());
}

// The one ordering every view uses: the panel's rows (alert_view) as the groups.
TEST(AlertGroups, OneOrderFiringPendingNoDataResolvedInactive) {
  const AlertState order[] = {AlertState::firing, AlertState::pending, AlertState::no_data,
                              AlertState::resolved, AlertState::inactive};
  for (std::size_t i = 0; i + 1 < std::size(order); ++i) {
    EXPECT_LT(alert_severity_rank(order[i]), alert_severity_rank(order[i + 1]))
        << to_string(order[i]);
  }
}

// What an operator reads for an alert, from its labels: the key by name, else the tier as the
// rule says it, else the model; a row without an entity (an old recording) by its labels.
TEST(AlertGroups, AnAlertIsNamedByKeyOrTierNeverByItsLabelSet) {
  const std::string acme = sha256_hex("sk-acme").substr(0, 32);
  KeyNames names;
  ASSERT_TRUE(names.set(acme, "acme-prod"));
  using L = metrics::Labels;
  EXPECT_EQ(alert_subject(L{{"api_key", acme}, {"tier", "free"}}, &names), "acme-prod");
  EXPECT_EQ(alert_subject(L{{"api_key_hash", acme.substr(0, 12)}, {"model", "gpt-4.1"}}, &names),
            "acme-prod");
  EXPECT_EQ(alert_subject(L{{"api_key", acme}}, nullptr), acme.substr(0, kKeyHashDigits))
      << "no names: the short hash";
  EXPECT_EQ(alert_subject(L{{"model", ""}, {"tier", "gw-free"}}, &names), "tier gw-free");
  EXPECT_EQ(alert_subject(L{{"model", "gpt-4.1"}, {"tier", "free"}}, &names),
            "tier free · gpt-4.1");
  EXPECT_EQ(alert_subject(L{{"model", "gpt-4.1"}}, &names), "model gpt-4.1");
  EXPECT_EQ(alert_subject(L{{"instance", "gw:8080"}}, &names), "") << "about the rule as a whole";

  AlertRow recorded;  // a recording made before tier alerts had an entity
  recorded.labels = R"({model="", tier="gw-free"})";
  EXPECT_EQ(alert_display_name(recorded), "tier gw-free");
  recorded.labels = R"({instance="gw:8080"})";
  EXPECT_EQ(alert_display_name(recorded), R"({instance="gw:8080"})")
      << "nothing to name it by: the labels";
  recorded.labels = "{}";
  EXPECT_EQ(alert_display_name(recorded), "");
  recorded.labels = "{not a label set";
  EXPECT_EQ(alert_display_name(recorded), "{not a label set")
      << "unreadable labels are shown as they are";
  recorded.entity = "campus-tutor";
  EXPECT_EQ(alert_display_name(recorded), "campus-tutor");
}

}  // namespace
}  // namespace limitscope
