// Verifies the Events dock (real widgets offscreen): only new events become rows, also when the
// source's tail has dropped its head; failures are marked; rows copy as "HH:mm:ss  text"
// lines; Clear does not bring re-sent events back; the view follows the newest row only from
// the bottom; sources without an event log get a placeholder; and the main window's dock lists
// a live /metrics source's events as they happen.

#include "ui/event_log_panel.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QDateTime>
#include <QDockWidget>
#include <QIcon>
#include <QMenuBar>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include "support/canned_http_server.h"
#include "support/qt_app.h"
#include "ui/main_window.h"
#include "ui/models/event_log_model.h"

namespace limitscope::ui {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;  // ms since the epoch

// Event i of one growing log: a distinct time and text.
SourceEvent ev(int i, const std::string& text = "") {
  return SourceEvent{kT0 + i * 1000, text.empty() ? "event " + std::to_string(i) : text};
}

// The window [from, to) of that log, as a snapshot carries it.
std::vector<SourceEvent> tail(int from, int to) {
  std::vector<SourceEvent> out;
  for (int i = from; i < to; ++i) out.push_back(ev(i));
  return out;
}

QStringList texts(const EventLogModel& m) {
  QStringList out;
  for (int r = 0; r < m.rowCount(); ++r) out << m.index(r, EventLogModel::Text).data().toString();
  return out;
}

QStringList numbered(int from, int to) {
  QStringList out;
  for (int i = from; i < to; ++i) out << QStringLiteral("event %1").arg(i);
  return out;
}

QString line(int i, const QString& text) {
  return QDateTime::fromMSecsSinceEpoch(kT0 + i * 1000).toString(QStringLiteral("HH:mm:ss")) +
         QStringLiteral("  ") + text;
}

TEST(EventLogModel, AppendsOnlyTheEventsNotSeenBefore) {
  test::ensure_qt_app();
  EventLogModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  int resets = 0, inserted = 0;
  QObject::connect(&model, &QAbstractItemModel::modelReset, [&] { ++resets; });
  QObject::connect(&model, &QAbstractItemModel::rowsInserted,
                   [&](const QModelIndex&, int first, int last) { inserted += last - first + 1; });

  EXPECT_EQ(model.update(tail(0, 3)), 3);
  EXPECT_EQ(model.update(tail(0, 3)), 0) << "the same tail again adds nothing";
  EXPECT_EQ(model.update(tail(0, 5)), 2);
  EXPECT_EQ(texts(model), numbered(0, 5));
  EXPECT_EQ(inserted, 5);
  EXPECT_EQ(resets, 0) << "appends, never resets: selection and scroll position survive";
}

// Each row: the tails sent one after the other (windows [from, to) of one log) and the rows
// expected at the end.
struct HeadCase {
  const char* name;
  std::vector<std::pair<int, int>> windows;
  int first, last;  // rows "event first" .. "event last-1"
};

TEST(EventLogModel, TailWhoseHeadWasDroppedAddsNoDuplicateAndLosesNoRow) {
  test::ensure_qt_app();
  const HeadCase cases[] = {
      {"head dropped, one new", {{0, 50}, {1, 51}}, 0, 51},
      {"head dropped, several new", {{0, 50}, {7, 57}}, 0, 57},
      {"head dropped, nothing new", {{0, 50}, {0, 50}, {3, 50}}, 0, 50},
      {"short tails sliding", {{0, 3}, {2, 5}, {4, 6}, {5, 9}}, 0, 9},
      {"window jumped past everything seen", {{0, 5}, {10, 15}}, 0, 5},
  };
  for (const HeadCase& c : cases) {
    SCOPED_TRACE(c.name);
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    for (const auto& [from, to] : c.windows) model.update(tail(from, to));
    QStringList want = numbered(c.first, c.last);
    if (std::string_view(c.name).starts_with("window jumped")) want << numbered(10, 15);
    EXPECT_EQ(texts(model), want);
  }
}

TEST(EventLogModel, RepeatedIdenticalEventsInOneTailAreAllShown) {
  test::ensure_qt_app();
  EventLogModel model;
  const SourceEvent a = ev(1, "redis: refresh failed: timeout");
  model.update({a});
  model.update({a, a});  // the same line twice in the same millisecond: a second event
  EXPECT_EQ(model.rowCount(), 2);
  model.update({a, a});
  EXPECT_EQ(model.rowCount(), 2);
}

TEST(EventLogModel, KeepsAtMostMaxRowsDroppingTheOldest) {
  test::ensure_qt_app();
  EventLogModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  for (int to = 50; to <= EventLogModel::kMaxRows + 200; to += 50) model.update(tail(to - 50, to));
  ASSERT_EQ(model.rowCount(), EventLogModel::kMaxRows);
  EXPECT_EQ(texts(model).front(), QStringLiteral("event 200"));
  EXPECT_EQ(texts(model).back(), QStringLiteral("event %1").arg(EventLogModel::kMaxRows + 199));
}

// Live sources number their events: the window [from, to) of a numbered log (seq = i + 1).
std::vector<SourceEvent> numberedTail(int from, int to) {
  std::vector<SourceEvent> out = tail(from, to);
  for (SourceEvent& e : out) e.seq = static_cast<std::uint64_t>(e.t_ms - kT0) / 1000 + 1;
  return out;
}

// More events between two updates than a snapshot carries: one row says how many were not
// received, instead of a silent jump; identical repeated events are told apart by number.
TEST(EventLogModel, NumberedEventsShowAGapAndRepeatsWithoutLoss) {
  EventLogModel m;
  ASSERT_EQ(m.update(numberedTail(0, 3)), 3);
  // Events 3..59 happened; the snapshot carries only 10..59 (its newest 50).
  EXPECT_EQ(m.update(numberedTail(10, 60)), 51);
  const QStringList rows = texts(m);
  ASSERT_EQ(rows.size(), 54);
  EXPECT_EQ(rows.mid(0, 3), numbered(0, 3));
  EXPECT_TRUE(rows[3].startsWith(QStringLiteral("… 7 earlier events not shown")))
      << rows[3].toStdString();
  EXPECT_EQ(rows.mid(4), numbered(10, 60));
  EXPECT_EQ(m.eventCount(), 53) << "the gap row is not an event";
  EXPECT_FALSE(m.index(3, EventLogModel::Text).data(EventLogModel::FailureRole).toBool());
  EXPECT_EQ(m.update(numberedTail(10, 60)), 0) << "the same window again adds nothing";

  // The same text twice in a row is two events when their numbers differ.
  std::vector<SourceEvent> same = numberedTail(60, 62);
  same[1].text = same[0].text;
  same[1].t_ms = same[0].t_ms;
  EXPECT_EQ(m.update(same), 2);
  EXPECT_EQ(m.eventCount(), 55);

  // Numbers going back: another source's log, shown from its start.
  EXPECT_EQ(m.update(numberedTail(0, 2)), 2);
  EXPECT_EQ(texts(m), numbered(0, 2));
}

TEST(EventLogModel, MarksRowsThatLookLikeFailures) {
  test::ensure_qt_app();
  const std::pair<const char*, bool> rows[] = {
      {"metrics: scrape failed: connect: Connection refused (retry in 2000 ms)", true},
      {"redis: cannot reach 127.0.0.1:6379: timeout", true},
      {"redis: node 127.0.0.1:7002 did not answer", true},
      {"prometheus: refresh failed: HTTP 401 (no credentials sent)", true},
      {"metrics: GET http://gw/metrics: HTTP 403", true},
      {"decision stream: ERR unknown command", true},
      {"redis: read timed out", true},
      {"redis: decision streams: NOAUTH Authentication required.", true},
      {"redis: key api:deferred:1 seen", false},
      {"metrics: connected to http://127.0.0.1:9090/metrics", false},
      {"redis: node 127.0.0.1:7002 answers again", false},
      {"metrics: counter reset: x{a=\"b\"} went from 401 to 3", false},
      {"prometheus: rule HighRateLimitRejection health ok", false},
  };
  EventLogModel model;
  std::vector<SourceEvent> events;
  int failures = 0;
  for (const auto& [text, failure] : rows) {
    EXPECT_EQ(looksLikeFailure(QString::fromUtf8(text)), failure) << text;
    events.push_back(ev(static_cast<int>(events.size()), text));
    failures += failure ? 1 : 0;
  }
  model.update(events);
  EXPECT_EQ(model.failureCount(), failures);
  int plain = 0;  // a row that is not a failure
  while (rows[plain].second) ++plain;
  const qint64 blank =
      model.index(plain, EventLogModel::Time).data(Qt::DecorationRole).value<QIcon>().cacheKey();
  for (int r = 0; r < model.rowCount(); ++r) {
    const bool failure = rows[r].second;
    EXPECT_EQ(model.index(r, 0).data(EventLogModel::FailureRole).toBool(), failure)
        << rows[r].first;
    EXPECT_EQ(model.index(r, EventLogModel::Text).data(Qt::ForegroundRole).isValid(), failure);
    // Every row has an icon (a blank one keeps the times aligned); failures a different one.
    const qint64 icon =
        model.index(r, EventLogModel::Time).data(Qt::DecorationRole).value<QIcon>().cacheKey();
    EXPECT_EQ(icon != blank, failure);
  }
}

TEST(EventLogPanel, PlaceholderWithoutAnEventLogAndTableWithOne) {
  test::ensure_qt_app();
  EventLogPanel panel;
  QSignalSpy titles(&panel, &EventLogPanel::titleChanged);
  panel.setEvents({});
  EXPECT_TRUE(panel.showsPlaceholder());
  EXPECT_TRUE(panel.placeholderText().contains(QStringLiteral("live sources")))
      << panel.placeholderText().toStdString();
  EXPECT_EQ(panel.title(), QStringLiteral("Events"));

  panel.setEvents(tail(0, 3));
  EXPECT_FALSE(panel.showsPlaceholder());
  EXPECT_EQ(panel.title(), QStringLiteral("Events (3)"));
  ASSERT_FALSE(titles.isEmpty());
  EXPECT_EQ(titles.last().at(0).toString(), QStringLiteral("Events (3)"));

  // Back to the simulation (or a recording): the live source's rows go.
  panel.setEvents({});
  EXPECT_TRUE(panel.showsPlaceholder());
  EXPECT_EQ(panel.model()->rowCount(), 0);
  EXPECT_EQ(panel.title(), QStringLiteral("Events"));
}

TEST(EventLogPanel, CopiesTheSelectedRowsAsTimedLines) {
  test::ensure_qt_app();
  EventLogPanel panel;
  panel.resize(500, 200);
  panel.show();
  panel.setEvents({ev(0), ev(1, "metrics: scrape failed: HTTP 500"), ev(2)});
  QItemSelectionModel* sel = panel.view()->selectionModel();
  // Selected out of order: the copy is still oldest first.
  sel->select(panel.model()->index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
  sel->select(panel.model()->index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
  const QString want =
      line(0, QStringLiteral("event 0")) + QLatin1Char('\n') + line(2, QStringLiteral("event 2"));
  EXPECT_EQ(panel.selectedText(), want);

  QApplication::clipboard()->clear();
  QTest::keyClick(panel.view(), Qt::Key_C, Qt::ControlModifier);
  EXPECT_EQ(QApplication::clipboard()->text(), want);
}

TEST(EventLogPanel, ClearHidesWhatArrivedAndResentEventsStayHidden) {
  test::ensure_qt_app();
  EventLogPanel panel;
  panel.setEvents(tail(0, 4));
  panel.clearShown();
  EXPECT_EQ(panel.model()->rowCount(), 0);
  EXPECT_TRUE(panel.showsPlaceholder());
  EXPECT_TRUE(panel.placeholderText().startsWith(QStringLiteral("Cleared at")))
      << panel.placeholderText().toStdString();
  panel.setEvents(tail(0, 4));  // the next snapshot re-sends the same tail
  EXPECT_EQ(panel.model()->rowCount(), 0);
  panel.setEvents(tail(2, 6));  // head dropped, two new
  EXPECT_EQ(texts(*panel.model()), numbered(4, 6));
  EXPECT_FALSE(panel.showsPlaceholder());
}

TEST(EventLogPanel, FollowsTheNewestRowOnlyWhileAtTheBottom) {
  test::ensure_qt_app();
  EventLogPanel panel;
  panel.resize(500, 160);
  panel.show();
  QScrollBar* bar = panel.view()->verticalScrollBar();
  int to = 40;
  panel.setEvents(tail(0, to));
  ASSERT_GT(bar->maximum(), 0) << "more rows than fit";
  EXPECT_EQ(bar->value(), bar->maximum());

  bar->setValue(0);  // the operator scrolls up to read
  to += 3;
  panel.setEvents(tail(to - 40, to));
  EXPECT_EQ(panel.model()->rowCount(), 43);
  EXPECT_EQ(bar->value(), 0) << "not yanked away from what is being read";

  bar->setValue(bar->maximum());  // back at the bottom: following again
  to += 3;
  panel.setEvents(tail(to - 40, to));
  EXPECT_EQ(bar->value(), bar->maximum());
  EXPECT_TRUE(panel.view()->viewport()->rect().contains(
      panel.view()->visualRect(panel.model()->index(panel.model()->rowCount() - 1, 1)).center()));
}

std::string exposition(int n) {
  return "# TYPE limitscope_requests_total counter\n"
         "limitscope_requests_total{tier=\"free\",model=\"m\",decision=\"allowed\"} " +
         std::to_string(n) + "\n";
}

// Waits (without sleeping: each wait returns on the next applied snapshot) until the window's
// Events panel has a row containing `text`; @return its row or -1.
int waitForRow(MainWindow& w, QSignalSpy& applied, const QString& text) {
  for (int i = 0; i < 400; ++i) {
    const QStringList rows = texts(*w.eventLog()->model());
    for (int r = 0; r < rows.size(); ++r) {
      if (rows[r].contains(text)) return r;
    }
    applied.clear();
    if (!applied.wait(10000)) break;
  }
  return -1;
}

TEST(EventLogPanel, MainWindowDockListsALiveSourcesEventsAsTheyHappen) {
  test::ensure_qt_app();
  test::CannedHttpServer gateway;
  gateway.respond({200, "text/plain; version=0.0.4", exposition(1), false, 0});
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  window.show();
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("eventsDock"));
  ASSERT_NE(dock, nullptr);
  EXPECT_EQ(window.dockWidgetArea(dock), Qt::RightDockWidgetArea);  // under the alerts
  EXPECT_TRUE(dock->isVisible());
  EXPECT_TRUE(window.eventLog()->showsPlaceholder()) << "the simulation has no event log";
  bool inViewMenu = false;
  for (const QAction* menu : window.menuBar()->actions()) {
    if (menu->menu() == nullptr) continue;
    for (const QAction* a : menu->menu()->actions())
      inViewMenu = inViewMenu || a == dock->toggleViewAction();
  }
  EXPECT_TRUE(inViewMenu) << "View ▸ Events shows the dock again after it was closed";

  QSignalSpy opened(&window, &MainWindow::liveOpened);
  QSignalSpy applied(&window, &MainWindow::snapshotApplied);
  LiveSpec spec;
  spec.metrics_url = gateway.url();
  spec.metrics_interval = std::chrono::milliseconds(100);
  window.openLive(spec);
  ASSERT_TRUE(opened.wait(10000));
  ASSERT_FALSE(opened.at(0).at(0).toString().isEmpty()) << opened.at(0).at(1).value<Status>();

  const int connected = waitForRow(window, applied, QStringLiteral("connected to"));
  ASSERT_GE(connected, 0);
  EXPECT_FALSE(
      window.eventLog()->model()->index(connected, 0).data(EventLogModel::FailureRole).toBool());
  EXPECT_FALSE(window.eventLog()->showsPlaceholder());

  gateway.require_authorization("Bearer s3cret");  // the gateway now answers 401
  const int refused = waitForRow(window, applied, QStringLiteral("HTTP 401"));
  ASSERT_GT(refused, connected);
  EXPECT_TRUE(
      window.eventLog()->model()->index(refused, 0).data(EventLogModel::FailureRole).toBool());
  EXPECT_EQ(dock->windowTitle(), window.eventLog()->title());
  // Snapshots keep re-sending the tail: every event is still listed once.
  const QStringList rows = texts(*window.eventLog()->model());
  EXPECT_EQ(rows.count(rows[connected]), 1);
}

}  // namespace
}  // namespace limitscope::ui
