#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QStyleFactory>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>
#include <utility>

#include "ui/alert_tree_view.h"
#include "ui/amounts.h"
#include "ui/charts/chart_stack.h"
#include "ui/charts/time_chart.h"
#include "ui/event_log_panel.h"
#include "ui/key_browser/key_browser_dock.h"
#include "ui/key_table_view.h"
#include "ui/models/alert_table_model.h"
#include "ui/models/decision_table_model.h"
#include "ui/models/key_table_model.h"
#include "ui/narrow_columns.h"
#include "ui/qt_text.h"
#include "ui/sparkline_delegate.h"
#include "ui/theme.h"

namespace limitscope::ui {

namespace {

/// Shows `text` in a status bar figure that changes on every update (the clock, the rates).
/// The label keeps a fixed size, changed only when the text needs another width: a label whose
/// size may change has the whole window laid out again on each setText (QLabel calls
/// updateGeometry, the status bar's layout passes it up to the main window's), and the docks
/// and their scroll bars repainted.
void setStatusFigure(QLabel* label, const QString& text) {
  if (label->text() == text) return;
  label->setText(text);
  const QSize hint = label->sizeHint();
  const int slack = label->fontMetrics().horizontalAdvance(QLatin1Char('0')) * 2;
  if (hint.height() != label->height() || hint.width() > label->width() ||
      hint.width() < label->width() - slack) {
    label->setFixedSize(hint);
  }
}

/// Shows `text` in a status bar label whose text changes seldom (the source, its state).
void setStatusText(QLabel* label, const QString& text) {
  if (label->text() != text) label->setText(text);
}

constexpr int kUiRefreshMs = 40;  // coalescing timer: at most 25 redraws a second

/// Carries a snapshot the window stopped showing to the worker's thread: a posted event is
/// deleted by the thread that receives it, and with it the snapshot's last reference. (A queued
/// lambda is not enough: Qt keeps a reference to it on the posting thread until the post
/// returns, and an idle worker is often done with it first.)
class SnapshotRelease : public QEvent {
 public:
  explicit SnapshotRelease(SnapshotPtr snapshot)
      : QEvent(kind()), m_snapshot(std::move(snapshot)) {}
  static QEvent::Type kind() {
    static const auto type = static_cast<QEvent::Type>(QEvent::registerEventType());
    return type;
  }

