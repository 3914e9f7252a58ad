#include "ui/source_worker.h"

#include <QFileInfo>
#include <QImageWriter>
#include <QTimer>
#include <fstream>

#include "core/dashboard/chart_export.h"
#include "core/dashboard/incident_summary.h"

namespace limitscope::ui {
namespace {

constexpr int kTickMs = 100;  // source advance + snapshot at most 10 times a second

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
  cv.max_lines = std::max(1, v.max_lines);
  for (const QString& k : v.selected_keys) cv.selected_keys.push_back(k.toStdString());
  return cv;
}

Nanos seconds(double s) {
  return std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(s));
}

}  // namespace

SourceWorker::SourceWorker(EmbeddedSimulationOptions options, bool start_running, QObject* parent)
    : QObject(parent),
      m_options(std::move(options)),
      m_running(start_running),
      m_sourceRunning(start_running) {}

SourceWorker::~SourceWorker() {
  // End line and flush; nothing to report any more.
  if (m_source) (void)m_source->stop_recording();
}

DashboardSource* SourceWorker::active() const {
  if (m_playback) return m_playback.get();
  return m_source.get();
}

void SourceWorker::start() {
  auto source = EmbeddedSimulationSource::create(default_policy(), m_options);
  if (!source) {
    emit sourceFailed(QString::fromStdString(source.error()));
    return;
  }
  m_source = std::move(*source);
  m_timer = new QTimer(this);
  m_timer->setInterval(kTickMs);
  connect(m_timer, &QTimer::timeout, this, &SourceWorker::tick);
  m_elapsed.start();
  m_timer->start();
  publish();
}

void SourceWorker::setRunning(bool running) {
  m_running = running;
  if (!m_playback) m_sourceRunning = running;
  // Play at the end of a recording starts it over.
  if (running && m_playback && m_playback->at_end()) m_playback->seek(m_playback->begin_ms());
  m_elapsed.restart();
  publish();
}

void SourceWorker::setSpeed(int times) {
  m_speed = std::clamp(times, 1, 600);
}

void SourceWorker::setView(const ViewRequest& view) {
  m_view = view;
  m_keyTable.set_sort(view.key_sort);
  publish();
}

void SourceWorker::fastForward(double secs) {
  if (DashboardSource* src = active()) {
    src->fast_forward(seconds(std::max(secs, 0.0)));
    flushRecording(*src);
  }
  publish();
  emit fastForwarded();
}

void SourceWorker::inject(int incident_kind, double secs) {
  if (!m_source || m_playback) return;
  const Status injected = m_source->inject(static_cast<IncidentKind>(incident_kind), seconds(secs));
  m_lastError = injected.ok() ? QString() : QString::fromStdString(injected.error());
  publish();
}

void SourceWorker::exportCsv(const QString& path) {
  const DashboardSource* src = active();
  if (src == nullptr) return;
  ChartView cv = to_chart_view(m_view, src->now_ms());
  cv.end_ms =
      std::min<std::int64_t>(cv.end_ms, src->now_ms());  // playback: nothing after the cursor
  const DashboardSnapshot snap = src->snapshot(cv);
  std::ofstream out(path.toStdString());
  if (!out) {
    emit exportFinished(path, failure(tr("cannot open \"%1\" for writing").arg(path)));
    return;
  }
  write_chart_csv(out, src->store(), snap.charts, cv.start_ms, cv.end_ms);
  out.close();
  emit exportFinished(path, out ? Status{} : failure(tr("writing \"%1\" failed").arg(path)));
}

void SourceWorker::savePng(const QImage& image, const QString& path) {
  QImageWriter writer(path, "png");
  const bool ok = !image.isNull() && writer.write(image);
  emit pngSaved(path, ok ? Status{}
                         : failure(tr("cannot write \"%1\": %2")
                                       .arg(path, image.isNull() ? tr("empty picture")
                                                                 : writer.errorString())));
}

void SourceWorker::saveReport(const SnapshotPtr& snapshot, const QImage& image,
                              const QString& md_path) {
  const QString png = QFileInfo(md_path).path() + QLatin1Char('/') +
                      QFileInfo(md_path).completeBaseName() + QStringLiteral(".png");
  QImageWriter writer(png, "png");
  if (image.isNull() || !writer.write(image)) {
    emit reportSaved(md_path,
                     failure(tr("cannot write \"%1\": %2").arg(png, writer.errorString())));
    return;
  }
  IncidentSummaryOptions o;
  o.png_name = QFileInfo(png).fileName().toStdString();
  const std::string md = snapshot ? incident_summary_markdown(*snapshot, o) : std::string();
  std::ofstream out(md_path.toStdString(), std::ios::binary | std::ios::trunc);
  out << md;
  out.close();
  emit reportSaved(md_path, out ? Status{} : failure(tr("cannot write \"%1\"").arg(md_path)));
}

