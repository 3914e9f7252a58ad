// limitscope-bench-tuner: the Tuner tab's two operator-facing figures, offscreen.
//   redraw: a candidate slider change on a 100,000-event trace until the what-if chart is
//           repainted (worker replay + queued result + series replace + paint); target 100 ms.
//   load:   a 10,000,000-line JSON-lines trace loaded with progress and bounded memory (the
//           core loader the tab's worker runs), then the same load cancelled half-way.
// Prints figures, not pass/fail. Usage: limitscope-bench-tuner [--lines N] [--changes N]

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSlider>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/trace/trace_file_load.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/trace_panel.h"
#include "ui/tuner/tuner_tab.h"
#include "ui/tuner/whatif_chart.h"
#include "ui/tuner/whatif_panel.h"

namespace {

using namespace limitscope;

long status_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field)));
  }
  return -1;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

ui::TracePtr trace_of(std::size_t events) {
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> gap(1000.0);  // 1,000 requests/s: 100 s of traffic
  std::uniform_int_distribution<int> key(0, 199);
  std::uniform_int_distribution<int> cost(1, 15);
  auto t = std::make_shared<trace::Trace>();
  double now = 0;
  for (std::size_t i = 0; i < events; ++i) {
    now += gap(rng);
    t->add(static_cast<std::int64_t>(now * 1e9), "key-" + std::to_string(key(rng)), cost(rng));
  }
  return t;
}

void bench_redraw(int changes) {
  ui::TunerTab tab;
  tab.resize(1600, 1000);
  tab.show();
  QEventLoop loop;
  QObject::connect(&tab, &ui::TunerTab::whatIfUpdated, &loop, &QEventLoop::quit);
  tab.tracePanel()->setTrace(trace_of(100'000), QStringLiteral("bench"));
  loop.exec();
  QSlider* slider = tab.candidateEditor()->firstSlider();
  const int base = slider->value();
  std::vector<double> ms, series_ms;
  int sink = 0;
  for (int i = 0; i < changes; ++i) {
    QElapsedTimer timer;
    timer.start();
    slider->setValue(base + (i % 2 == 0 ? 40 : -40) + i % 7);  // as a drag would
    loop.exec();  // until the chart holds the new series
    series_ms.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    sink += tab.whatIfPanel()->chart()->grab().width();  // and has painted them
    ms.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
  }
  std::printf(
      "redraw after a slider change, 100,000 events, %d changes: p50 %.1f ms, p99 %.1f ms, max "
      "%.1f ms "
      "(target 100 ms: p99 is %.2f of it)%s\n",
      changes, percentile(ms, 0.5), percentile(ms, 0.99), *std::max_element(ms.begin(), ms.end()),
      percentile(ms, 0.99) / 100.0, sink > 0 ? "" : " ");
  std::printf(
      "  of which until the chart holds the new series (replay on the worker + replace): p50 %.1f "
      "ms, "
      "p99 %.1f ms; painting the rest\n",
      percentile(series_ms, 0.5), percentile(series_ms, 0.99));
}

void bench_load(std::size_t lines) {
  const std::string path = "/tmp/limitscope-bench-tuner-" + std::to_string(::getpid()) + ".jsonl";
  {
    std::ofstream out(path);
    std::string line;
    for (std::size_t i = 0; i < lines; ++i) {
      line = "{\"t\": " + std::to_string(static_cast<double>(i) * 1e-4) + ", \"key\": \"key-" +
             std::to_string(i % 5000) + "\", \"cost\": " + std::to_string(1 + i % 8) + "}\n";
      out << line;
    }
  }
  std::ifstream size_in(path, std::ios::ate | std::ios::binary);
  const double mb = static_cast<double>(size_in.tellg()) / 1e6;
  const long rss_before = status_kib("VmRSS:");
  int reports = 0;
  auto start = std::chrono::steady_clock::now();
  {
    auto load = trace::load_trace_file_bounded(path, {}, nullptr, [&](double) { ++reports; });
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const long peak = status_kib("VmHWM:");
    std::printf(
        "load %zu lines (%.0f MB): %.1f s, %zu events, %d progress reports, peak RSS %.0f MB "
        "(before %.0f MB; events %.0f MB at 24 B; cap %zu events = %.0f MB)\n",
        lines, mb, s, load ? load->trace.events.size() : 0, reports,
        static_cast<double>(peak) / 1024, static_cast<double>(rss_before) / 1024,
        static_cast<double>(trace::trace_event_bytes(lines)) / 1e6,
        trace::BoundedLoadOptions{}.max_events,
        static_cast<double>(trace::trace_event_bytes(trace::BoundedLoadOptions{}.max_events)) /
            1e6);
  }
  std::atomic<bool> cancel{false};
  std::chrono::steady_clock::time_point asked;
  start = std::chrono::steady_clock::now();
  auto cancelled = trace::load_trace_file_bounded(path, {}, &cancel, [&](double f) {
    if (f >= 0.5 && !cancel) {
      asked = std::chrono::steady_clock::now();
      cancel = true;
    }
  });
  const double latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - asked).count();
  std::printf("cancel at 50%%: %s after %.1f ms\n",
              cancelled ? "NOT cancelled" : cancelled.error().c_str(), latency_ms);
  std::remove(path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  std::size_t lines = 10'000'000;
  int changes = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--lines") == 0) lines = std::stoul(argv[i + 1]);
    if (std::strcmp(argv[i], "--changes") == 0) changes = std::stoi(argv[i + 1]);
  }
  QApplication app(argc, argv);
  bench_redraw(changes);
  if (lines > 0) bench_load(lines);
  return 0;
}
