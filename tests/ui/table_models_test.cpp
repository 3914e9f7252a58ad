// Verifies the key and alert table models under QAbstractItemModelTester: row identity kept
// across updates, sort roles, acknowledgement lifetime and firing notifications; the recent
// decisions model shows results, reasons and retry-after.

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <algorithm>

#include "support/qt_app.h"
#include "ui/alert_tree_view.h"
#include "ui/models/alert_table_model.h"
#include "ui/models/decision_table_model.h"
#include "ui/models/key_table_model.h"

namespace limitscope::ui {
namespace {

KeyRow key(const std::string& k, const std::string& model, double level) {
  KeyRow r;
  r.api_key = k;
  r.tier = "free";
  r.model = model;
  r.algorithm = "token-bucket";
  r.level = level;
  r.capacity = 60;
  r.sparkline = {1.0, 0.5, level};
  return r;
}

TEST(KeyTableModel, UpdatesInPlaceRemovesAndAppendsWithoutAReset) {
  test::ensure_qt_app();
  KeyTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.setRows({key("a", "m1", 0.5), key("b", "m1", 0.9)});
  ASSERT_EQ(model.rowCount(), 2);
  EXPECT_EQ(model.data(model.index(0, KeyTableModel::Level)).toString(),
            QStringLiteral("30.0 / 60"));
  EXPECT_DOUBLE_EQ(
      model.data(model.index(0, KeyTableModel::Level), KeyTableModel::SortRole).value<double>(),
      0.5);
  EXPECT_EQ(model.data(model.index(1, KeyTableModel::Trend), KeyTableModel::SparklineRole)
                .toList()
                .size(),
            3);

  int resets = 0, changes = 0;
  QObject::connect(&model, &QAbstractItemModel::modelReset, [&] { ++resets; });
  QObject::connect(&model, &QAbstractItemModel::dataChanged, [&] { ++changes; });
  model.setRows({key("a", "m1", 0.1), key("b", "m1", 0.8)});
  EXPECT_EQ(resets, 0);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(model.data(model.index(0, KeyTableModel::Level)).toString(),
            QStringLiteral("6.0 / 60"));
  model.setRows({key("a", "m1", 0.1), key("c", "m2", 0.8), key("d", "m2", 0.3)});
  EXPECT_EQ(resets, 0);
  EXPECT_EQ(model.findRow(QStringLiteral("a"), QStringLiteral("m1")), 0);
  EXPECT_EQ(model.findRow(QStringLiteral("b"), QStringLiteral("m1")), -1);
  EXPECT_EQ(model.findRow(QStringLiteral("d"), QStringLiteral("m2")), 2);
  // Two rows with one identity (a source repeating itself) stay two rows.
  model.setRows({key("a", "m1", 0.1), key("a", "m1", 0.2)});
  EXPECT_EQ(model.rowCount(), 2);
  model.setRows({});
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_EQ(resets, 0);
}

// Verifies the issue's "a selection survives 20 refreshes": the source reorders its rows and
// changes every value at each refresh, rows come and go, and the selected key stays selected
// in a sorted view.
TEST(KeyTableModel, SelectionAndSortSurviveTwentyRefreshes) {
  test::ensure_qt_app();
  KeyTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QSortFilterProxyModel proxy;
  proxy.setSourceModel(&model);
  proxy.setSortRole(KeyTableModel::SortRole);
  proxy.sort(KeyTableModel::Level, Qt::AscendingOrder);
  QItemSelectionModel selection(&proxy);
  const auto rows_at = [](int refresh) {
    std::vector<KeyRow> rows;
    for (int k = 0; k < 10; ++k) {
      // Levels move every refresh; key 9 appears only on even refreshes; the order the source
      // lists them in rotates.
      if (k == 9 && refresh % 2 == 1) continue;
      rows.push_back(key("k" + std::to_string(k), "m", ((k * 7 + refresh * 3) % 10) / 10.0));
    }
    std::rotate(rows.begin(), rows.begin() + refresh % static_cast<int>(rows.size()), rows.end());
    return rows;
  };
  model.setRows(rows_at(0));
  const int src_row = model.findRow(QStringLiteral("k4"), QStringLiteral("m"));
  selection.select(proxy.mapFromSource(model.index(src_row, 0)),
                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  for (int refresh = 1; refresh <= 20; ++refresh) {
    model.setRows(rows_at(refresh));
    const QModelIndexList selected = selection.selectedRows();
    ASSERT_EQ(selected.size(), 1) << "refresh " << refresh;
    EXPECT_EQ(model.rowAt(proxy.mapToSource(selected.front()).row())->api_key, "k4")
        << "refresh " << refresh;
    for (int r = 1; r < proxy.rowCount(); ++r) {  // still sorted by level
      EXPECT_LE(
          proxy.index(r - 1, KeyTableModel::Level).data(KeyTableModel::SortRole).value<double>(),
          proxy.index(r, KeyTableModel::Level).data(KeyTableModel::SortRole).value<double>());
    }
  }
}

// A refresh publishes only what changed: rows whose figures are the same get no dataChanged,
// so a 10,000-row table with a few busy keys repaints and re-sorts a few rows.
TEST(KeyTableModel, ARefreshPublishesOnlyTheRowsThatChanged) {
  test::ensure_qt_app();
  KeyTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  std::vector<KeyRow> rows;
  for (int k = 0; k < 100; ++k) rows.push_back(key("k" + std::to_string(k), "m", 0.5));
  model.setRows(rows);
  std::vector<std::pair<int, int>> changed;
  QObject::connect(
      &model, &QAbstractItemModel::dataChanged,
      [&](const QModelIndex& a, const QModelIndex& b) { changed.emplace_back(a.row(), b.row()); });
  model.setRows(rows);
  EXPECT_TRUE(changed.empty()) << "nothing changed, nothing published";
  rows[10].level = 0.2;
  rows[11].level = 0.3;
  rows[50].requests_per_s = 4;
  std::reverse(rows.begin(), rows.end());  // the source's order does not matter
  model.setRows(rows);
  ASSERT_EQ(changed.size(), 2u);
  std::sort(changed.begin(), changed.end());
  EXPECT_EQ(changed[0], std::make_pair(10, 11)) << "neighbours in one run";
  EXPECT_EQ(changed[1], std::make_pair(50, 50));
  EXPECT_DOUBLE_EQ(model.rowAt(10)->level, 0.2);
  EXPECT_DOUBLE_EQ(model.rowAt(50)->requests_per_s, 4);
}

/// The dashboard's key table: the model under the filter proxy, both checked by
/// QAbstractItemModelTester, with a selection on the proxy.
struct FilteredKeyTable {
  FilteredKeyTable() { proxy.setSourceModel(&model); }
  KeyTableModel model;
  QAbstractItemModelTester tester{&model, QAbstractItemModelTester::FailureReportingMode::Fatal};
  KeyFilterProxy proxy;
  QAbstractItemModelTester proxy_tester{&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::Fatal};
  QItemSelectionModel selection{&proxy};
};

// The dashboard's view sorts through the model (KeyFilterProxy forwards sort()): the rows stay
// in order of level across refreshes that move levels and add and remove rows, the selected
// key stays selected, and the filter still hides rows.
TEST(KeyTableModel, ModelSortThroughTheFilterProxyKeepsOrderAndSelection) {
  test::ensure_qt_app();
  FilteredKeyTable table;
  auto& [model, tester, proxy, proxy_tester, selection] = table;
  proxy.sort(KeyTableModel::Level, Qt::DescendingOrder);
  const auto rows_at = [](int refresh) {
    std::vector<KeyRow> rows;
    for (int k = 0; k < 12; ++k) {
      if (k == 11 && refresh % 3 == 1) continue;  // comes and goes
      rows.push_back(key("k" + std::to_string(k), "m", ((k * 5 + refresh * 7) % 12) / 12.0));
    }
    std::rotate(rows.begin(), rows.begin() + refresh % static_cast<int>(rows.size()), rows.end());
    return rows;
  };
  model.setRows(rows_at(0));
  selection.select(
      proxy.mapFromSource(model.index(model.findRow(QStringLiteral("k4"), QStringLiteral("m")), 0)),
      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  for (int refresh = 1; refresh <= 20; ++refresh) {
    model.setRows(rows_at(refresh));
    for (int r = 1; r < model.rowCount(); ++r) {
      EXPECT_GE(model.rowAt(r - 1)->level, model.rowAt(r)->level)
          << "refresh " << refresh << " row " << r;
    }
    const QModelIndexList selected = selection.selectedRows();
    ASSERT_EQ(selected.size(), 1) << "refresh " << refresh;
    EXPECT_EQ(model.rowAt(proxy.mapToSource(selected.front()).row())->api_key, "k4")
        << "refresh " << refresh;
    EXPECT_EQ(proxy.mapToSource(proxy.index(0, 0)).row(), 0) << "the proxy keeps the model's order";
  }
  proxy.setFilterKeyColumn(-1);
  proxy.setFilterFixedString(QStringLiteral("k1"));  // k1, k10, k11
  EXPECT_GE(proxy.rowCount(), 2);
  EXPECT_LE(proxy.rowCount(), 3);
}

// The dashboard's path: the worker (KeyTablePublisher) matches and sorts the rows, the model
// applies its change list and keeps the snapshot's rows without copying them; a snapshot the
// GUI skipped and a sort the worker has not seen yet are caught up, with the selection kept.
TEST(KeyTableModel, AppliesTheWorkersChangeListAndCatchesUpWhenItMissedOne) {
  test::ensure_qt_app();
  FilteredKeyTable table;
  auto& [model, tester, proxy, proxy_tester, selection] = table;
  proxy.sort(KeyTableModel::Level, Qt::AscendingOrder);
  KeyTablePublisher publisher;
  publisher.set_sort(model.keySort());
  QObject::connect(&model, &KeyTableModel::sortChanged,
                   [&](const KeySort& sort) { publisher.set_sort(sort); });
  for (int refresh = 0; refresh < 30; ++refresh) {
    auto snap = std::make_shared<DashboardSnapshot>();
    for (int k = 0; k < 40; ++k) {
      if (k % 7 == refresh % 7) continue;  // rows come and go
      KeyRow r = key("k" + std::to_string(k), "m", ((k * 5 + refresh * (k % 3)) % 13) / 13.0);
      r.rejected_per_s = (k * 3 + refresh) % 5;
      snap->keys.push_back(r);
    }
    std::rotate(snap->keys.begin(), snap->keys.begin() + refresh % 5, snap->keys.end());
    publisher.annotate(snap);
    if (refresh == 12)
      model.sort(KeyTableModel::Rejected, Qt::DescendingOrder);  // this snapshot is sorted by level
    if (refresh == 5 || refresh == 6) continue;                  // skipped: a newer one replaced it
    model.setRows(std::shared_ptr<const std::vector<KeyRow>>(snap, &snap->keys),
                  snap->key_update.get());
    ASSERT_EQ(model.rowCount(), static_cast<int>(snap->keys.size()));
    if (model.keySort() == snap->key_update->sort) {
      for (int r = 0; r < model.rowCount(); ++r) {
        EXPECT_EQ(model.rowAt(r),
                  &snap->keys[snap->key_update->change.order[static_cast<std::size_t>(r)]])
            << "refresh " << refresh << " row " << r
            << ": the worker's order, the snapshot's own rows";
      }
    }
    for (int r = 1; r < model.rowCount(); ++r) {
      if (model.keySort().column == KeyTableModel::Level) {
        EXPECT_LE(model.rowAt(r - 1)->level, model.rowAt(r)->level) << "refresh " << refresh;
      } else {
        EXPECT_GE(model.rowAt(r - 1)->rejected_per_s, model.rowAt(r)->rejected_per_s)
            << "refresh " << refresh;
      }
    }
    if (refresh == 0) {
      selection.select(proxy.mapFromSource(model.index(
                           model.findRow(QStringLiteral("k6"), QStringLiteral("m")), 0)),
                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    // k6 stays through the skipped snapshots (5 and 6: it is absent from the second) and the
    // sort change, and goes at refresh 13.
    const QModelIndexList selected = selection.selectedRows();
    if (refresh >= 13) {
      EXPECT_TRUE(selected.isEmpty()) << "k6 went at refresh 13; refresh " << refresh;
      continue;
    }
    ASSERT_EQ(selected.size(), 1) << "refresh " << refresh;
    EXPECT_EQ(model.rowAt(proxy.mapToSource(selected.front()).row())->api_key, "k6")
        << "refresh " << refresh;
  }
}

TEST(KeyTableModel, ShowsTheNameAndADashForWhatTheSourceDoesNotReport) {
  test::ensure_qt_app();
  KeyTableModel model;
  KeyRow r = key("014badae33b80a3786c4b116e54d1c66", "gpt-4.1", 0.5);
  r.name = "acme-prod";
  r.limit = "requests";
  r.rates_reported = r.spend_reported = r.quota_reported = false;
  KeyRow peaked = key("b", "m", 0.5);
  peaked.peak_rejected_per_s = 12.5;
  model.setRows({r, peaked});
  EXPECT_EQ(model.index(0, KeyTableModel::Key).data().toString(), QStringLiteral("acme-prod"));
  EXPECT_EQ(model.index(0, KeyTableModel::Limit).data().toString(), QStringLiteral("requests"));
  for (int col : {KeyTableModel::Rejected, KeyTableModel::PeakRejected, KeyTableModel::Spend,
                  KeyTableModel::QuotaBurn}) {
    EXPECT_EQ(model.index(0, col).data().toString(), QStringLiteral("—")) << col;
  }
  EXPECT_EQ(model.index(1, KeyTableModel::Key).data().toString(), QStringLiteral("b"));
  EXPECT_EQ(model.index(1, KeyTableModel::PeakRejected).data().toString(), QStringLiteral("12.5"));
  EXPECT_EQ(model.index(1, KeyTableModel::Spend).data().toString(), QStringLiteral("$0.00"));
}

TEST(KeyTableModel, TheShadowColumnNamesTheTenantsACandidateWouldStartRefusing) {
  test::ensure_qt_app();
  KeyTableModel model;
  KeyRow refused = key("014badae33b80a3786c4b116e54d1c66", "gpt-4.1", 0.5);
  refused.name = "acme-prod";
  refused.shadow_would_refuse_in_view = 12;
  KeyRow agrees = key("b", "m", 0.5);
  agrees.shadow_would_refuse_in_view = 0;
  const KeyRow none = key("c", "m", 0.5);
  EXPECT_FALSE(KeyTableModel::anyReports({none}, KeyTableModel::Shadow));
  EXPECT_TRUE(KeyTableModel::anyReports({none, agrees}, KeyTableModel::Shadow));
  model.setRows({refused, agrees, none});
  EXPECT_EQ(model.headerData(KeyTableModel::Shadow, Qt::Horizontal).toString(),
            QStringLiteral("Shadow"));
  EXPECT_EQ(model.index(0, KeyTableModel::Shadow).data().toString(),
            QStringLiteral("would refuse 12"));
  EXPECT_TRUE(model.index(0, KeyTableModel::Shadow)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .contains(QStringLiteral("acme-prod")));
  EXPECT_TRUE(model.index(0, KeyTableModel::Shadow).data(Qt::ForegroundRole).isValid())
      << "marked red";
  EXPECT_EQ(model.index(1, KeyTableModel::Shadow).data().toString(), QStringLiteral("0"));
  EXPECT_FALSE(model.index(1, KeyTableModel::Shadow).data(Qt::ForegroundRole).isValid());
  EXPECT_EQ(model.index(2, KeyTableModel::Shadow).data().toString(), QStringLiteral("—"));
  model.setCompact(true);  // a narrow table: the count alone, still red
  EXPECT_EQ(model.index(0, KeyTableModel::Shadow).data().toString(), QStringLiteral("12"));
  EXPECT_TRUE(model.index(0, KeyTableModel::Shadow).data(Qt::ForegroundRole).isValid());
  model.setCompact(false);
  // Sorted by it, descending: the tenants it would refuse most come first, unreported last.
  model.sort(KeyTableModel::Shadow, Qt::DescendingOrder);
  EXPECT_EQ(model.index(0, KeyTableModel::Key).data().toString(), QStringLiteral("acme-prod"));
  EXPECT_EQ(model.index(2, KeyTableModel::Key).data().toString(), QStringLiteral("c"));
}

TEST(KeyTableModel, AQualifiedNameSaysTheModelAndLimitAndSortsByThem) {
  test::ensure_qt_app();
  KeyTableModel model;
  KeyRow requests = key("5bd139df", "gemini-2.5-flash", 0.015);
  requests.name = "campus-tutor";
  requests.limit = "requests";
  KeyRow tokens = requests;
  tokens.limit = "llm_tokens";
  model.setRows({requests, tokens});
  model.sort(KeyTableModel::Key, Qt::AscendingOrder);
  EXPECT_EQ(model.index(0, KeyTableModel::Key).data().toString(), QStringLiteral("campus-tutor"));
  EXPECT_EQ(model.index(1, KeyTableModel::Key).data().toString(), QStringLiteral("campus-tutor"));
  std::vector<KeySort> told;  // what the worker is told to sort by
  QObject::connect(&model, &KeyTableModel::sortChanged,
                   [&](const KeySort& sort) { told.push_back(sort); });
  model.setQualified(true);
  ASSERT_EQ(told.size(), 1u);
  EXPECT_TRUE(told[0].qualified);
  EXPECT_EQ(model.index(0, KeyTableModel::Key).data().toString(),
            QStringLiteral("campus-tutor/gemini-2.5-flash/llm_tokens"))
      << "sorted by the name as it reads now";
  EXPECT_EQ(model.index(1, KeyTableModel::Key).data().toString(),
            QStringLiteral("campus-tutor/gemini-2.5-flash/requests"));
  model.setQualified(true);
  EXPECT_EQ(told.size(), 1u) << "no change, nothing to tell";
}

AlertRow alert(const std::string& rule, AlertState st, const std::string& labels) {
  AlertRow a;
  a.rule = rule;
  a.state = st;
  a.labels = labels;
  a.value = 1.5;
  a.since_ms = 1'700'000'000'000;
  return a;
}

TEST(AlertTableModel, ReportsNewlyFiringAlertsOnceAndKeepsAcknowledgementWhileFiring) {
  test::ensure_qt_app();
  AlertTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  EXPECT_TRUE(model.setAlerts({alert("R", AlertState::pending, "{a=\"1\"}")}).isEmpty());
  QStringList started = model.setAlerts({alert("R", AlertState::firing, "{a=\"1\"}")});
  EXPECT_EQ(started.size(), 1);
  EXPECT_TRUE(model.setAlerts({alert("R", AlertState::firing, "{a=\"1\"}")}).isEmpty());
  model.acknowledge(0);
  EXPECT_TRUE(model.isAcknowledged(0));
  EXPECT_TRUE(model.data(model.index(0, AlertTableModel::State))
                  .toString()
                  .contains(QStringLiteral("acknowledged")));
  model.setAlerts(
      {alert("R", AlertState::firing, "{a=\"1\"}"), alert("R", AlertState::firing, "{a=\"2\"}")});
  // Grouped by rule: one line for R, its two alerts under it.
  ASSERT_EQ(model.rowCount(), 1);
  ASSERT_EQ(model.rowCount(model.index(0, 0)), 2);
  EXPECT_TRUE(model.isAcknowledged(model.index(0, 0, model.index(0, 0))));
  EXPECT_FALSE(model.isAcknowledged(model.index(1, 0, model.index(0, 0))));
  EXPECT_FALSE(model.isAcknowledged(0)) << "the group line: not all of its alerts";
  // Resolved: the acknowledgement ends; firing again notifies again.
  model.setAlerts({alert("R", AlertState::resolved, "{a=\"1\"}")});
  EXPECT_FALSE(model.isAcknowledged(0));
  EXPECT_EQ(model.setAlerts({alert("R", AlertState::firing, "{a=\"1\"}")}).size(), 1);
}

TEST(AlertTableModel, APendingAlertShowsItsProgressTowardItsFor) {
  test::ensure_qt_app();
  AlertTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  AlertRow pending = alert("R", AlertState::pending, "{a=\"1\"}");
  pending.for_ms = 10 * 60'000;
  pending.pending_ms = 3 * 60'000;
  model.setAlerts({pending});
  EXPECT_EQ(model.data(model.index(0, AlertTableModel::State)).toString(),
            QStringLiteral("pending 3m of 10m"));
}

AlertRow keyed(AlertState st, const std::string& entity, double value) {
  AlertRow a = alert("LimiterKeyNearlyEmpty", st, "{api_key=\"" + entity + "-hash\"}");
  a.entity = entity;
  a.value = value;
  a.severity = "warning";
  a.higher_is_worse = false;  // "level < 0.1": the lowest level is the worst
  return a;
}

TEST(AlertTableModel, GroupsByRuleWithACountAndTheWorstEntityAndKeepsTheTreeThroughRefreshes) {
  test::ensure_qt_app();
  AlertTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  std::vector<AlertRow> rows{
      keyed(AlertState::firing, "beta", 0.05), keyed(AlertState::firing, "acme-prod", 0.01),
      keyed(AlertState::pending, "gamma", 0.02), alert("Other", AlertState::pending, "{}")};
  model.setAlerts(rows);
  ASSERT_EQ(model.rowCount(), 2);
  const QModelIndex group = model.index(0, 0);
  const auto text = [&](const QModelIndex& line, int column) {
    return line.sibling(line.row(), column).data().toString();
  };
  EXPECT_EQ(text(group, AlertTableModel::Rule), QStringLiteral("LimiterKeyNearlyEmpty (warning)"));
  EXPECT_EQ(text(group, AlertTableModel::Count), QStringLiteral("3"));
  EXPECT_EQ(text(group, AlertTableModel::State), QStringLiteral("firing"));
  EXPECT_TRUE(text(group, AlertTableModel::Labels).startsWith(QStringLiteral("worst: acme-prod")))
      << text(group, AlertTableModel::Labels).toStdString();
  ASSERT_EQ(model.rowCount(group), 3);
  EXPECT_TRUE(text(model.index(0, 0, group), AlertTableModel::Labels)
                  .startsWith(QStringLiteral("acme-prod")));
  EXPECT_TRUE(
      text(model.index(1, 0, group), AlertTableModel::Labels).startsWith(QStringLiteral("beta")));
  EXPECT_EQ(text(model.index(2, 0, group), AlertTableModel::State), QStringLiteral("pending 0s"));
  EXPECT_EQ(model.rowCount(model.index(1, 0)), 0) << "a rule with one alert: the line is the alert";
  EXPECT_EQ(model.alertAt(1)->rule, "Other");

  // A widget over it: an expanded group and a selected alert stay through refreshes that only
  // change values.
  QTreeView view;
  view.setModel(&model);
  view.resize(800, 300);
  view.show();
  view.expand(group);
  view.selectionModel()->select(model.index(1, 0, group),
                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  for (int refresh = 1; refresh <= 5; ++refresh) {
    rows[0].value = 0.05 + refresh * 0.001;
    rows[2].pending_ms = refresh * 60'000;
    rows[2].for_ms = 10 * 60'000;
    model.setAlerts(rows);
    EXPECT_TRUE(view.isExpanded(model.index(0, 0))) << "refresh " << refresh;
    const QModelIndexList selected = view.selectionModel()->selectedRows();
    ASSERT_EQ(selected.size(), 1) << "refresh " << refresh;
    EXPECT_EQ(model.alertAt(selected.front())->entity, "beta");
  }
  EXPECT_EQ(text(model.index(2, 0, model.index(0, 0)), AlertTableModel::State),
            QStringLiteral("pending 5m of 10m"));

  // Acknowledging the group line silences each of its firing alerts.
  model.acknowledge(model.index(0, 0));
  EXPECT_TRUE(model.isAcknowledged(model.index(0, 0, model.index(0, 0))));
  EXPECT_TRUE(
      text(model.index(0, 0), AlertTableModel::State).contains(QStringLiteral("acknowledged")));

  // One resolves: 2 of 3 still active.
  rows[1].state = AlertState::resolved;
  model.setAlerts(rows);
  EXPECT_EQ(text(model.index(0, 0), AlertTableModel::Count), QStringLiteral("2 of 3"));
  EXPECT_TRUE(
      text(model.index(0, 0), AlertTableModel::Labels).startsWith(QStringLiteral("worst: beta")));
}

// The alerts panel's tree keeps the operator's expanded groups and selection when an alert is
// added or removed (the model resets then), finding them again by rule and alert, not by row.
TEST(AlertTableModel, TheTreeKeepsExpandedGroupsAndSelectionWhenAlertsComeAndGo) {
  test::ensure_qt_app();
  AlertTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  AlertTreeView view(&model);
  view.setSelectionBehavior(QAbstractItemView::SelectRows);
  view.resize(800, 300);
  view.show();
  AlertRow other = alert("Other", AlertState::pending, "{tier=\"pro\"}");
  std::vector<AlertRow> rows{keyed(AlertState::firing, "beta", 0.05),
                             keyed(AlertState::firing, "acme-prod", 0.01), other};
  model.setAlerts(rows);
  const auto group_of = [&](const char* rule) {
    for (int g = 0; g < model.rowCount(); ++g) {
      if (model.alertAt(g)->rule == rule) return model.index(g, 0);
    }
    return QModelIndex();
  };
  view.expand(group_of("LimiterKeyNearlyEmpty"));
  view.selectionModel()->select(model.index(1, 0, group_of("LimiterKeyNearlyEmpty")),
                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  ASSERT_EQ(model.alertAt(view.selectionModel()->selectedRows().front())->entity, "beta");
  const auto still = [&](const std::string& when) {
    const QModelIndex group = group_of("LimiterKeyNearlyEmpty");
    ASSERT_TRUE(group.isValid()) << when;
    EXPECT_TRUE(view.isExpanded(group)) << when;
    const QModelIndexList selected = view.selectionModel()->selectedRows();
    ASSERT_EQ(selected.size(), 1) << when;
    EXPECT_EQ(model.alertAt(selected.front())->entity, "beta") << when;
  };
  // An alert added to the group, one to a new rule, a rule gone, an alert gone, the order
  // turned over: each resets the model.
  rows.push_back(keyed(AlertState::firing, "gamma", 0.001));
  model.setAlerts(rows);
  still("an alert added to the group");
  rows.push_back(alert("Third", AlertState::firing, "{}"));
  model.setAlerts(rows);
  still("a new rule above it");
  rows.erase(rows.begin() + 2);  // Other
  model.setAlerts(rows);
  still("a rule gone");
  rows.erase(rows.begin() + 1);  // acme-prod
  model.setAlerts(rows);
  still("an alert of the group gone");
  rows[0].value = 0.0001;  // beta becomes the worst: the members reorder
  model.setAlerts(rows);
  still("its members reordered");
  EXPECT_EQ(model.rowCount(group_of("LimiterKeyNearlyEmpty")), 2);
}

// What the status line and the desktop notice say: the alert by name, never its label set.
TEST(AlertTableModel, AFiringAlertIsAnnouncedByNameNotByLabels) {
  test::ensure_qt_app();
  AlertTableModel model;
  const std::string hash = "5bd139df16125e62afeeb517f183b6d8";
  AlertRow key = alert("LimiterKeyNearlyEmpty", AlertState::firing,
                       "{api_key=\"" + hash + "\", tier=\"gw-free\"}");
  key.entity = "campus-tutor";
  AlertRow tier =
      alert("HighRateLimitRejection", AlertState::firing, R"({model="", tier="gw-free"})");
  AlertRow whole = alert("GatewayDown", AlertState::firing, "{}");
  const QStringList started = model.setAlerts({key, tier, whole});
  EXPECT_EQ(started, (QStringList{QStringLiteral("LimiterKeyNearlyEmpty: campus-tutor"),
                                  QStringLiteral("HighRateLimitRejection: tier gw-free"),
                                  QStringLiteral("GatewayDown")}));
  for (const QString& s : started)
    EXPECT_FALSE(s.contains(QString::fromStdString(hash.substr(0, 12)))) << s.toStdString();
  // The tree's line names the tier, the label set is its tooltip.
  for (int g = 0; g < model.rowCount(); ++g) {
    const QModelIndex about = model.index(g, AlertTableModel::Labels);
    EXPECT_FALSE(about.data().toString().contains(QLatin1Char('{')))
        << about.data().toString().toStdString();
    EXPECT_EQ(about.data(Qt::ToolTipRole).toString(),
              QString::fromStdString(model.alertAt(g)->labels));
  }
}

// A 429 of key "k" on gpt-4.1 (exhausted) at 12:00:00.250 on 2023-11-15 UTC.
DecisionRow refusal(double cost, double remaining, double retry_after_s) {
  DecisionRow d;
  d.t_ns = 1'700'049'600'250'000'000;
  d.api_key = "k";
  d.model = "gpt-4.1";
  d.cost = cost;
  d.reason = "exhausted";
  d.remaining = remaining;
  d.retry_after_s = retry_after_s;
  return d;
}

TEST(DecisionTableModel, A429SaysWhichLimitRefusedItAndTheRetryAfterSent) {
  test::ensure_qt_app();
  DecisionTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  DecisionRow tokens = refusal(3000, 812, 1.2);
  tokens.limit = "llm_tokens";
  DecisionRow unlimited = tokens;
  unlimited.limit.clear();
  unlimited.retry_after_s = 0.001;
  model.setDecisions({tokens, unlimited});
  const auto text = [&](int r, int c) { return model.data(model.index(r, c)).toString(); };
  EXPECT_EQ(text(0, DecisionTableModel::Limit), QStringLiteral("llm_tokens"));
  EXPECT_EQ(text(0, DecisionTableModel::Cost), QStringLiteral("3000"));
  EXPECT_EQ(text(0, DecisionTableModel::Remaining), QStringLiteral("812.00"));
  EXPECT_EQ(text(0, DecisionTableModel::RetryAfter), QStringLiteral("1.20 s"));
  EXPECT_EQ(text(0, DecisionTableModel::RetryAfterSent), QStringLiteral("2 s"))
      << "whole seconds, rounded up";
  EXPECT_EQ(text(1, DecisionTableModel::Limit), QString()) << "a source that does not say";
  EXPECT_EQ(text(1, DecisionTableModel::RetryAfterSent), QStringLiteral("1 s")) << "never 0";
}

TEST(DecisionTableModel, ShowsResultReasonAndRetryAfter) {
  test::ensure_qt_app();
  DecisionTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  DecisionRow denied = refusal(2, 0.5, 0.25);
  DecisionRow allowed = denied;
  allowed.allowed = true;
  allowed.reason.clear();
  allowed.retry_after_s.reset();
  DecisionRow never = denied;
  never.reason = "cost_above_capacity";
  never.retry_after_s.reset();
  model.setDecisions({denied, allowed, never});
  ASSERT_EQ(model.rowCount(), 3);
  const auto text = [&](int r, int c) { return model.data(model.index(r, c)).toString(); };
  EXPECT_TRUE(text(0, DecisionTableModel::Time).endsWith(QStringLiteral(".250")));
  EXPECT_EQ(text(0, DecisionTableModel::Result), QStringLiteral("429 exhausted"));
  EXPECT_EQ(text(0, DecisionTableModel::RetryAfter), QStringLiteral("250 ms"));
  EXPECT_EQ(text(1, DecisionTableModel::Result), QStringLiteral("allowed"));
  EXPECT_EQ(text(1, DecisionTableModel::RetryAfter), QString());
  EXPECT_EQ(text(2, DecisionTableModel::RetryAfter), QStringLiteral("never"));
  EXPECT_EQ(text(0, DecisionTableModel::Remaining), QStringLiteral("0.50"));
  model.setDecisions({});
  EXPECT_EQ(model.rowCount(), 0);
}

}  // namespace
}  // namespace limitscope::ui
