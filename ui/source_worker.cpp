#include "ui/simulation_worker.h"

#include <QTimer>

#include <fstream>

#include "core/sources/chart_export.h"

namespace limitscope::ui {
namespace {

constexpr int kTickMs = 100;  // simulation advance + snapshot at most 10 times a second

ChartView to_chart_view(const ViewRequest& v, qint64 now_ms) {
  ChartView cv;
  if (v.live) {
    cv.end_ms = now_ms;
    cv.start_ms = now_ms - v.span_ms;
  } else {
    cv.start_ms = v.start_ms;
    cv.end_ms = v.end_ms;
  }
  cv.columns = std::max(50, v.columns);
  for (const QString& k : v.selected_keys) cv.selected_keys.push_back(k.toStdString());
  return cv;
}

}  // namespace

SimulationWorker::SimulationWorker(EmbeddedSimulationOptions options, bool start_running, QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_running(start_running) {}

SimulationWorker::~SimulationWorker() = default;

void SimulationWorker::start() {
  auto source = EmbeddedSimulationSource::create(default_policy(), m_options);
  if (!source) {
    emit sourceFailed(QString::fromStdString(source.error()));
    return;
  }
  m_source = std::move(*source);
  m_timer = new QTimer(this);
  m_timer->setInterval(kTickMs);
  connect(m_timer, &QTimer::timeout, this, &SimulationWorker::tick);
  m_elapsed.start();
  m_timer->start();
  publish();
}

void SimulationWorker::setRunning(bool running) {
  m_running = running;
  m_elapsed.restart();
}

void SimulationWorker::setSpeed(int times) { m_speed = std::clamp(times, 1, 600); }

void SimulationWorker::setView(const ViewRequest& view) {
  m_view = view;
  publish();
}

void SimulationWorker::fastForward(double seconds) {
  if (!m_source) return;
  if (!(seconds > 0)) {
    publish();
    emit fastForwarded();
    return;
  }
  m_source->advance(std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(seconds)));
  publish();
  emit fastForwarded();
}

void SimulationWorker::inject(int incident_kind, double seconds) {
  if (!m_source) return;
  const auto kind = static_cast<IncidentKind>(incident_kind);
  auto err = m_source->inject(kind, std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(seconds)));
  m_lastError = err ? QString::fromStdString(*err) : QString();
  publish();
}

void SimulationWorker::exportCsv(const QString& path) {
  if (!m_source) return;
  const ChartView cv = to_chart_view(m_view, m_source->now_ms());
  const DashboardSnapshot snap = m_source->snapshot(cv);
  std::ofstream out(path.toStdString());
  if (!out) {
    emit exportFinished(path, tr("cannot open \"%1\" for writing").arg(path));
    return;
  }
  write_chart_csv(out, m_source->store(), snap.charts, cv.start_ms, cv.end_ms);
  out.close();
  emit exportFinished(path, out ? QString() : tr("writing \"%1\" failed").arg(path));
}

void SimulationWorker::tick() {
  const qint64 real_ms = m_elapsed.restart();
  if (m_running && m_source) {
    // Cap a stalled tick (machine asleep, debugger) to one second of real time.
    const qint64 sim_ms = std::min<qint64>(real_ms, 1000) * m_speed;
    m_source->advance(std::chrono::milliseconds(sim_ms));
  }
  publish();
}

void SimulationWorker::publish() {
  if (!m_source) return;
  auto snap = std::make_shared<DashboardSnapshot>(m_source->snapshot(to_chart_view(m_view, m_source->now_ms())));
  if (!m_lastError.isEmpty()) snap->last_error = m_lastError.toStdString();
  if (!m_running) snap->connection = "stopped";
  emit snapshotReady(std::move(snap));
}

}  // namespace limitscope::ui