 private:
  SnapshotPtr m_snapshot;
};

}  // namespace

MainWindow::MainWindow(EmbeddedSimulationOptions options, bool start_running, QWidget* parent)
    : QMainWindow(parent) {
  qRegisterMetaType<SnapshotPtr>();
  qRegisterMetaType<ViewRequest>();
  setWindowTitle(QStringLiteral("limitscope — embedded simulation"));
  setObjectName(QStringLiteral("MainWindow"));
  setDockNestingEnabled(true);
  const int savedTheme = QSettings().value(QStringLiteral("window/theme"), 0).toInt();
  m_theme = savedTheme == 1 ? Theme::light : savedTheme == 2 ? Theme::dark : Theme::system;

  buildCharts();
  buildKeyTable();
  buildAlerts();
  // The key browser sits behind the key table and shows once a Redis is opened.
  m_keyBrowser = new KeyBrowserDock(this);
  addDockWidget(Qt::RightDockWidgetArea, m_keyBrowser);
  tabifyDockWidget(findChild<QDockWidget*>(QStringLiteral("keysDock")), m_keyBrowser);
  m_keyBrowser->hide();
  buildEvents();
  buildActions();
  buildMenus();

  m_statusSource = new QLabel(this);
  m_statusSource->setObjectName(QStringLiteral("statusSource"));
  m_statusState = new QLabel(this);
  m_statusRate = new QLabel(this);
  m_statusDropped = new QLabel(this);
  m_statusTime = new QLabel(this);
  m_statusRecording = new QLabel(this);
  m_statusRecording->setStyleSheet(QStringLiteral("color: #dc322f"));
  m_statusRecording->hide();
  m_statusError = new QLabel(this);
  m_statusError->setObjectName(QStringLiteral("statusError"));
  m_statusError->setStyleSheet(QStringLiteral("color: #dc322f"));
  // The error and transient messages on the left; the source's figures stay visible on the
  // right (permanent widgets are not hidden by showMessage()).
  statusBar()->addWidget(m_statusError, 1);
  statusBar()->addPermanentWidget(m_statusRecording);
  for (QLabel* l : {m_statusSource, m_statusState, m_statusRate, m_statusDropped, m_statusTime}) {
    statusBar()->addPermanentWidget(l);
  }

  // The worker lives on its own thread; every call to it is queued.
  m_worker = new SourceWorker(std::move(options), start_running);
  m_runAction->setChecked(start_running);
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker.data(), &QObject::deleteLater);
  connect(&m_thread, &QThread::started, m_worker.data(), &SourceWorker::start);
  connect(m_worker.data(), &SourceWorker::snapshotReady, this, &MainWindow::onSnapshot);
  connect(m_worker.data(), &SourceWorker::sourceFailed, this,
          [this](const QString& msg) { m_statusError->setText(tr("Source failed: %1").arg(msg)); });
  connect(m_worker.data(), &SourceWorker::exportFinished, this,
          [this](const QString& path, const Status& result) {
            showWritten(result, tr("Exported %1").arg(path));
            emit csvExported(path, result);
          });
  connect(m_worker.data(), &SourceWorker::pngSaved, this,
          [this](const QString& path, const Status& result) {
            if (!m_screenshotPath.isEmpty() && path == m_screenshotPath) {
              m_screenshotPath.clear();
              emit screenshotSaved(path, result.ok());
              return;
            }
            showWritten(result, tr("Saved %1").arg(path));
            emit pngExported(path, result);
          });
  connect(m_worker.data(), &SourceWorker::reportSaved, this,
          [this](const QString& path, const Status& result) {
            showWritten(result, tr("Incident summary written to %1").arg(path));
            emit reportSaved(path, result);
          });
  connect(m_worker.data(), &SourceWorker::recordingChanged, this,
          [this](const QString& path, const Status& result) {
            const QSignalBlocker block(m_recordAction);
            m_recordAction->setChecked(!path.isEmpty());
            m_statusRecording->setVisible(!path.isEmpty());
            m_statusRecording->setText(tr("● REC %1").arg(QFileInfo(path).fileName()));
            m_statusRecording->setToolTip(path);
            if (!result.ok()) m_statusError->setText(qs(result.error()));
            statusBar()->showMessage(
                path.isEmpty() ? tr("Recording stopped") : tr("Recording to %1").arg(path), 5000);
            emit recordingChanged(path, result);
          });
  connect(m_worker.data(), &SourceWorker::playbackOpened, this, &MainWindow::onPlaybackOpened);
  connect(m_worker.data(), &SourceWorker::liveOpened, this,
          [this](const QString& name, const Status& result) {
            if (result.ok()) {
              // A live source has no simulated time to inject incidents into; the run action pauses
              // and resumes its refresh.
              m_liveName = name;
              m_incidentAction->setEnabled(false);
              setWindowTitle(tr("limitscope — live: %1").arg(name));
              updateRunText();
            }
            emit liveOpened(name, result);
          });
  connect(m_worker.data(), &SourceWorker::playbackClosed, this, &MainWindow::onPlaybackClosed);
  connect(m_worker.data(), &SourceWorker::runningChanged, this, [this](bool running) {
    const QSignalBlocker block(m_runAction);
    m_runAction->setChecked(running);
    updateRunText();
  });
  m_thread.setObjectName(QStringLiteral("simulation"));
  m_thread.start();

  m_uiTimer = new QTimer(this);
  m_uiTimer->setInterval(kUiRefreshMs);
  connect(m_uiTimer, &QTimer::timeout, this, &MainWindow::onTick);
  m_uiTimer->start();

