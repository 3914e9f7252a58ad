// Verifies the dashboard on a gateway's /metrics (a canned gateway on loopback, real widgets
// offscreen): once two scrapes have landed, the key table shows the tier's 429 rate and the
// 429 chart draws its line; the status and title name the source; a bad URL is reported, not
// shown.
#include <gtest/gtest.h>

#include <QAction>
#include <QSignalSpy>

#include "support/canned_http_server.h"
#include "support/gateway_series.h"
#include "support/qt_app.h"
#include "ui/charts/time_chart.h"
#include "ui/main_window.h"

namespace limitscope::ui {
namespace {

std::string exposition(int hits, int allowed) {
  return test::gateway_requests_exposition(hits, allowed, hits);
}

TEST(LiveMetrics, DashboardShowsTheGatewaysRates) {
  test::ensure_qt_app();
  test::CannedHttpServer gateway;
  gateway.respond({200, "text/plain; version=0.0.4", exposition(0, 0), false, 0});

  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  QSignalSpy opened(&window, &MainWindow::liveOpened);
  QSignalSpy snapshots(&window, &MainWindow::snapshotApplied);
  LiveSpec spec;
  spec.metrics_url = gateway.url();
  window.openLive(spec);
  ASSERT_TRUE(opened.wait(10000));
  EXPECT_EQ(opened.at(0).at(0).toString(), QString::fromStdString("metrics: " + gateway.url()));
  // Live: the window says so, and the run action pauses the refresh instead of simulating.
  EXPECT_TRUE(window.windowTitle().contains(QStringLiteral("live: metrics")))
      << window.windowTitle().toStdString();
  bool refresh_action = false;
  for (const QAction* a : window.findChildren<QAction*>()) {
    refresh_action = refresh_action || a->text().endsWith(QStringLiteral(" refresh"));
  }
  EXPECT_TRUE(refresh_action);
  // The first scrape has happened (it runs before liveOpened); the next one sees 429s.
  gateway.respond({200, "text/plain; version=0.0.4", exposition(50, 100), false, 0});

  bool seen = false;
  for (int i = 0; i < 100 && !seen; ++i) {
    if (snapshots.isEmpty() && !snapshots.wait(10000)) break;
    snapshots.clear();
    const auto snap = window.lastSnapshot();
    if (!snap || snap->keys.empty() || snap->keys[0].rejected_per_s <= 0) continue;
    seen = true;
    EXPECT_EQ(snap->keys[0].tier, "free");
    EXPECT_GT(snap->keys[0].requests_per_s, snap->keys[0].rejected_per_s);
    EXPECT_EQ(snap->connection, "connected");
    bool line = false;
    for (const auto& c : snap->charts) {
      for (const auto& l : c.lines)
        line = line || (c.kind == ChartKind::rejections && l.name == "free");
    }
    EXPECT_TRUE(line) << "the 429 chart has the tier's line";
  }
  EXPECT_TRUE(seen) << "the key table never showed a 429 rate";

  MainWindow bad(EmbeddedSimulationOptions{}, false);
  QSignalSpy failed(&bad, &MainWindow::liveOpened);
  LiveSpec wrong;
  wrong.metrics_url = "ftp://example.org/metrics";
  bad.openLive(wrong);
  ASSERT_TRUE(failed.wait(10000));
  EXPECT_TRUE(failed.at(0).at(0).toString().isEmpty());
  const Status why = failed.at(0).at(1).value<Status>();
  ASSERT_FALSE(why.ok());
  EXPECT_EQ(why.error().rfind("--metrics: ", 0), 0u) << why;
}

}  // namespace
}  // namespace limitscope::ui
