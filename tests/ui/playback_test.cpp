// Verifies recording and playback through the window: a session recorded from a
// deterministic simulation plays back with the same chart lines and alert bands; a damaged
// recording shows what loaded before the bad line and names the file and line; the details
// pane lists the decisions the simulation made; --playback works with --screenshot.

#include <gtest/gtest.h>

#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <tuple>

#include "support/main_window_steps.h"
#include "support/qt_app.h"
#include "support/test_paths.h"
#include "ui/charts/time_chart.h"
#include "ui/main_window.h"
#include "ui/models/decision_table_model.h"

namespace limitscope::ui {
namespace {

using test::advance;
constexpr int kWaitMs = test::kGuiWaitMs;

EmbeddedSimulationOptions options() {
  EmbeddedSimulationOptions o = test::simulation_of("burst", 4);
  o.scenario_length = std::chrono::minutes(4);  // the burst's 429s come early
  return o;
}

struct Shown {
  qint64 now_ms = 0;
  int columns = 0;
  int width = 0;
  std::map<QString, QList<QPointF>> lines[4];
  std::vector<AlertInterval> bands[4];
};

Shown shown(const MainWindow& w) {
  Shown s;
  s.now_ms = w.lastSnapshot()->now_ms;
  s.columns = w.viewRequest().columns;
  s.width = w.width();
  for (int c = 0; c < 4; ++c) {
    for (const ChartLine& l : w.lastSnapshot()->charts[static_cast<std::size_t>(c)].lines) {
      const QString name = QString::fromStdString(l.name);
      s.lines[c][name] = w.chart(c)->pointsOf(name);
    }
    // Live, a rule's times are drawn on the lines its alerts select; playback draws the
    // recorded intervals over the whole plot. Both cover the same times: compare their union
    // per rule and state.
    std::vector<AlertInterval> spans = w.chart(c)->shadedIntervals();
    for (const AlertBand& b : w.chart(c)->alertBands()) {
      spans.push_back({b.rule, b.start_ms, b.open ? s.now_ms : b.end_ms, b.firing, b.open});
    }
    std::sort(spans.begin(), spans.end(), [](const AlertInterval& a, const AlertInterval& b) {
      return std::tie(a.rule, a.firing, a.start_ms) < std::tie(b.rule, b.firing, b.start_ms);
    });
    for (const AlertInterval& iv : spans) {
      auto& out = s.bands[c];
      if (!out.empty() && out.back().rule == iv.rule && out.back().firing == iv.firing &&
          iv.start_ms <= out.back().end_ms) {
        out.back().end_ms = std::max(out.back().end_ms, iv.end_ms);
      } else {
        out.push_back(iv);
      }
    }
    std::stable_sort(
        s.bands[c].begin(), s.bands[c].end(), [](const AlertInterval& a, const AlertInterval& b) {
          return std::tie(a.start_ms, a.rule, a.firing) < std::tie(b.start_ms, b.rule, b.firing);
        });
  }
  return s;
}

// Records `seconds` of the simulation to `path` and returns what the window showed at the end.
Shown record(const QString& path, double seconds) {
  MainWindow w(options(), /*start_running=*/false);
  w.resize(1400, 900);
  w.show();
  QSignalSpy rec(&w, &MainWindow::recordingChanged);
  w.setRecording(path);
  EXPECT_TRUE(rec.wait(kWaitMs));
  EXPECT_EQ(rec.back().at(0).toString(), path) << rec.back().at(1).value<Status>();
  advance(w, seconds);
  const Shown s = shown(w);
  w.setRecording(QString());
  EXPECT_TRUE(rec.wait(kWaitMs));
  EXPECT_TRUE(rec.back().at(0).toString().isEmpty());
  EXPECT_EQ(rec.back().at(1).value<Status>(), Status{});
  return s;
}

void open(MainWindow& w, const QString& path) {
  QSignalSpy opened(&w, &MainWindow::playbackOpened);
  w.openRecording(path);
  ASSERT_TRUE(opened.wait(kWaitMs));
  const std::string source = "playback: " + path.toStdString();
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        return w.lastSnapshot() && w.lastSnapshot()->source == source &&
               w.lastSnapshot()->view.max_lines == w.viewRequest().max_lines;
      },
      kWaitMs));
}