  resize(1600, 1000);
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("keysDock"))}, {700}, Qt::Horizontal);
  // Alerts and events share the space under the key table evenly.
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("alertsDock")),
               findChild<QDockWidget*>(QStringLiteral("eventsDock"))},
              {200, 200}, Qt::Vertical);
  restoreLayout();
  setTheme(m_theme);
  sendView();
}

MainWindow::~MainWindow() {
  m_thread.quit();
  m_thread.wait();
}

void MainWindow::buildCharts() {
  m_chartStack = new ChartStack(this);
  for (int i = 0; i < ChartStack::kCharts; ++i)
    m_charts[static_cast<std::size_t>(i)] = m_chartStack->chart(i);
  // The first chart's width sets the decimation columns; the stack's height and what is
  // folded, the lines a legend can list.
  m_charts[0]->installEventFilter(this);
  m_chartStack->installEventFilter(this);
  connect(m_chartStack, &ChartStack::foldsChanged, this, &MainWindow::sendView);
  connect(m_chartStack, &ChartStack::rangeRequested, this, [this](qint64 a, qint64 b) {
    m_view.live = false;
    m_view.start_ms = a;
    m_view.end_ms = b;
    m_liveAction->setChecked(false);
    sendView();
  });
  connect(m_chartStack, &ChartStack::liveRequested, this, [this] { setPaused(false); });
  // Above the charts, while the watched gateway fails open: the one thing that must not be
  // missed (its 429s drop to zero exactly then).
  auto* panel = new QWidget(this);
  auto* panelLayout = new QVBoxLayout(panel);
  panelLayout->setContentsMargins(0, 0, 0, 0);
  panelLayout->setSpacing(0);
  m_unprotected = new QLabel(panel);
  m_unprotected->setObjectName(QStringLiteral("unprotectedBanner"));
  m_unprotected->setWordWrap(true);
  m_unprotected->setStyleSheet(
      QStringLiteral("background: #dc322f; color: white; font-weight: bold; padding: 6px 10px;"));
  m_unprotected->hide();
  panelLayout->addWidget(m_unprotected);
  panelLayout->addWidget(m_chartStack, 1);
  m_chartsPanel = panel;
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("workspaceTabs"));
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(panel, tr("Dashboard"));
  connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onTabChanged);
  setCentralWidget(m_tabs);
}

int MainWindow::addWorkspaceTab(QWidget* page, const QString& title) {
  // In a scroll area: a tab widget is as tall as its tallest page's minimum, and the Tuner's
  // would make the dashboard taller than a 1280×720 screen.
  auto* scroll = new QScrollArea(m_tabs);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(page);
  return m_tabs->addTab(scroll, title);
}

void MainWindow::showWorkspaceTab(int index) {
  m_tabs->setCurrentIndex(index);
}

void MainWindow::onTabChanged(int index) {
  // The docks and the toolbar belong to the dashboard: another tab gets the whole window, and
  // the dashboard comes back as the operator left it.
  const bool dashboard = index == 0;
  const QList<QDockWidget*> docks = findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly);
  if (!dashboard && m_hiddenDocks.isEmpty()) {
    for (QDockWidget* d : docks) {
      if (d->isVisible()) {
        m_hiddenDocks << d;
        d->hide();
      }
    }
  } else if (dashboard) {
    for (const QPointer<QDockWidget>& d : std::as_const(m_hiddenDocks)) {
      if (d) d->show();
    }
    m_hiddenDocks.clear();
  }
  if (auto* tb = findChild<QToolBar*>(QStringLiteral("controls"))) tb->setVisible(dashboard);
}

