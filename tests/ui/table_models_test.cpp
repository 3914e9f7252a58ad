// Verifies the key and alert table models under QAbstractItemModelTester: row identity kept
// across updates, sort roles, acknowledgement lifetime and firing notifications; the recent
// decisions model shows results, reasons and retry-after.

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>

#include <algorithm>

#include "support/qt_app.h"
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
  EXPECT_EQ(model.data(model.index(0, KeyTableModel::Level)).toString(), QStringLiteral("30.0 / 60"));
  EXPECT_DOUBLE_EQ(model.data(model.index(0, KeyTableModel::Level), KeyTableModel::SortRole).toDouble(), 0.5);
  EXPECT_EQ(model.data(model.index(1, KeyTableModel::Trend), KeyTableModel::SparklineRole).toList().size(), 3);

  int resets = 0, changes = 0;
  QObject::connect(&model, &QAbstractItemModel::modelReset, [&] { ++resets; });
  QObject::connect(&model, &QAbstractItemModel::dataChanged, [&] { ++changes; });
  model.setRows({key("a", "m1", 0.1), key("b", "m1", 0.8)});
  EXPECT_EQ(resets, 0);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(model.data(model.index(0, KeyTableModel::Level)).toString(), QStringLiteral("6.0 / 60"));
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
    EXPECT_EQ(model.rowAt(proxy.mapToSource(selected.front()).row())->api_key, "k4") << "refresh " << refresh;
    for (int r = 1; r < proxy.rowCount(); ++r) {  // still sorted by level
      EXPECT_LE(proxy.index(r - 1, KeyTableModel::Level).data(KeyTableModel::SortRole).toDouble(),
                proxy.index(r, KeyTableModel::Level).data(KeyTableModel::SortRole).toDouble());
    }
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
  for (int col : {KeyTableModel::Rejected, KeyTableModel::PeakRejected, KeyTableModel::Spend, KeyTableModel::QuotaBurn}) {
    EXPECT_EQ(model.index(0, col).data().toString(), QStringLiteral("—")) << col;
  }
  EXPECT_EQ(model.index(1, KeyTableModel::Key).data().toString(), QStringLiteral("b"));
  EXPECT_EQ(model.index(1, KeyTableModel::PeakRejected).data().toString(), QStringLiteral("12.5"));
  EXPECT_EQ(model.index(1, KeyTableModel::Spend).data().toString(), QStringLiteral("$0.00"));
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
  EXPECT_TRUE(model.data(model.index(0, AlertTableModel::State)).toString().contains(QStringLiteral("acknowledged")));
  model.setAlerts({alert("R", AlertState::firing, "{a=\"1\"}"), alert("R", AlertState::firing, "{a=\"2\"}")});
  EXPECT_TRUE(model.isAcknowledged(0));
  EXPECT_FALSE(model.isAcknowledged(1));
  // Resolved: the acknowledgement ends; firing again notifies again.
  model.setAlerts({alert("R", AlertState::resolved, "{a=\"1\"}")});
  EXPECT_FALSE(model.isAcknowledged(0));
  EXPECT_EQ(model.setAlerts({alert("R", AlertState::firing, "{a=\"1\"}")}).size(), 1);
}

TEST(DecisionTableModel, ShowsResultReasonAndRetryAfter) {
  test::ensure_qt_app();
  DecisionTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  DecisionRow denied;
  denied.t_ns = 1'700'049'600'250'000'000;
  denied.api_key = "k";
  denied.model = "gpt-4.1";
  denied.cost = 2;
  denied.reason = "exhausted";
  denied.remaining = 0.5;
  denied.retry_after_s = 0.25;
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