TEST(Playback, RecordedSessionPlaysBackWithTheSameChartsAndBands) {
  test::ensure_qt_app();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("session.jsonl"));
  const Shown live = record(path, 240);

  MainWindow w(options(), false);
  w.resize(1400, 900);
  w.show();
  open(w, path);
  EXPECT_TRUE(w.isPlayback());
  ASSERT_EQ(w.lastSnapshot()->now_ms, live.now_ms);  // opens at the recording's end
  const Shown played = shown(w);
  ASSERT_EQ(played.width, live.width);
  ASSERT_EQ(played.columns, live.columns);
  std::size_t bands = 0;
  for (int c = 0; c < 4; ++c) {
    ASSERT_EQ(played.lines[c].size(), live.lines[c].size()) << "chart " << c;
    for (const auto& [name, pts] : live.lines[c]) {
      const auto it = played.lines[c].find(name);
      ASSERT_NE(it, played.lines[c].end()) << name.toStdString();
      ASSERT_EQ(it->second.size(), pts.size()) << name.toStdString();
      for (qsizetype i = 0; i < pts.size(); ++i) {
        ASSERT_EQ(it->second[i], pts[i])
            << name.toStdString() << " point " << i << " of " << pts.size() << ": "
            << it->second[i].y() << " vs " << pts[i].y();
      }
    }
    ASSERT_EQ(played.bands[c].size(), live.bands[c].size()) << "chart " << c;
    for (std::size_t i = 0; i < live.bands[c].size(); ++i) {
      EXPECT_EQ(played.bands[c][i].start_ms, live.bands[c][i].start_ms);
      EXPECT_EQ(played.bands[c][i].end_ms, live.bands[c][i].end_ms);
      EXPECT_EQ(played.bands[c][i].firing, live.bands[c][i].firing);
    }
    bands += live.bands[c].size();
  }
  EXPECT_GT(bands, 0u) << "the burst should make a rule pend";
  EXPECT_FALSE(live.lines[0].empty());
  const auto* source = w.findChild<QLabel*>(QStringLiteral("statusSource"));
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->text(), QStringLiteral("playback: ") + path);

  // Seek back a minute: the charts end at the cursor.
  w.seek(live.now_ms - 60'000);
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.lastSnapshot()->now_ms == live.now_ms - 60'000; }, kWaitMs));
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return !w.chart(0)->pointsOf(live.lines[0].begin()->first).isEmpty(); }, kWaitMs));
  for (const auto& [name, pts] : shown(w).lines[0]) {
    if (!pts.isEmpty()) {
      EXPECT_LE(pts.back().x(), static_cast<double>(live.now_ms - 60'000)) << name.toStdString();
    }
  }

  // Back to the simulation.
  w.closeRecording();
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.isPlayback(); }, kWaitMs));
}

TEST(Playback, DamagedRecordingShowsWhatCameBeforeTheBadLine) {
  test::ensure_qt_app();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("session.jsonl"));
  record(path, 60);
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadWrite));
  QByteArray text = f.readAll();
  const int lines = static_cast<int>(text.count('\n'));
  text.truncate(text.lastIndexOf("{\"type\":\"end\"") + 10);  // the end line, cut mid-write
  f.resize(0);
  f.write(text);
  f.close();

  MainWindow w(options(), false);
  w.show();
  open(w, path);
  const QString expected = path + QStringLiteral(":%1: truncated last line").arg(lines);
  const auto* error = w.findChild<QLabel*>(QStringLiteral("statusError"));
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(error->text().startsWith(expected)) << error->text().toStdString();
  EXPECT_GT(w.chart(0)->lineCount(), 0);  // the samples before the bad line
}