void MainWindow::buildKeyTable() {
  auto* dock = new QDockWidget(tr("Keys"), this);
  dock->setObjectName(QStringLiteral("keysDock"));
  auto* panel = new QWidget(dock);
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(4, 4, 4, 4);
  m_keyFilter = new QLineEdit(panel);
  m_keyFilter->setPlaceholderText(tr("Filter keys, tiers, models… (Ctrl+F)"));
  m_keyFilter->setClearButtonEnabled(true);
  m_keyModel = new KeyTableModel(this);
  m_keyProxy = new KeyFilterProxy(this);
  m_keyProxy->setSourceModel(m_keyModel);
  m_keyProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_keyProxy->setFilterKeyColumn(-1);
  connect(m_keyFilter, &QLineEdit::textChanged, m_keyProxy,
          &QSortFilterProxyModel::setFilterFixedString);
  m_keyView = new KeyTableView(m_keyModel, m_keyProxy, panel);
  // The worker sorts the rows as the table does (core/dashboard/key_table_order.h).
  m_view.key_sort = m_keyModel->keySort();
  connect(m_keyModel, &KeyTableModel::sortChanged, this, [this](const KeySort& sort) {
    m_view.key_sort = sort;
    sendView();
  });
  connect(m_keyView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    QStringList keys;
    for (const QModelIndex& idx : m_keyView->selectionModel()->selectedRows()) {
      const KeyRow* r = m_keyModel->rowAt(m_keyProxy->mapToSource(idx).row());
      if (r != nullptr) keys << QString::fromStdString(r->api_key);
    }
    keys.removeDuplicates();
    m_view.selected_keys = keys;
    sendView();
    updateDetails();
  });
  m_details = new QTextBrowser(panel);
  m_details->setObjectName(QStringLiteral("keyDetails"));
  m_details->setMaximumHeight(96);
  m_details->setPlaceholderText(tr("Select a key to see its parameters and recent decisions."));
  m_decisionModel = new DecisionTableModel(this);
  m_decisionView = new QTableView(panel);
  m_decisionView->setObjectName(QStringLiteral("recentDecisions"));
  m_decisionView->setModel(m_decisionModel);
  m_decisionView->setSelectionMode(QAbstractItemView::NoSelection);
  m_decisionView->verticalHeader()->hide();
  m_decisionView->verticalHeader()->setDefaultSectionSize(20);
  m_decisionView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_decisionView->horizontalHeader()->setStretchLastSection(false);
  m_decisionView->setAlternatingRowColors(true);
  m_decisionView->setMinimumHeight(70);  // a 720-pixel window still fits every dock
  m_decisionView->setToolTip(
      tr("The selected key's recent decisions, newest first (the last %1 per key)").arg(50));
  // A 1280×720 window's dock: model, cost and the exact wait move into each row's tooltip.
  m_decisionNarrow = new NarrowColumns(
      m_decisionView, m_decisionView->horizontalHeader(),
      {DecisionTableModel::Model, DecisionTableModel::Cost, DecisionTableModel::RetryAfter}, 64);
  auto* decisionsTitle = new QLabel(tr("Recent decisions"), panel);
  QFont bold = decisionsTitle->font();
  bold.setBold(true);
  decisionsTitle->setFont(bold);  // a font, not a style sheet: the label keeps the theme's palette
  auto* details = new QSplitter(Qt::Vertical, panel);
  auto* lower = new QWidget(details);
  auto* lowerLayout = new QVBoxLayout(lower);
  lowerLayout->setContentsMargins(0, 0, 0, 0);
  lowerLayout->setSpacing(2);
  lowerLayout->addWidget(m_details);
  lowerLayout->addWidget(decisionsTitle);
  lowerLayout->addWidget(m_decisionView, 1);
  details->addWidget(m_keyView);
  details->addWidget(lower);
  details->setStretchFactor(0, 3);
  details->setStretchFactor(1, 2);
  layout->addWidget(m_keyFilter);
  layout->addWidget(details, 1);
  dock->setWidget(panel);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  resizeDocks({dock}, {720}, Qt::Horizontal);
}

