#pragma once
// The dashboard's top-level window. It arranges the views and routes the operator's actions
// to the source worker; data arrives as finished snapshots and is drawn on one coalescing
// timer (at most 25 Hz). No limiter, alert or chart computation happens here.

#include <QMainWindow>
#include <QPointer>
#include <QThread>

#include <array>

#include "ui/simulation_worker.h"

QT_BEGIN_NAMESPACE
class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSystemTrayIcon;
class QTableView;
class QTextBrowser;
class QTimer;
QT_END_NAMESPACE

namespace limitscope::ui {

class AlertTableModel;
class KeyTableModel;
class TimeChart;

enum class Theme { system, light, dark };

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// @param start_running false starts with simulated time stopped (tests, screenshots)
  explicit MainWindow(EmbeddedSimulationOptions options = {}, bool start_running = true,
                      QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Runs `seconds` of simulated time, stops the clock, then saves a PNG of the window and
  /// emits screenshotSaved (used by --screenshot). The simulation stays stopped.
  void screenshotAfter(double seconds, const QString& path);

  // For tests and the screenshot mode.
  TimeChart* chart(int i) const { return m_charts.at(static_cast<std::size_t>(i)); }
  KeyTableModel* keyModel() const { return m_keyModel; }
  AlertTableModel* alertModel() const { return m_alertModel; }
  SnapshotPtr lastSnapshot() const { return m_shown; }
  bool isLive() const;
  void setTheme(Theme theme);
  bool isDark() const { return m_dark; }
  /// Applies a snapshot now (normally done by the coalescing timer).
  void applySnapshot(const SnapshotPtr& snapshot);
  /// Asks the worker to run `seconds` of simulated time at once.
  void fastForward(double seconds);
  void setPaused(bool paused);
  /// Starts or stops simulated time (the toolbar's Start/Stop).
  void setSimulationRunning(bool running);
  const ViewRequest& viewRequest() const { return m_view; }
  void exportPng(const QString& path);
  void exportCsv(const QString& path);

 signals:
  void screenshotSaved(const QString& path, bool ok);
  void snapshotApplied();
  void csvExported(const QString& path, const QString& error);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void buildActions();
  void buildCharts();
  void buildKeyTable();
  void buildAlerts();
  void sendView();
  void setPreset(qint64 span_ms);
  void onSnapshot(const SnapshotPtr& snapshot);
  void onTick();
  void updateDetails();
  void notifyFiring(const QStringList& started);
  void restoreLayout();

  QThread m_thread;
  QPointer<SimulationWorker> m_worker;
  ViewRequest m_view;
  SnapshotPtr m_pending;
  SnapshotPtr m_shown;
  QTimer* m_uiTimer = nullptr;

  std::array<TimeChart*, 4> m_charts{};
  KeyTableModel* m_keyModel = nullptr;
  QSortFilterProxyModel* m_keyProxy = nullptr;
  QTableView* m_keyView = nullptr;
  QLineEdit* m_keyFilter = nullptr;
  QTextBrowser* m_details = nullptr;
  AlertTableModel* m_alertModel = nullptr;
  QTableView* m_alertView = nullptr;
  QSystemTrayIcon* m_tray = nullptr;

  QAction* m_runAction = nullptr;
  QAction* m_liveAction = nullptr;
  QComboBox* m_speed = nullptr;
  QActionGroup* m_presets = nullptr;
  QLabel* m_statusSource = nullptr;
  QLabel* m_statusState = nullptr;
  QLabel* m_statusRate = nullptr;
  QLabel* m_statusDropped = nullptr;
  QLabel* m_statusError = nullptr;
  QLabel* m_statusTime = nullptr;

  bool m_dark = false;
  Theme m_theme = Theme::system;
  QString m_screenshotPath;
  qint64 m_screenshotAtMs = -1;
};

}  // namespace limitscope::ui
