#pragma once
// The dashboard's top-level window. It arranges the views and routes the operator's actions
// to the source worker; data arrives as finished snapshots and is drawn on one coalescing
// timer (at most 25 Hz). No limiter, alert or chart computation happens here.

#include <QList>
#include <QMainWindow>
#include <QPointer>
#include <QThread>
#include <array>

#include "ui/source_worker.h"

QT_BEGIN_NAMESPACE
class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QSlider;
class QSortFilterProxyModel;
class QSystemTrayIcon;
class QTabWidget;
class QTableView;
class QTreeView;
class QTextBrowser;
class QTimer;
QT_END_NAMESPACE

namespace limitscope::ui {

class AlertTableModel;
class AlertTreeView;
class ChartStack;
class ConnectionActions;
class DecisionTableModel;
class EventLogPanel;
class KeyBrowserDock;
class KeyTableModel;
class KeyTableView;
class NarrowColumns;
class TimeChart;

enum class Theme { system, light, dark };

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// @param start_running false starts with simulated time stopped (tests, screenshots)
  explicit MainWindow(EmbeddedSimulationOptions options = {}, bool start_running = true,
                      QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Runs `seconds` of simulated time (playback: puts the cursor `seconds` after the
  /// recording's start, or at its end for 0), stops the clock, then saves a PNG of the window
  /// and emits screenshotSaved (used by --screenshot). The source stays stopped.
  void screenshotAfter(double seconds, const QString& path);
  /// Loads a recording on the worker and shows it; emits playbackOpened or playbackFailed.
  void openRecording(const QString& path);
  /// Shows a live Redis's limiter keys (RedisLiveSource on the worker); emits liveOpened.
  void openRedis(const QString& url, const QString& profiles);
  /// Shows live sources (Redis, /metrics, Prometheus, any combination) on the worker;
  /// emits liveOpened. The key browser follows the Redis, when one is given.
  void openLive(const LiveSpec& spec);
  /// Adds a page beside the dashboard (the Tuner, ...); while it is shown the dashboard's docks
  /// and toolbar are hidden. @return the tab's index
  int addWorkspaceTab(QWidget* page, const QString& title);
  void showWorkspaceTab(int index);
  /// Back from a recording to the simulation.
  void closeRecording();
  /// Starts recording the session to `path`, or stops for an empty path.
  void setRecording(const QString& path);
  bool isPlayback() const { return m_playbackMode; }
  /// Playback: moves the cursor (ms since the epoch).
  void seek(qint64 t_ms);

  // For tests and the screenshot mode.
  TimeChart* chart(int i) const { return m_charts.at(static_cast<std::size_t>(i)); }
  ChartStack* charts() const { return m_chartStack; }
  /// The key table as shown (sorted, filtered).
  KeyTableView* keyView() const { return m_keyView; }
  QTableView* decisionView() const { return m_decisionView; }
  AlertTreeView* alertView() const { return m_alertView; }
  NarrowColumns* alertNarrow() const { return m_alertNarrow; }
  NarrowColumns* decisionNarrow() const { return m_decisionNarrow; }
  KeyTableModel* keyModel() const { return m_keyModel; }
  AlertTableModel* alertModel() const { return m_alertModel; }
  DecisionTableModel* decisionModel() const { return m_decisionModel; }
  /// File ▸ Connect… and Recent connections (ui/connections).
  ConnectionActions* connections() const { return m_connections; }
  /// The Redis key browser dock (ui/key_browser); browses the Redis openRedis() opened.
  KeyBrowserDock* keyBrowser() const { return m_keyBrowser; }
  /// The Events dock's panel: the live source's event log.
  EventLogPanel* eventLog() const { return m_eventLog; }
  /// The UNPROTECTED banner (shown while the watched gateway fails open).
  QLabel* unprotectedBanner() const { return m_unprotected; }
  /// Selects the key table's row of (key, model), as a click would.
  bool selectKey(const QString& api_key, const QString& model);
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
  /// File > Export incident summary: the Markdown summary of what is shown at `md_path` and a
  /// picture of the window beside it (.png); emits reportSaved. `limitscope --report` too.
  void exportIncidentSummary(const QString& md_path);

 signals:
  void screenshotSaved(const QString& path, bool ok);
  void snapshotApplied();
  /// Each: ok, or why `path` could not be written.
  void csvExported(const QString& path, const limitscope::Status& result);
  void pngExported(const QString& path, const limitscope::Status& result);
  void reportSaved(const QString& path, const limitscope::Status& result);
  void playbackOpened(const QString& path, const QString& loadError);
  void playbackFailed(const QString& error);
  /// A live source opened (its name; ok), or failed to (no name; why).
  void liveOpened(const QString& name, const limitscope::Status& result);
  /// openLive() was asked to show `spec` (the Audits tab takes its sources from it).
  void liveRequested(const limitscope::LiveSpec& spec);
  /// Recording started (path) or stopped (empty path); result: ok, or why it stopped or could
  /// not start.
  void recordingChanged(const QString& path, const limitscope::Status& result);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// The status bar after a file was written: `done`, or the failure (kept in the error
  /// field too).
  void showWritten(const Status& result, const QString& done);
  void buildActions();
  void buildCharts();
  void buildKeyTable();
  void buildAlerts();
  void buildEvents();
  void buildMenus();
  void updateRunText();
  void onPlaybackOpened(const QString& name, qint64 begin_ms, qint64 end_ms, const QString& error);
  void onPlaybackClosed();
  void sendView();
  void setPreset(qint64 span_ms);
  void onSnapshot(const SnapshotPtr& snapshot);
  void onTick();
  void updateDetails();
  void updateProtection(const ProtectionStatus& p);
  void notifyFiring(const QStringList& started);
  void restoreLayout();
  void onTabChanged(int index);

  QThread m_thread;
  QPointer<SourceWorker> m_worker;
  ViewRequest m_view;
  SnapshotPtr m_pending;
  SnapshotPtr m_shown;
  QTimer* m_uiTimer = nullptr;

  QTabWidget* m_tabs = nullptr;
  QWidget* m_chartsPanel = nullptr;            // the dashboard tab: what Export PNG grabs
  QLabel* m_unprotected = nullptr;             // the fail-open banner above the charts
  QList<QPointer<QDockWidget>> m_hiddenDocks;  // dashboard docks hidden while another tab shows
  ChartStack* m_chartStack = nullptr;
  std::array<TimeChart*, 4> m_charts{};  // m_chartStack's
  KeyTableModel* m_keyModel = nullptr;
  QSortFilterProxyModel* m_keyProxy = nullptr;
  KeyTableView* m_keyView = nullptr;
  QLineEdit* m_keyFilter = nullptr;
  QTextBrowser* m_details = nullptr;
  DecisionTableModel* m_decisionModel = nullptr;
  QTableView* m_decisionView = nullptr;
  AlertTableModel* m_alertModel = nullptr;
  NarrowColumns* m_decisionNarrow = nullptr;
  AlertTreeView* m_alertView = nullptr;  // grouped by rule: a group's alerts are its children
  NarrowColumns* m_alertNarrow = nullptr;
  QSystemTrayIcon* m_tray = nullptr;
  ConnectionActions* m_connections = nullptr;
  KeyBrowserDock* m_keyBrowser = nullptr;
  EventLogPanel* m_eventLog = nullptr;

  QAction* m_runAction = nullptr;
  QAction* m_liveAction = nullptr;
  QComboBox* m_speed = nullptr;
  QAction* m_incidentAction = nullptr;
  QAction* m_recordAction = nullptr;
  QAction* m_openAction = nullptr;
  QAction* m_closeRecordingAction = nullptr;
  QAction* m_seekAction = nullptr;
  QAction* m_seekLabelAction = nullptr;
  QSlider* m_seek = nullptr;
  QLabel* m_seekLabel = nullptr;
  QActionGroup* m_presets = nullptr;
  QLabel* m_statusSource = nullptr;
  QLabel* m_statusState = nullptr;
  QLabel* m_statusRate = nullptr;
  QLabel* m_statusDropped = nullptr;
  QLabel* m_statusError = nullptr;
  QLabel* m_statusTime = nullptr;
  QLabel* m_statusRecording = nullptr;

  bool m_dark = false;
  Theme m_theme = Theme::system;
  QString m_screenshotPath;
  bool m_playbackMode = false;
  QString m_liveName;  // the live source shown, empty for the simulation and playback
  qint64 m_playbackBeginMs = 0;
  QString m_playbackName;
  qint64 m_screenshotAtMs = -1;
  bool m_layoutRestored = false;  // a saved dock layout was restored: the first show keeps it
  bool m_shownOnce = false;
};

}  // namespace limitscope::ui