void MainWindow::buildAlerts() {
  auto* dock = new QDockWidget(tr("Alerts"), this);
  dock->setObjectName(QStringLiteral("alertsDock"));
  auto* panel = new QWidget(dock);
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(4, 4, 4, 4);
  m_alertModel = new AlertTableModel(this);
  m_alertView = new AlertTreeView(m_alertModel, panel);
  m_alertView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_alertView->setUniformRowHeights(true);
  m_alertView->header()->setStretchLastSection(true);
  for (int c : {AlertTableModel::Rule, AlertTableModel::Count, AlertTableModel::State,
                AlertTableModel::Since, AlertTableModel::Value}) {
    m_alertView->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  }
  m_alertView->header()->setSectionResizeMode(AlertTableModel::Labels, QHeaderView::Interactive);
  m_alertView->header()->resizeSection(AlertTableModel::Labels, 160);
  // A 1280×720 window's dock: since, value and summary move into each line's tooltip, and
  // what an alert is about takes the width left.
  m_alertNarrow =
      new NarrowColumns(m_alertView, m_alertView->header(),
                        {AlertTableModel::Since, AlertTableModel::Value, AlertTableModel::Summary},
                        80, AlertTableModel::Labels);
  auto* ack = new QPushButton(tr("Acknowledge / silence"), panel);
  connect(ack, &QPushButton::clicked, this, [this] {
    // A group line acknowledges every alert of its rule.
    for (const QModelIndex& idx : m_alertView->selectionModel()->selectedRows())
      m_alertModel->acknowledge(idx);
  });
  layout->addWidget(m_alertView, 1);
  layout->addWidget(ack, 0, Qt::AlignLeft);
  dock->setWidget(panel);
  addDockWidget(Qt::RightDockWidgetArea, dock);
}

void MainWindow::buildEvents() {
  auto* dock = new QDockWidget(tr("Events"), this);
  dock->setObjectName(QStringLiteral("eventsDock"));
  m_eventLog = new EventLogPanel(dock);
  connect(m_eventLog, &EventLogPanel::titleChanged, dock, &QDockWidget::setWindowTitle);
  dock->setWidget(m_eventLog);
  // Under the alerts, not under the charts: with full legends the four charts need about 840
  // of the window's 1000 pixels, and a bottom dock would push a 1600×1000 window past its size.
  splitDockWidget(findChild<QDockWidget*>(QStringLiteral("alertsDock")), dock, Qt::Vertical);
}

bool MainWindow::selectKey(const QString& api_key, const QString& model) {
  const int row = m_keyModel->findRow(api_key, model);
  if (row < 0) return false;
  const QModelIndex idx = m_keyProxy->mapFromSource(m_keyModel->index(row, 0));
  m_keyView->selectionModel()->select(
      idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  return true;
}

bool MainWindow::isLive() const {
  return m_view.live;
}

void MainWindow::setSimulationRunning(bool running) {
  m_runAction->setChecked(running);
}

void MainWindow::setPreset(qint64 span_ms) {
  m_view.span_ms = span_ms;
  m_view.live = true;
  m_liveAction->setChecked(true);
  sendView();
}

void MainWindow::setPaused(bool paused) {
  if (paused) {
    // Freeze the window where it is; the worker keeps recording.
    const qint64 now = m_shown ? m_shown->now_ms : 0;
    m_view.live = false;
    m_view.end_ms = now;
    m_view.start_ms = now - m_view.span_ms;
  } else {
    m_view.live = true;
  }
  m_liveAction->setChecked(!paused);
  sendView();
}

void MainWindow::sendView() {
  const int width = m_charts[0] != nullptr ? m_charts[0]->width() - 120 : 800;
  m_view.columns = std::max(100, width);
  // As many lines per chart as a legend can list (a legend drops what does not fit).
  m_view.max_lines = m_chartStack != nullptr && m_chartStack->isVisible()
                         ? std::clamp(m_chartStack->legendRows(), 2, 8)
                         : 8;
  QMetaObject::invokeMethod(m_worker, [w = m_worker, v = m_view] {
    if (w) w->setView(v);
  });
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  sendView();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  // The charts get their final width after the window's own resize: decimate to that width.
  if (event->type() == QEvent::Resize && (watched == m_charts[0] || watched == m_chartStack))
    sendView();
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::fastForward(double seconds) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, seconds] {
    if (w) w->fastForward(seconds);
  });
}

