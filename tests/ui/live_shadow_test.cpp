// Verifies the dashboard's view of a rule's shadow config (issue 19 item 2) on a real
// redis-server with real decide.lua decisions and real widgets offscreen: the 429 chart draws
// "would refuse (shadow)" beside the rule's 429 line, dashed in its colour, and the key table's
// Shadow column (hidden while no source reports a shadow) names the tenants the candidate would
// start refusing.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <algorithm>

#include "core/redis/shadow_config.h"
#include "support/limit_params_builders.h"
#include "support/logged_decisions.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "ui/charts/time_chart.h"
#include "ui/key_table_view.h"
#include "ui/main_window.h"
#include "ui/models/key_table_model.h"

namespace limitscope::ui {
namespace {

const redis::ChangeInfo kChange{"test", "shadow view", std::nullopt};

void decide(redis::Connection& c, const std::string& key, int n) {
  test::decide_logged(c, "api", key, n);
}

// The text of `key`'s cell in `column`, or "" when the table has no such row.
QString cell(const MainWindow& w, const QString& key, int column) {
  const QAbstractItemModel* m = w.keyView()->model();
  for (int r = 0; r < m->rowCount(); ++r) {
    if (m->index(r, KeyTableModel::Key).data().toString() == key)
      return m->index(r, column).data().toString();
  }
  return {};
}

TEST(LiveShadow, WouldRefuseLineAndTheTenantsTheCandidateWouldRefuse) {
  test::ensure_qt_app();
  auto server = test::RedisServer::start();
  auto c = test::connect(*server);
  using std::chrono::hours;
  ASSERT_TRUE(
      redis::set_config(c, redis::KeySchema{}, "api",
                        redis::single_limit(test::bucket(Algorithm::token_bucket, 5, 1, hours(1))),
                        kChange)
          .ok());
  ASSERT_NO_FATAL_FAILURE(decide(c, "carol", 1));  // the rule's keys and stream exist

  EmbeddedSimulationOptions options;
  MainWindow window(options, /*start_running=*/false);
  window.resize(1600, 1000);
  window.show();
  QSignalSpy opened(&window, &MainWindow::liveOpened);
  QSignalSpy snapshots(&window, &MainWindow::snapshotApplied);
  window.openRedis(QString::fromStdString(server->url()), QString());
  ASSERT_TRUE(opened.wait(10000));
  ASSERT_TRUE(snapshots.wait(10000));
  EXPECT_TRUE(window.keyView()->isColumnHidden(KeyTableModel::Shadow)) << "no shadow yet";

  // Shadow: 2 tokens per key. alice's 4 requests: the live config admits all, the shadow
  // would refuse 2; bob's one: both admit.
  ASSERT_TRUE(
      redis::set_shadow(c, redis::KeySchema{}, "api",
                        redis::single_limit(test::bucket(Algorithm::token_bucket, 2, 1, hours(1))),
                        kChange)
          .ok());
  ASSERT_NO_FATAL_FAILURE(decide(c, "alice", 4));
  ASSERT_NO_FATAL_FAILURE(decide(c, "bob", 1));

  bool seen = false;
  for (int i = 0; i < 50 && !seen; ++i) {
    snapshots.clear();
    if (!snapshots.wait(10000)) break;
    seen = cell(window, QStringLiteral("alice"), KeyTableModel::Shadow) ==
           QStringLiteral("would refuse 2");
  }
  ASSERT_TRUE(seen) << "alice's Shadow cell: "
                    << cell(window, QStringLiteral("alice"), KeyTableModel::Shadow).toStdString();
  EXPECT_EQ(cell(window, QStringLiteral("bob"), KeyTableModel::Shadow), QStringLiteral("0"));
  EXPECT_FALSE(window.keyView()->isColumnHidden(KeyTableModel::Shadow));

  const TimeChart* chart = window.chart(2);  // the 429 chart
  const QString shadow = QStringLiteral("api: would refuse (shadow)");
  const QString live = QStringLiteral("api");  // the rule's 429 line
  ASSERT_TRUE(chart->lineColor(shadow).isValid()) << "no would-refuse line";
  EXPECT_EQ(chart->lineColor(shadow), chart->lineColor(live)) << "drawn in the rule's colour";
  EXPECT_EQ(chart->lineStyle(shadow), Qt::DashLine);
  EXPECT_EQ(chart->lineStyle(live), Qt::SolidLine);
  double highest = 0;  // the shadow refused alice's 2 in one refresh (the exact rate: core's test)
  for (const QPointF& p : chart->pointsOf(shadow)) highest = std::max(highest, p.y());
  EXPECT_GT(highest, 0.0);
}

}  // namespace
}  // namespace limitscope::ui
