#pragma once
// Drives the embedded simulation on its own thread: advances simulated time at the chosen
// speed, and publishes snapshots for the chart window the UI asks for. The GUI thread only
// receives finished snapshots (queued signals); it never touches the simulation.

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>

#include "core/sources/dashboard_snapshot.h"
#include "core/sources/embedded_simulation_source.h"

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
  QStringList selected_keys;
};

class SimulationWorker : public QObject {
  Q_OBJECT
 public:
  /// @param start_running false starts with simulated time stopped (tests, screenshots)
  explicit SimulationWorker(EmbeddedSimulationOptions options, bool start_running = true,
                            QObject* parent = nullptr);
  ~SimulationWorker() override;

 public slots:
  /// Creates the source (reports sourceFailed on error) and starts the tick timer.
  void start();
  void setRunning(bool running);
  void setSpeed(int times);
  void setView(const limitscope::ui::ViewRequest& view);
  /// Runs `seconds` of simulated time at once, then publishes (screenshot mode, tests).
  void fastForward(double seconds);
  void inject(int incident_kind, double seconds);
  /// Writes the visible charts' samples from the store as CSV (path chosen on the GUI thread).
  void exportCsv(const QString& path);

 signals:
  void snapshotReady(limitscope::ui::SnapshotPtr snapshot);
  void sourceFailed(const QString& message);
  void exportFinished(const QString& path, const QString& error);
  /// After fastForward(): its snapshot was emitted just before this.
  void fastForwarded();

 private:
  void tick();
  void publish();

  EmbeddedSimulationOptions m_options;
  std::unique_ptr<EmbeddedSimulationSource> m_source;
  QTimer* m_timer = nullptr;
  QElapsedTimer m_elapsed;
  ViewRequest m_view;
  bool m_running = true;
  int m_speed = 1;
  QString m_lastError;
};

}  // namespace limitscope::ui

Q_DECLARE_METATYPE(limitscope::ui::SnapshotPtr)
Q_DECLARE_METATYPE(limitscope::ui::ViewRequest)
