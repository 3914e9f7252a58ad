// Verifies the dashboard end to end on a deterministic simulation (stopped clock, fixed seed):
// charts draw the store's decimated data, alert bands appear when the engine reports them,
// pause keeps recording and resume catches up, exports match the store, and the
// --screenshot mode writes an image with no display.

#include "ui/main_window.h"

#include <gtest/gtest.h>

#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <string>

#include "core/metrics/series_store.h"
#include "support/main_window_steps.h"
#include "support/qt_app.h"
#include "support/test_paths.h"
#include "ui/charts/time_chart.h"
#include "ui/models/alert_table_model.h"
#include "ui/models/key_table_model.h"

namespace limitscope::ui {
namespace {

using test::advance;
constexpr int kWaitMs = test::kGuiWaitMs;

EmbeddedSimulationOptions sim_options() {
  return test::simulation_of("runaway", 3);
}

// The same run, built directly, to compare the window against.
std::unique_ptr<EmbeddedSimulationSource> reference(double seconds) {
  auto src = EmbeddedSimulationSource::create(default_policy(), sim_options());
  EXPECT_TRUE(src.ok());
  (*src)->advance(std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(seconds)));
  return std::move(*src);
}

TEST(MainWindow, ChartsShowTheStoresDecimatedSeriesAndAlertBands) {
  test::ensure_qt_app();
  MainWindow w(sim_options(), /*start_running=*/false);
  w.resize(1400, 900);
  w.show();
  advance(w, 25 * 60);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastSnapshot() && !w.lastSnapshot()->charts.empty(); },
                              kWaitMs));
  const auto snap = w.lastSnapshot();

  // Recompute the same view from an independent run of the same scenario and seed.
  auto ref = reference(25 * 60);
  ASSERT_EQ(ref->now_ms(), snap->now_ms);
  ChartView view;
  view.end_ms = snap->now_ms;
  view.start_ms = snap->now_ms - w.viewRequest().span_ms;
  view.columns = std::max(50, w.viewRequest().columns);
  view.max_lines = w.viewRequest().max_lines;  // what the legends can list at this size
  const ChartData expected = bucket_level_chart(ref->store(), view);
  ASSERT_FALSE(expected.lines.empty());
  for (const ChartLine& line : expected.lines) {
    QList<QPointF> pts;
    for (const auto& p : line.points) pts.append(QPointF(p.x, p.y));
    EXPECT_EQ(w.chart(0)->pointsOf(QString::fromStdString(line.name)), pts) << line.name;
  }
  EXPECT_EQ(w.chart(0)->lineCount(), static_cast<int>(expected.lines.size()));

  // The runaway client makes HighRateLimitRejection fire; the 429 chart marks the interval
  // the engine reports on the free tier's line (the runaway's), and only that chart's rules.
  const auto ref_snap = ref->snapshot(view);
  std::vector<AlertInterval> firing;
  for (const AlertInterval& iv : ref_snap.alert_intervals) {
    if (iv.rule == "HighRateLimitRejection" && iv.firing && iv.end_ms >= view.start_ms)
      firing.push_back(iv);
  }
  ASSERT_FALSE(firing.empty())
      << "the scenario should fire HighRateLimitRejection within 25 minutes";
  bool found = false;
  for (const AlertBand& b : w.chart(2)->alertBands()) {
    found |=
        b.rule == "HighRateLimitRejection" && b.firing && b.start_ms == firing.front().start_ms;
    if (b.rule == "HighRateLimitRejection") {
      EXPECT_EQ(b.line, "free") << "a band off the runaway tier's line";
    }
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(w.chart(2)->shadedIntervals().empty()) << "a band over the whole plot";
  for (const AlertInterval& iv : w.chart(0)->shadedIntervals())
    EXPECT_EQ(iv.rule, "TokenBucketExhausted");
  for (const AlertBand& b : w.chart(0)->alertBands()) EXPECT_EQ(b.rule, "TokenBucketExhausted");
  bool listed = false;
  for (int r = 0; r < w.alertModel()->rowCount(); ++r) {
    listed |= w.alertModel()->alertAt(r)->rule == "HighRateLimitRejection" &&
              w.alertModel()->alertAt(r)->state == AlertState::firing;
  }
  EXPECT_TRUE(listed);
  EXPECT_GT(w.keyModel()->rowCount(), 0);
}

