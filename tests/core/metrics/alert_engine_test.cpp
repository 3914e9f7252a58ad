// Verifies the alert engine's state machine and timing against hand-computed timelines
// (Prometheus 2.42 rules/alerting.go semantics), recording rules, scheduling and snapshots.

#include "core/metrics/alert_engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <optional>
#include <thread>

namespace limitscope::metrics {
namespace {

constexpr std::int64_t kMin = 60'000;

RuleGroup group_from(const char* yaml) {
  auto f = parse_rule_file(yaml, "test.yml");
  EXPECT_TRUE(f.ok()) << f.error();
  return f.ok() ? f->groups.at(0) : RuleGroup{};
}

// Writes one gauge sample per minute: value, or nothing for nullopt.
void feed(SeriesStore& store, const Labels& l, const std::vector<std::optional<double>>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i]) store.append(l, Sample{static_cast<std::int64_t>(i) * kMin, *values[i]});
  }
}

struct Step {
  std::int64_t t_min;
  std::optional<AlertState> state;  // nullopt: no alert listed
  std::optional<std::int64_t> active_at_min;
  std::optional<std::int64_t> fired_at_min;
  std::optional<std::int64_t> resolved_at_min;
};

void check_timeline(AlertEngine& engine, const std::vector<Step>& steps) {
  for (const Step& s : steps) {
    engine.evaluate_all(s.t_min * kMin);
    const auto alerts = engine.alerts_of(0, 0);
    SCOPED_TRACE("t=" + std::to_string(s.t_min) + "m");
    if (!s.state) {
      EXPECT_TRUE(alerts.empty()) << alert_state_name(alerts.front().state);
      continue;
    }
    ASSERT_EQ(alerts.size(), 1u);
    const Alert& a = alerts[0];
    EXPECT_EQ(a.state, *s.state);
    if (s.active_at_min) {
      EXPECT_EQ(a.active_at_ms, *s.active_at_min * kMin);
    }
    EXPECT_EQ(a.fired_at_ms, s.fired_at_min ? std::optional(*s.fired_at_min * kMin) : std::nullopt);
    EXPECT_EQ(a.resolved_at_ms,
              s.resolved_at_min ? std::optional(*s.resolved_at_min * kMin) : std::nullopt);
  }
}

constexpr const char* kLowRule = R"(groups:
- name: g
  rules:
  - alert: Low
    expr: level < 10
    for: 2m
)";

TEST(AlertEngine, PendingThenFiringAfterForThenResolvedAndForgotten) {
  SeriesStore store;
  // level < 10 at 1m..4m (active_at 1m, fires at 3m because 3m - 1m >= 2m), resolved at 5m.
  feed(store, Labels{{"__name__", "level"}},
       {50, 5, 5, 5, 5, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50});
  AlertEngine engine(store, {group_from(kLowRule)});
  using S = AlertState;
  check_timeline(engine, {
                             {0, std::nullopt, {}, {}, {}},
                             {1, S::pending, 1, {}, {}},
                             {2, S::pending, 1, {}, {}},
                             {3, S::firing, 1, 3, {}},
                             {4, S::firing, 1, 3, {}},
                             {5, S::inactive, 1, 3, 5},
                             // kept for 15 minutes after resolution, dropped once t - 5m > 15m
                             {20, S::inactive, 1, 3, 5},
                             {21, std::nullopt, {}, {}, {}},
                         });
}

TEST(AlertEngine, PendingAlertThatDisappearsIsDroppedAndRestarts) {
  SeriesStore store;
  feed(store, Labels{{"__name__", "level"}}, {5, 5, 50, 5, 5, 5});
  AlertEngine engine(store, {group_from(kLowRule)});
  using S = AlertState;
  check_timeline(engine, {{0, S::pending, 0, {}, {}},
                          {1, S::pending, 0, {}, {}},
                          {2, std::nullopt, {}, {}, {}},
                          {3, S::pending, 3, {}, {}},
                          {5, S::firing, 3, 5, {}}});
}