void MainWindow::onSnapshot(const SnapshotPtr& snapshot) {
  m_pending = snapshot;
}

void MainWindow::onTick() {
  if (!m_pending) return;
  SnapshotPtr s = std::move(m_pending);
  m_pending.reset();
  applySnapshot(s);
}

void MainWindow::applySnapshot(const SnapshotPtr& s) {
  if (!s) return;
  // The snapshot shown until now is freed on the worker's thread once the model lets it go:
  // 10,000 rows with their strings and sparklines take the GUI thread a millisecond to free.
  SnapshotPtr before = std::exchange(m_shown, s);
  const qint64 end = m_view.live ? s->now_ms : m_view.end_ms;
  const qint64 start = m_view.live ? s->now_ms - m_view.span_ms : m_view.start_ms;
  m_chartStack->setData(s->charts, s->alert_intervals, start, end);
  updateProtection(s->protection);
  // The model keeps the snapshot's rows (no copy) and applies the worker's change list.
  m_keyModel->setRows(std::shared_ptr<const std::vector<KeyRow>>(s, &s->keys), s->key_update.get());
  m_keyView->showReportedColumns(s->keys);
  m_keyView->settleLayout();  // the table's relayout is repainted with this update, not after it
  notifyFiring(m_alertModel->setAlerts(s->alerts));
  updateDetails();

  // The source and its state change seldom and may be long: they keep a size the status bar
  // can shrink (a fixed one would draw over the figures beside them in a narrow window), and
  // an unchanged text is not set again, so it lays nothing out.
  setStatusText(m_statusSource, QString::fromStdString(s->source));
  setStatusText(m_statusState, QString::fromStdString(s->connection) +
                                   (m_view.live ? QString() : tr(" · paused view")));
  setStatusFigure(m_statusRate, tr("%1 samples/s").arg(s->samples_per_s, 0, 'f', 0));
  setStatusFigure(m_statusDropped, tr("%1 dropped").arg(s->dropped_samples));
  setStatusFigure(
      m_statusTime,
      QDateTime::fromMSecsSinceEpoch(s->now_ms).toString(QStringLiteral("HH:mm:ss")) +
          (s->incidents.empty()
               ? QString()
               : tr(" · incident: %1").arg(QString::fromStdString(s->incidents.front()))));
  m_statusError->setText(QString::fromStdString(s->last_error));
  // A live source's event log (connected, scrape failed: reason, reconnected): the Events
  // dock lists it; the state and error keep it as their tooltip too, newest last.
  m_eventLog->setEvents(s->events);
  QString events;
  for (const SourceEvent& e : s->events) {
    events += QDateTime::fromMSecsSinceEpoch(e.t_ms).toString(QStringLiteral("HH:mm:ss  ")) +
              QString::fromStdString(e.text) + QLatin1Char('\n');
  }
  events.chop(1);
  m_statusState->setToolTip(events);
  m_statusError->setToolTip(events);
  if (before && before != s && m_worker)
    QCoreApplication::postEvent(m_worker, new SnapshotRelease(std::move(before)));
  if (m_playbackMode) {
    const QSignalBlocker block(m_seek);
    if (!m_seek->isSliderDown())
      m_seek->setValue(static_cast<int>((s->now_ms - m_playbackBeginMs) / 1000));
    m_seekLabel->setText(
        QStringLiteral(" %1 / %2 ")
            .arg(QDateTime::fromMSecsSinceEpoch(s->now_ms).toString(QStringLiteral("HH:mm:ss")),
                 QDateTime::fromMSecsSinceEpoch(m_playbackBeginMs + m_seek->maximum() * 1000LL)
                     .toString(QStringLiteral("HH:mm:ss"))));
  }
  emit snapshotApplied();
}

