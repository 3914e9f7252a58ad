// limitscope-bench-ui --series: what one chart's lines cost to update and paint, three ways,
// on one 900x260 chart: QtCharts' own QLineSeries (replace() + paint), the same with
// setUseOpenGL(true), and the dashboard's TimeChart (QLineSeries for the legend, the points
// painted as cosmetic polylines). For 8 lines (what a dashboard chart draws) and 50, each of
// 1,100 points (one per pixel column). Reports the process CPU (an OpenGL driver may draw on
// threads of its own) and wall time per frame; run under xvfb-run for a real OpenGL context
// (Mesa), the offscreen platform has none (and there QtCharts' OpenGL series crash).

#include "bench/ui/series_bench.h"

#include <time.h>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QElapsedTimer>
#include <QLineSeries>
#include <QOpenGLContext>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ui/charts/time_chart.h"

namespace limitscope::bench {
namespace {

double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

constexpr int kPoints = 1100;
constexpr int kFrames = 40;

double y_at(int line, int x, int frame) {
  return 0.5 + 0.45 * std::sin(line * 0.37 + (x + frame) * 0.01);
}

struct PerFrame {
  double cpu_ms = 0, wall_ms = 0;
};

/// Median of per-frame costs of `frame(i)` followed by painting `w`.
/// With LIMITSCOPE_BENCH_SHOTS=DIR set, the last frame of each case is saved there as
/// `name`.png, to see that it drew its lines.
template <class F>
PerFrame measure(QWidget& w, const QString& name, F frame) {
  std::vector<double> cpu, wall;
  for (int i = 0; i < kFrames; ++i) {
    QElapsedTimer t;
    t.start();
    const double c0 = process_cpu_ms();
    frame(i);
    const QPixmap shot = w.grab();
    if (i + 1 == kFrames && qEnvironmentVariableIsSet("LIMITSCOPE_BENCH_SHOTS")) {
      shot.save(qEnvironmentVariable("LIMITSCOPE_BENCH_SHOTS") + QLatin1Char('/') + name +
                QStringLiteral(".png"));
    }
    cpu.push_back(process_cpu_ms() - c0);
    wall.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6 + (shot.isNull() ? 1e9 : 0));
  }
  std::sort(cpu.begin(), cpu.end());
  std::sort(wall.begin(), wall.end());
  return {cpu[cpu.size() / 2], wall[wall.size() / 2]};
}

PerFrame qtcharts(int lines, bool opengl) {
  auto* chart = new QChart;
  QChartView view(chart);
  view.resize(900, 260);
  auto* x = new QValueAxis;
  auto* y = new QValueAxis;
  x->setRange(0, kPoints);
  y->setRange(0, 1);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  std::vector<QLineSeries*> series;
  for (int l = 0; l < lines; ++l) {
    auto* s = new QLineSeries;
    s->setUseOpenGL(opengl);
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
    series.push_back(s);
  }
  view.show();
  QApplication::processEvents();
  QList<QPointF> points(kPoints);
  return measure(view,
                 QStringLiteral("qtcharts-%1%2")
                     .arg(lines)
                     .arg(opengl ? QStringLiteral("-opengl") : QString()),
                 [&](int frame) {
                   for (int l = 0; l < lines; ++l) {
                     for (int p = 0; p < kPoints; ++p) points[p] = QPointF(p, y_at(l, p, frame));
                     series[static_cast<std::size_t>(l)]->replace(points);
                   }
                 });
}

PerFrame time_chart(int lines) {
  ui::TimeChart chart({});
  chart.resize(900, 260);
  chart.show();
  QApplication::processEvents();
  ChartData data;
  data.title = "bench";
  data.y_max = 1;
  data.lines.resize(static_cast<std::size_t>(lines));
  for (int l = 0; l < lines; ++l)
    data.lines[static_cast<std::size_t>(l)].name = "line " + std::to_string(l);
  return measure(chart, QStringLiteral("timechart-%1").arg(lines), [&](int frame) {
    for (int l = 0; l < lines; ++l) {
      auto& pts = data.lines[static_cast<std::size_t>(l)].points;
      pts.resize(kPoints);
      for (int p = 0; p < kPoints; ++p)
        pts[static_cast<std::size_t>(p)] = {static_cast<double>(p), y_at(l, p, frame)};
    }
    chart.setData(data, {}, 0, kPoints);
  });
}

}  // namespace

int run_series_bench() {
  QOpenGLContext probe;
  const bool gl = probe.create();
  std::printf(
      "one chart, 900x260, lines of %d points, median of %d frames (process CPU / wall per "
      "frame)\n",
      kPoints, kFrames);
  std::printf("  platform %s, OpenGL context: %s\n", qPrintable(QGuiApplication::platformName()),
              gl ? "yes" : "none (QtCharts' OpenGL series crash without one: not measured)");
  for (const int lines : {8, 50}) {
    const PerFrame soft = qtcharts(lines, false);
    const PerFrame ogl = gl ? qtcharts(lines, true) : PerFrame{};
    const PerFrame ours = time_chart(lines);
    std::printf(
        "  %2d lines: QLineSeries %7.2f / %7.2f ms   QLineSeries+OpenGL %7.2f / %7.2f ms   "
        "TimeChart %7.2f / %7.2f ms\n",
        lines, soft.cpu_ms, soft.wall_ms, ogl.cpu_ms, ogl.wall_ms, ours.cpu_ms, ours.wall_ms);
  }
  return 0;
}

}  // namespace limitscope::bench