void SourceWorker::startRecording(const QString& path) {
  DashboardSource* src = active();
  if (src == nullptr || !src->recordable()) {
    emit recordingChanged(QString(), failure(tr("only a running source can be recorded")));
    return;
  }
  const Status started = src->start_recording(path.toStdString(), SteadyClock::instance());
  m_recordingPath = started.ok() ? path : QString();
  emit recordingChanged(m_recordingPath, started);
  publish();
}

void SourceWorker::stopRecording() {
  if (!m_source) return;
  const Status stopped = m_source->stop_recording();
  m_recordingPath.clear();
  emit recordingChanged(QString(), stopped);
}

void SourceWorker::openPlayback(const QString& path) {
  auto p = PlaybackSource::open(path.toStdString());
  if (!p) {
    emit playbackOpened(QString(), 0, 0, QString::fromStdString(p.error()));
    return;
  }
  if (!m_recordingPath.isEmpty()) stopRecording();
  m_playback = std::move(*p);
  m_running = false;  // opens paused at the recording's end: the whole picture first
  emit playbackOpened(path, m_playback->begin_ms(), m_playback->end_ms(),
                      QString::fromStdString(m_playback->load_error()));
  publish();
}

void SourceWorker::closePlayback() {
  if (!m_playback) return;
  m_playback.reset();
  m_running = m_sourceRunning;
  m_elapsed.restart();
  emit playbackClosed();
  publish();
}

void SourceWorker::seek(qint64 t_ms) {
  if (!m_playback) return;
  m_playback->seek(t_ms);
  publish();
}

void SourceWorker::openRedis(const QString& url, const QString& profiles) {
  LiveSpec spec;
  spec.redis_url = url.toStdString();
  spec.profiles_file = profiles.toStdString();
  openLive(spec);
}

void SourceWorker::openLive(const LiveSpec& spec) {
  auto source = open_live_source(spec, SteadyClock::instance());
  if (!source) {
    emit liveOpened(QString(), make_error(source.error()));
    return;
  }
  if (!m_recordingPath.isEmpty()) stopRecording();  // a recording holds one source
  m_source = std::move(*source);
  m_source->advance(Nanos{0});  // the first refresh at once, so the window is not empty
  m_running = m_sourceRunning = true;
  m_speed = 1;
  m_lastError.clear();
  m_elapsed.restart();
  emit liveOpened(QString::fromStdString(m_source->name()), Status{});
  publish();
}

void SourceWorker::tick() {
  const qint64 real_ms = m_elapsed.restart();
  DashboardSource* src = active();
  if (src == nullptr) return;
  if (m_running) {
    // Cap a stalled tick (machine asleep, debugger) to one second of real time. A live
    // source runs on real time whatever the speed.
    const qint64 source_ms = std::min<qint64>(real_ms, 1000) * (src->real_time() ? 1 : m_speed);
    src->advance(std::chrono::milliseconds(source_ms));
    if (m_playback && m_playback->at_end()) {
      m_running = false;
      emit runningChanged(false);
    }
  }
  if (m_source) flushRecording(*m_source);
  // A snapshot only when something changed (a step, a refresh that read something new, a
  // change of connection or error): an unchanged one would still cost the GUI a redraw of
  // every chart and table.
  if (!m_published || src->change_stamp() != *m_published) publish();
}

void SourceWorker::flushRecording(DashboardSource& src) {
  const Status flushed = src.flush_recording_if_due();
  if (flushed.ok()) return;
  // The session dropped the recording after a write failure; the source runs on.
  m_recordingPath.clear();
  emit recordingChanged(
      QString(), failure(tr("recording stopped: %1").arg(QString::fromStdString(flushed.error()))));
}

void SourceWorker::publish() {
  const DashboardSource* src = active();
  if (src == nullptr) return;
  m_published = src->change_stamp();
  auto snap =
      std::make_shared<DashboardSnapshot>(src->snapshot(to_chart_view(m_view, src->now_ms())));
  if (!m_lastError.isEmpty() && !m_playback) snap->last_error = m_lastError.toStdString();
  if (m_playback) {
    if (!m_running && !m_playback->at_end()) snap->connection = "paused";
  } else if (!m_running) {
    snap->connection = "stopped";
  }
  // The key table's diff and sort, here rather than on the GUI thread.
  m_keyTable.annotate(snap);
  emit snapshotReady(std::move(snap));
}

}  // namespace limitscope::ui