void MainWindow::updateProtection(const ProtectionStatus& p) {
  m_unprotected->setVisible(p.unprotected);
  if (!p.unprotected) return;
  const QString since =
      QDateTime::fromMSecsSinceEpoch(p.since_ms).toString(QStringLiteral("HH:mm:ss"));
  QString text = tr("UNPROTECTED since %1: the gateway is failing open, %2 request(s) admitted "
                    "without a limit check")
                     .arg(since)
                     .arg(QLocale().toString(p.admitted_unchecked, 'f', 0));
  if (p.circuit_state >= 2) text += tr(" (circuit open)");
  m_unprotected->setText(text);
}

void MainWindow::updateDetails() {
  const QModelIndexList rows = m_keyView->selectionModel()->selectedRows();
  if (rows.isEmpty()) {
    // Cleared once: clearing an empty document still lays it out and repaints it.
    if (!m_details->document()->isEmpty()) m_details->clear();
    m_decisionModel->setDecisions({});
    return;
  }
  const KeyRow* r = m_keyModel->rowAt(m_keyProxy->mapToSource(rows.front()).row());
  if (r == nullptr) return;
  // The key's decisions (every model's: the table names the model), if the snapshot was made
  // with it selected (the next one will be).
  if (m_shown) {
    const auto it = m_shown->decisions.find(r->api_key);
    m_decisionModel->setDecisions(it != m_shown->decisions.end() ? it->second
                                                                 : std::vector<DecisionRow>{});
  }
  const KeyDetails d = key_details(*r, KeyTableModel::displayName(*r).toStdString(), amount_text);
  QString html =
      QStringLiteral("<b>%1</b>%2").arg(qs(d.name).toHtmlEscaped(), qs(d.heading).toHtmlEscaped());
  for (const std::string& line : d.lines) html += QStringLiteral("<br>") + qs(line).toHtmlEscaped();
  if (!d.note.empty()) html += QStringLiteral("<br><i>%1</i>").arg(qs(d.note).toHtmlEscaped());
  m_details->setHtml(html);
}

void MainWindow::notifyFiring(const QStringList& started) {
  if (started.isEmpty()) return;
  const QString text = tr("Alert firing: %1").arg(started.join(QStringLiteral(", ")));
  statusBar()->showMessage(text, 10000);
  if (QSystemTrayIcon::isSystemTrayAvailable()) {
    if (m_tray == nullptr) {
      m_tray = new QSystemTrayIcon(windowIcon(), this);
      m_tray->show();
    }
    m_tray->showMessage(tr("limitscope"), text, QSystemTrayIcon::Warning, 8000);
  }
}

void MainWindow::setTheme(Theme theme) {
  m_theme = theme;
  m_dark = theme == Theme::dark || (theme == Theme::system && systemPrefersDark());
  applyPalette(m_dark);
  m_chartStack->setDark(m_dark);
  if (m_shown) applySnapshot(m_shown);
}

void MainWindow::restoreLayout() {
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  m_layoutRestored = restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (m_shownOnce) return;
  m_shownOnce = true;
  // Without a saved layout, the key table gets 44% of the window's width, whatever the size it
  // opens at (700 px at 1600: name, tier, level, 429/s, peak 429/s, spend and burn in view).
  if (!m_layoutRestored) {
    resizeDocks({findChild<QDockWidget*>(QStringLiteral("keysDock"))}, {width() * 44 / 100},
                Qt::Horizontal);
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  settings.setValue(QStringLiteral("window/theme"), static_cast<int>(m_theme));
  QMainWindow::closeEvent(event);
}

}  // namespace limitscope::ui