TEST(Playback, DetailsPaneListsTheDecisionsTheSimulationMade) {
  test::ensure_qt_app();
  MainWindow w(options(), false);
  w.show();
  advance(w, 90);
  ASSERT_TRUE(w.selectKey(QStringLiteral("pro-startup"), QStringLiteral("gpt-4.1")));
  DecisionTableModel* m = w.decisionModel();
  ASSERT_TRUE(QTest::qWaitFor([&] { return m->rowCount() == 50; }, kWaitMs));

  // An independent run of the same simulation, keeping every request.
  auto scenario = make_scenario(options().scenario, options().scenario_length);
  SimulationOptions so;
  so.seed = options().seed;
  so.record_requests = true;
  auto sim = Simulation::create(default_policy(), std::move(*scenario), so);
  ASSERT_TRUE(sim.ok());
  for (int i = 0; i < 90; ++i) (*sim)->step();
  std::vector<const RequestRecord*> mine;
  for (const RequestRecord& r : (*sim)->requests()) {
    if (r.api_key == "pro-startup") mine.push_back(&r);
  }
  ASSERT_GE(mine.size(), 50u);
  const auto epoch_ns = std::chrono::duration_cast<Nanos>(so.wall_epoch).count();
  for (int i = 0; i < 50; ++i) {
    const RequestRecord& r = *mine[mine.size() - 1 - static_cast<std::size_t>(i)];
    const DecisionRow* d = m->decisionAt(i);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->t_ns, epoch_ns + r.time.count());
    EXPECT_EQ(d->model, r.model);
    EXPECT_EQ(d->allowed, r.allowed);
    EXPECT_EQ(d->remaining, r.remaining);
    const QString result = m->data(m->index(i, DecisionTableModel::Result)).toString();
    EXPECT_EQ(result.startsWith(QStringLiteral("429")), !r.allowed) << result.toStdString();
  }
}

TEST(Playback, ClosingTheWindowEndsTheRecordingCleanly) {
  test::ensure_qt_app();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("session.jsonl"));
  {
    MainWindow w(options(), false);
    w.show();
    QSignalSpy rec(&w, &MainWindow::recordingChanged);
    w.setRecording(path);
    ASSERT_TRUE(rec.wait(kWaitMs));
    advance(w, 5);
  }  // closed while recording
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray text = f.readAll();
  EXPECT_TRUE(text.endsWith("}\n"));
  EXPECT_TRUE(text.mid(text.lastIndexOf("\n{") + 1).startsWith("{\"type\":\"end\""))
      << text.right(200).toStdString();
}

TEST(Playback, CommandLinePlaybackScreenshotAndBadFile) {
  test::ensure_qt_app();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("session.jsonl"));
  record(path, 30);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.path());
  const QString png = dir.filePath(QStringLiteral("shot.png"));
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(QString::fromStdString(test::binary_path("app/limitscope")),
          {QStringLiteral("--playback"), path, QStringLiteral("--screenshot"), png,
           QStringLiteral("--after"), QStringLiteral("20")});
  ASSERT_TRUE(p.waitForFinished(kWaitMs));
  EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  EXPECT_GT(QFileInfo(png).size(), 0);

  const QString bad = dir.filePath(QStringLiteral("bad.jsonl"));
  QFile f(bad);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("{\"type\":\"header\",\"format\":\"limitscope-recording\",\"version\":9}\n");
  f.close();
  QProcess q;
  q.setProcessEnvironment(env);
  q.start(QString::fromStdString(test::binary_path("app/limitscope")),
          {QStringLiteral("--playback"), bad, QStringLiteral("--screenshot"), png});
  ASSERT_TRUE(q.waitForFinished(kWaitMs));
  EXPECT_EQ(q.exitCode(), 2);
  const QByteArray err = q.readAllStandardError();
  EXPECT_TRUE(err.contains((bad + QStringLiteral(":1: unknown recording version 9")).toUtf8()))
      << err.toStdString();
}

}  // namespace
}  // namespace limitscope::ui