TEST(AlertEngine, ZeroForFiresAtTheFirstEvaluation) {
  SeriesStore store;
  feed(store, Labels{{"__name__", "level"}}, {5});
  AlertEngine engine(
      store, {group_from("groups:\n- name: g\n  rules:\n  - alert: Low\n    expr: level < 10\n")});
  check_timeline(engine, {{0, AlertState::firing, 0, 0, {}}});
}

TEST(AlertEngine, KeepFiringForHoldsAFiringAlert) {
  SeriesStore store;
  // firing at 0; condition false from 1m: keep_firing_since = 1m, kept while t - 1m < 2m
  // (1m, 2m), resolved at 3m. A condition true again at 5m starts a new alert.
  feed(store, Labels{{"__name__", "up"}}, {0, 1, 1, 1, 1, 0, 1, 0, 0});
  AlertEngine engine(store, {group_from(R"(groups:
- name: g
  rules:
  - alert: Down
    expr: up == 0
    keep_firing_for: 2m
)")});
  using S = AlertState;
  check_timeline(engine, {{0, S::firing, 0, 0, {}},
                          {1, S::firing, 0, 0, {}},
                          {2, S::firing, 0, 0, {}},
                          {3, S::inactive, 0, 0, 3},
                          {5, S::firing, 5, 5, {}},
                          {6, S::firing, 5, 5, {}},
                          {7, S::firing, 5, 5, {}}});
  const auto a = engine.alerts_of(0, 0);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_FALSE(a[0].keep_firing_since_ms.has_value());  // reset when the series returned
}

TEST(AlertEngine, KeepFiringDoesNotApplyToPendingAlerts) {
  SeriesStore store;
  feed(store, Labels{{"__name__", "up"}}, {0, 1});
  AlertEngine engine(store, {group_from(R"(groups:
- name: g
  rules:
  - alert: Down
    expr: up == 0
    for: 5m
    keep_firing_for: 10m
)")});
  check_timeline(engine, {{0, AlertState::pending, 0, {}, {}}, {1, std::nullopt, {}, {}, {}}});
}

TEST(AlertEngine, LabelsAndAnnotationsAreTemplated) {
  SeriesStore store;
  store.append(Labels{{"__name__", "level"}, {"tier", "free"}, {"key", "k1"}}, Sample{0, 2.5});
  AlertEngineOptions opts;
  opts.external_labels = Labels{{"region", "eu"}};
  AlertEngine engine(store, {group_from(R"y(groups:
- name: g
  rules:
  - alert: Low
    expr: level < 10
    labels:
      tier: "{{ $labels.tier | toUpper }}"
      key: ""
      where: "{{ $externalLabels.region }}"
    annotations:
      summary: "{{ $labels.key }} at {{ $value }} ({{ .Labels.__name__ }})"
      broken: '{{ humanize "x" }}'
)y")},
                     opts);
  engine.evaluate_all(0);
  const auto a = engine.alerts_of(0, 0);
  ASSERT_EQ(a.size(), 1u);
  // An expansion to "" deletes the label, as labels.Builder.Set does.
  EXPECT_EQ(a[0].labels, (Labels{{"alertname", "Low"}, {"tier", "FREE"}, {"where", "eu"}}));
  EXPECT_EQ(a[0].annotations.get("summary"), "k1 at 2.5 (level)");
  EXPECT_EQ(a[0].annotations.get("broken").rfind("<error expanding template: ", 0), 0u);
  EXPECT_DOUBLE_EQ(a[0].value, 2.5);
}

TEST(AlertEngine, RecordingRulesFeedLaterRulesAndGoStale) {
  SeriesStore store;
  const Labels a{{"__name__", "hits"}, {"tier", "free"}};
  const Labels b{{"__name__", "hits"}, {"tier", "pro"}};
  store.append(a, Sample{0, 4});
  store.append(b, Sample{0, 1});
  store.append(a, Sample{kMin, 4});  // pro vanishes after 0 (lookback keeps it until 5m)
  AlertEngine engine(store, {group_from(R"(groups:
- name: g
  rules:
  - record: tier:hits:doubled
    expr: hits * 2
    labels:
      source: rec
  - alert: Many
    expr: tier:hits:doubled > 5
)")});
  engine.evaluate_all(0);
  auto v = evaluate(**parse_promql("tier:hits:doubled"), store, 0);
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->vector.size(), 2u);
  EXPECT_EQ(v->vector[0].labels,
            (Labels{{"__name__", "tier:hits:doubled"}, {"source", "rec"}, {"tier", "free"}}));
  EXPECT_EQ(v->vector[0].value, 8);
  EXPECT_EQ(engine.alerts_of(0, 1).size(), 1u);  // the alert read the series recorded just before
  // At 6m the pro input (last sample at 0) is past the 5m lookback while free's (1m) is not:
  // pro's recorded series gets a stale marker, so it disappears at once instead of
  // lingering for 5 minutes.
  engine.evaluate_all(6 * kMin);
  v = evaluate(**parse_promql("tier:hits:doubled"), store, 6 * kMin + 1000);
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->vector.size(), 1u);
  EXPECT_EQ(v->vector[0].labels.get("tier"), "free");
  auto raw = store.select(std::vector<LabelMatcher>{*LabelMatcher::make("__name__", MatchOp::equal,
                                                                        "tier:hits:doubled")},
                          0, 6 * kMin);
  ASSERT_EQ(raw.size(), 2u);
  EXPECT_EQ(raw[1].labels.get("tier"), "pro");
  EXPECT_TRUE(is_stale_marker(raw[1].samples.back().value));
  EXPECT_EQ(raw[1].samples.back().t_ms, 6 * kMin);
}

TEST(AlertEngine, WritesAlertsSeriesForPendingAndFiring) {
  SeriesStore store;
  feed(store, Labels{{"__name__", "level"}}, {5, 5, 5, 5});
  AlertEngine engine(store, {group_from(kLowRule)});
  for (int m = 0; m <= 3; ++m) engine.evaluate_all(m * kMin);
  auto pending = evaluate(**parse_promql("ALERTS{alertstate=\"pending\"}"), store, kMin);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->vector.size(), 1u);
  auto firing = evaluate(**parse_promql("ALERTS{alertstate=\"firing\"}"), store, 3 * kMin);
  ASSERT_TRUE(firing.ok());
  ASSERT_EQ(firing->vector.size(), 1u);
  // The pending series went stale when the alert fired.
  auto gone = evaluate(**parse_promql("ALERTS{alertstate=\"pending\"}"), store, 3 * kMin);
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(gone->vector.empty());
  auto for_state = evaluate(**parse_promql("ALERTS_FOR_STATE"), store, 3 * kMin);
  ASSERT_TRUE(for_state.ok());
  ASSERT_EQ(for_state->vector.size(), 1u);
  EXPECT_EQ(for_state->vector[0].value, 0);  // active_at in Unix seconds
}

TEST(AlertEngine, EvaluationErrorsKeepStateAndAreReported) {
  SeriesStore store;
  store.append(Labels{{"__name__", "level"}, {"k", "a"}}, Sample{0, 1});
  store.append(Labels{{"__name__", "level"}, {"k", "b"}}, Sample{0, 1});
  AlertEngine engine(store, {group_from(R"(groups:
- name: g
  rules:
  - alert: Same
    expr: level < 10
    labels:
      k: same
)")});
  EXPECT_EQ(engine.evaluate_all(0), 1u);
  EXPECT_EQ(engine.last_error(0, 0),
            "vector contains metrics with the same labelset after applying alert labels");
  EXPECT_TRUE(engine.alerts_of(0, 0).empty());
  EXPECT_EQ(engine.snapshot()->rules.at(0).last_error, engine.last_error(0, 0));
}

TEST(AlertEngine, GroupLimitClearsAlerts) {
  SeriesStore store;
  for (const char* k : {"a", "b", "c"})
    store.append(Labels{{"__name__", "level"}, {"k", k}}, Sample{0, 1});
  AlertEngine engine(
      store,
      {group_from(
          "groups:\n- name: g\n  limit: 2\n  rules:\n  - alert: L\n    expr: level < 10\n")});
  EXPECT_EQ(engine.evaluate_all(0), 1u);
  EXPECT_EQ(engine.last_error(0, 0), "exceeded limit of 2 with 3 alerts");
  EXPECT_TRUE(engine.alerts_of(0, 0).empty());
}

TEST(AlertEngine, ScalarExpressionGivesOneUnlabelledAlert) {
  SeriesStore store;
  AlertEngine engine(
      store, {group_from("groups:\n- name: g\n  rules:\n  - alert: Always\n    expr: '1'\n")});
  engine.evaluate_all(0);
  const auto a = engine.alerts_of(0, 0);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].labels, (Labels{{"alertname", "Always"}}));
}

TEST(AlertEngine, EvaluateDueRunsEachGroupOncePerAlignedSlot) {
  SeriesStore store;
  auto fast = group_from(
      "groups:\n- name: fast\n  interval: 15s\n  rules:\n  - record: one\n    expr: '1'\n");
  auto slow = group_from("groups:\n- name: slow\n  rules:\n  - record: two\n    expr: '2'\n");
  AlertEngine engine(store, {fast, slow});    // slow uses the default 1m
  EXPECT_EQ(engine.evaluate_due(7'000), 2u);  // slots 0 and 0
  EXPECT_EQ(engine.evaluate_due(14'000), 0u);
  EXPECT_EQ(engine.evaluate_due(15'000), 1u);   // fast at 15s
  EXPECT_EQ(engine.evaluate_due(100'000), 2u);  // fast at 90s (30s..75s skipped), slow at 60s
  const auto snap = engine.snapshot();
  ASSERT_EQ(snap->rules.size(), 2u);
  EXPECT_EQ(snap->rules[0].last_eval_ms, 90'000);
  EXPECT_EQ(snap->rules[1].last_eval_ms, 60'000);
}

TEST(AlertEngine, HistoryShadesPendingAndFiringIntervals) {
  SeriesStore store;
  feed(store, Labels{{"__name__", "level"}}, {50, 5, 5, 5, 5, 50, 50});
  AlertEngine engine(store, {group_from(kLowRule)});
  for (int m = 0; m <= 6; ++m) engine.evaluate_all(m * kMin);
  const auto snap = engine.snapshot();
  ASSERT_EQ(snap->rules.size(), 1u);
  const auto& h = snap->rules[0].history;
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].state, AlertState::pending);
  EXPECT_EQ(h[0].start_ms, 1 * kMin);
  EXPECT_EQ(h[0].end_ms, 3 * kMin);
  EXPECT_EQ(h[1].state, AlertState::firing);
  EXPECT_EQ(h[1].start_ms, 3 * kMin);
  EXPECT_EQ(h[1].end_ms, 5 * kMin);
  EXPECT_EQ(snap->rules[0].state, AlertState::inactive);
  ASSERT_EQ(snap->alerts.size(), 1u);  // the resolved alert, still listed
  EXPECT_EQ(snap->evaluated_at_ms, 6 * kMin);
}

TEST(AlertEngine, SnapshotsAreSafeToReadWhileEvaluating) {
  SeriesStore store;
  std::vector<std::optional<double>> values;
  for (int i = 0; i < 200; ++i) values.emplace_back(i % 7 < 4 ? 5.0 : 50.0);
  feed(store, Labels{{"__name__", "level"}}, values);
  AlertEngine engine(store, {group_from(kLowRule)});
  std::atomic<bool> done{false};
  std::size_t reads = 0;
  bool consistent = true;
  std::thread reader([&] {
    do {
      const auto s = engine.snapshot();
      // Either the initial empty picture or a complete one: never half-published.
      consistent = consistent && (s->rules.empty() ? !s->evaluated_at_ms : s->rules.size() == 1);
      ++reads;
    } while (!done.load());
  });
  for (int m = 0; m < 200; ++m) engine.evaluate_all(m * kMin);
  done = true;
  reader.join();
  EXPECT_GT(reads, 0u);
  EXPECT_TRUE(consistent);
  EXPECT_EQ(engine.snapshot()->evaluated_at_ms, 199 * kMin);
}

}  // namespace
}  // namespace limitscope::metrics
