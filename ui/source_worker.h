#pragma once
// Drives the dashboard's source on its own thread: the embedded simulation, a recording
// played back, or live sources (Redis, a gateway's /metrics, Prometheus, several at once),
// all through DashboardSource (each feeds one SessionState). It advances the source's time at
// the chosen speed, publishes snapshots for the chart window the UI asks for (only when the
// source's ChangeStamp moved, or the operator changed something), records the session, and
// writes exports. The GUI thread only receives finished snapshots and results (queued
// signals); it never touches a source.

#include <QElapsedTimer>
#include <QImage>
#include <QObject>
#include <QString>
#include <memory>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/dashboard/key_table_order.h"
#include "core/sources/embedded_simulation_source.h"
#include "core/sources/live_source_factory.h"
#include "core/sources/playback_source.h"
#include "ui/qt_status.h"

class QTimer;

namespace limitscope::ui {

using SnapshotPtr = std::shared_ptr<const DashboardSnapshot>;

/// What the charts should show: live (the last `span_ms`) or a fixed window (paused/zoomed).
struct ViewRequest {
  bool live = true;
  qint64 span_ms = 5 * 60 * 1000;
  qint64 start_ms = 0;  // fixed window only
  qint64 end_ms = 0;
  int columns = 800;
  int max_lines = 8;  // lines per chart chosen automatically: what its legend can list
  QStringList selected_keys;
  KeySort key_sort;  // the key table's: the worker sorts its rows so
};

class SourceWorker : public QObject {
  Q_OBJECT
 public:
  /// @param start_running false starts with simulated time stopped (tests, screenshots)
  explicit SourceWorker(EmbeddedSimulationOptions options, bool start_running = true,
                        QObject* parent = nullptr);
  ~SourceWorker() override;

 public slots:
  /// Creates the simulation (reports sourceFailed on error) and starts the tick timer.
  void start();
  /// Runs or stops the source's time: simulated time, or playback (play/pause).
  void setRunning(bool running);
  void setSpeed(int times);
  void setView(const limitscope::ui::ViewRequest& view);
  /// Simulation: runs `seconds` of simulated time at once. Playback: puts the cursor
  /// `seconds` after the recording's start (at its end when `seconds` is 0). Then publishes.
  void fastForward(double seconds);
  void inject(int incident_kind, double seconds);
  /// Writes the visible charts' samples from the store as CSV (path chosen on the GUI thread).
  void exportCsv(const QString& path);
  /// Encodes and writes a picture grabbed on the GUI thread.
  void savePng(const QImage& image, const QString& path);
  /// The incident summary of `snapshot` (core/dashboard/incident_summary.h) as Markdown at
  /// `md_path`, and `image` beside it (the same name, .png), linked from it. Emits reportSaved.
  void saveReport(const limitscope::ui::SnapshotPtr& snapshot, const QImage& image,
                  const QString& md_path);
  /// Records the simulation or the live source to `path` (docs/recording.md) until
  /// stopRecording().
  void startRecording(const QString& path);
  void stopRecording();
  /// Loads a recording and shows it instead of the simulation (which pauses meanwhile).
  void openPlayback(const QString& path);
  /// Back to the simulation.
  void closePlayback();
  /// Playback: moves the cursor (ms since the epoch).
  void seek(qint64 t_ms);
  /// Shows the limiter keys of a live Redis instead of the simulation (core/probe profiles:
  /// `profiles` is a profiles file, or empty for the built-in ones). Emits liveOpened.
  void openRedis(const QString& url, const QString& profiles);
  /// Shows live sources instead of the simulation: Redis, /metrics and Prometheus in any
  /// combination (docs/live-sources.md). Their refreshes (blocking I/O) run here, on the
  /// worker's thread. Emits liveOpened.
  void openLive(const limitscope::LiveSpec& spec);

 signals:
  void snapshotReady(limitscope::ui::SnapshotPtr snapshot);
  void sourceFailed(const QString& message);
  /// Each: ok, or why `path` could not be written.
  void exportFinished(const QString& path, const limitscope::Status& result);
  void pngSaved(const QString& path, const limitscope::Status& result);
  void reportSaved(const QString& path, const limitscope::Status& result);
  /// After fastForward(): its snapshot was emitted just before this.
  void fastForwarded();
  /// Recording started (path) or stopped (empty path); result: ok, or why it stopped or could
  /// not start.
  void recordingChanged(const QString& path, const limitscope::Status& result);
  /// A recording is showing (begin/end of its time), or failed to open (error, no name).
  void playbackOpened(const QString& name, qint64 begin_ms, qint64 end_ms, const QString& error);
  void playbackClosed();
  /// A live source is showing (its name; ok), or could not be opened (no name; why).
  void liveOpened(const QString& name, const limitscope::Status& result);
  /// Playback reached the end of the recording and stopped.
  void runningChanged(bool running);

 private:
  void tick();
  void publish();
  /// Flushes the recording when due; a write failure that stopped it is told
  /// (recordingChanged) and the source runs on.
  void flushRecording(DashboardSource& src);
  DashboardSource* active() const;

  EmbeddedSimulationOptions m_options;
  std::unique_ptr<DashboardSource> m_source;  // the simulation, or the live source that replaced it
  std::unique_ptr<PlaybackSource> m_playback;  // shown instead of m_source while open
  std::optional<ChangeStamp> m_published;      // of the last snapshot published
  KeyTablePublisher m_keyTable;                // the key rows' order and change list
  QTimer* m_timer = nullptr;
  QElapsedTimer m_elapsed;
  ViewRequest m_view;
  bool m_running = true;
  bool m_sourceRunning = true;  // m_source's run state, kept while a recording plays
  int m_speed = 1;
  QString m_lastError;
  QString m_recordingPath;
};

}  // namespace limitscope::ui

Q_DECLARE_METATYPE(limitscope::ui::SnapshotPtr)
Q_DECLARE_METATYPE(limitscope::ui::ViewRequest)