TEST(MainWindow, PauseKeepsRecordingAndResumeCatchesUp) {
  test::ensure_qt_app();
  MainWindow w(sim_options(), false);
  w.show();
  advance(w, 120);
  const qint64 paused_at = w.lastSnapshot()->now_ms;
  w.setPaused(true);
  EXPECT_FALSE(w.isLive());
  advance(w, 60);
  // Recording went on (the source moved 60 s) while the view stayed where it was.
  EXPECT_EQ(w.lastSnapshot()->now_ms, paused_at + 60'000);
  EXPECT_EQ(w.viewRequest().end_ms, paused_at);
  const QString tip_paused = w.chart(2)->valuesAt(paused_at + 30'000);
  w.setPaused(false);
  EXPECT_TRUE(w.isLive());
  advance(w, 1);
  // Live again: the charts reach the newest data.
  QStringList names;
  for (const ChartLine& l : w.lastSnapshot()->charts[2].lines)
    names << QString::fromStdString(l.name);
  ASSERT_FALSE(names.isEmpty());
  const QList<QPointF> pts = w.chart(2)->pointsOf(names.front());
  ASSERT_FALSE(pts.isEmpty());
  EXPECT_GE(pts.back().x(), static_cast<double>(paused_at + 60'000));
  EXPECT_NE(tip_paused, QString());
}

TEST(MainWindow, AnotherTabHidesTheDashboardsDocksAndBringsThemBack) {
  test::ensure_qt_app();
  MainWindow w(sim_options(), false);
  w.show();
  auto* keys = w.findChild<QDockWidget*>(QStringLiteral("keysDock"));
  auto* alerts = w.findChild<QDockWidget*>(QStringLiteral("alertsDock"));
  auto* controls = w.findChild<QToolBar*>(QStringLiteral("controls"));
  ASSERT_TRUE(keys != nullptr && alerts != nullptr && controls != nullptr);
  alerts->hide();  // the operator closed one dock: coming back must not reopen it
  const int page = w.addWorkspaceTab(new QLabel(QStringLiteral("page")), QStringLiteral("Page"));
  EXPECT_EQ(page, 1);
  w.showWorkspaceTab(page);
  EXPECT_FALSE(keys->isVisible());
  EXPECT_FALSE(controls->isVisible());
  w.showWorkspaceTab(0);
  EXPECT_TRUE(keys->isVisible());
  EXPECT_FALSE(alerts->isVisible());
  EXPECT_TRUE(controls->isVisible());
}

TEST(MainWindow, ExportsPngAndCsvMatchingTheStore) {
  test::ensure_qt_app();
  QTemporaryDir dir;
  MainWindow w(sim_options(), false);
  w.show();
  advance(w, 90);
  const QString png = dir.filePath(QStringLiteral("charts.png"));
  QSignalSpy pngSpy(&w, &MainWindow::pngExported);
  w.exportPng(png);  // grabbed here, encoded and written by the worker
  ASSERT_TRUE(pngSpy.wait(kWaitMs));
  EXPECT_EQ(pngSpy.front().at(1).value<Status>(), Status{});
  EXPECT_GT(QFileInfo(png).size(), 0);
  QImage img(png);
  ASSERT_FALSE(img.isNull());
  EXPECT_GT(img.width(), 100);

  const QString csv = dir.filePath(QStringLiteral("series.csv"));
  QSignalSpy spy(&w, &MainWindow::csvExported);
  w.exportCsv(csv);
  ASSERT_TRUE(spy.wait(kWaitMs));
  EXPECT_EQ(spy.front().at(1).value<Status>(), Status{});
  QFile f(csv);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QStringList lines =
      QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  ASSERT_GT(lines.size(), 10);
  EXPECT_EQ(lines.front(), QStringLiteral("chart,series,time_ms,value"));
  // Each row's value is the store's sample at that time for that series.
  auto ref = reference(90);
  int checked = 0;
  for (int i = 1; i < lines.size(); i += std::max<qsizetype>(1, lines.size() / 50)) {
    const QString row = lines[i];
    const qsizetype last = row.lastIndexOf(QLatin1Char(','));
    const qsizetype prev = row.lastIndexOf(QLatin1Char(','), last - 1);
    const qint64 t = row.mid(prev + 1, last - prev - 1).toLongLong();
    const double v = std::stod(row.mid(last + 1).toStdString());
    bool match = false;
    for (const auto& s : ref->store().select({}, t, t)) {
      for (const auto& smp : s.samples) match |= smp.t_ms == t && smp.value == v;
    }
    EXPECT_TRUE(match) << row.toStdString();
    ++checked;
  }
  EXPECT_GT(checked, 5);

  // A file that cannot be written is reported, not silently dropped.
  QSignalSpy badSpy(&w, &MainWindow::pngExported);
  w.exportPng(dir.filePath(QStringLiteral("missing-dir/charts.png")));
  ASSERT_TRUE(badSpy.wait(kWaitMs));
  const Status refused = badSpy.front().at(1).value<Status>();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("missing-dir"), std::string::npos) << refused;
}

TEST(MainWindow, ScreenshotModeWritesAnImageWithoutADisplay) {
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("shot.png"));
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.path());  // no saved layout from the user
  p.setProcessEnvironment(env);
  p.start(QString::fromStdString(test::binary_path("app/limitscope")),
          {QStringLiteral("--screenshot"), png, QStringLiteral("--after"), QStringLiteral("120")});
  ASSERT_TRUE(p.waitForFinished(kWaitMs));
  EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  QImage img(png);
  ASSERT_FALSE(img.isNull());
  EXPECT_EQ(img.size(), QSize(1600, 1000));

  QProcess bad;
  bad.setProcessEnvironment(env);
  bad.start(
      QString::fromStdString(test::binary_path("app/limitscope")),
      {QStringLiteral("--scenario"), QStringLiteral("nope"), QStringLiteral("--screenshot"), png});
  ASSERT_TRUE(bad.waitForFinished(kWaitMs));
  EXPECT_EQ(bad.exitCode(), 2);
  EXPECT_TRUE(bad.readAllStandardError().contains("nope"));
}

}  // namespace
}  // namespace limitscope::ui
