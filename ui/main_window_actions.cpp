// The dashboard's toolbar and menus: building them and routing their actions. Split from
// main_window.cpp so that file keeps to the window's layout and snapshot handling.

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSlider>
#include <QToolBar>
#include <QToolButton>

#include "ui/connections/connection_actions.h"
#include "ui/main_window.h"

namespace limitscope::ui {
namespace {

struct Preset {
  const char* label;
  qint64 span_ms;
};
constexpr Preset kPresets[] = {
    {"1m", 60'000}, {"5m", 300'000}, {"15m", 900'000}, {"1h", 3'600'000}};

struct IncidentChoice {
  const char* label;
  IncidentKind kind;
  double seconds;
};
constexpr IncidentChoice kIncidents[] = {
    {"Runaway client (2 min)", IncidentKind::runaway_client, 120},
    {"Burst (20 s)", IncidentKind::burst, 20},
    {"Misconfigured tenant (5 min)", IncidentKind::misconfigured_tenant, 300},
    {"Backend outage, fail-open (1 min)", IncidentKind::backend_outage, 60},
};

}  // namespace

void MainWindow::buildActions() {
  auto* tb = addToolBar(tr("Controls"));
  tb->setObjectName(QStringLiteral("controls"));
  tb->setMovable(false);

  m_runAction = tb->addAction(tr("Stop simulation"));
  m_runAction->setCheckable(true);
  m_runAction->setChecked(true);
  m_runAction->setToolTip(tr("Start or stop simulated time"));
  connect(m_runAction, &QAction::toggled, this, [this](bool running) {
    updateRunText();
    QMetaObject::invokeMethod(m_worker, [w = m_worker, running] {
      if (w) w->setRunning(running);
    });
  });

  tb->addWidget(new QLabel(tr(" Speed "), tb));
  m_speed = new QComboBox(tb);
  for (int s : {1, 5, 10, 30, 60}) m_speed->addItem(QStringLiteral("×%1").arg(s), s);
  connect(m_speed, &QComboBox::currentIndexChanged, this, [this](int i) {
    const int s = m_speed->itemData(i).toInt();
    QMetaObject::invokeMethod(m_worker, [w = m_worker, s] {
      if (w) w->setSpeed(s);
    });
  });
  tb->addWidget(m_speed);

  auto* incidents = new QMenu(tr("Inject incident"), this);
  for (const IncidentChoice& c : kIncidents) {
    QAction* a = incidents->addAction(tr(c.label));
    connect(a, &QAction::triggered, this, [this, c] {
      QMetaObject::invokeMethod(m_worker, [w = m_worker, c] {
        if (w) w->inject(static_cast<int>(c.kind), c.seconds);
      });
    });
  }
  auto* incidentButton = new QToolButton(tb);
  incidentButton->setText(tr("Inject incident"));
  incidentButton->setMenu(incidents);
  incidentButton->setPopupMode(QToolButton::InstantPopup);
  m_incidentAction = tb->addWidget(incidentButton);
  tb->addSeparator();

  // Playback: the cursor over the recording (shown only while a recording plays).
  m_seek = new QSlider(Qt::Horizontal, tb);
  m_seek->setObjectName(QStringLiteral("playbackCursor"));
  m_seek->setMinimumWidth(220);
  m_seek->setMaximumWidth(420);  // the presets and exports stay on screen at 1600 px
  m_seek->setToolTip(tr("Playback position: drag to seek"));
  connect(m_seek, &QSlider::valueChanged, this,
          [this](int secs) { seek(m_playbackBeginMs + static_cast<qint64>(secs) * 1000); });
  m_seekAction = tb->addWidget(m_seek);
  m_seekLabel = new QLabel(tb);
  m_seekLabelAction = tb->addWidget(m_seekLabel);
  m_seekAction->setVisible(false);
  m_seekLabelAction->setVisible(false);

  m_presets = new QActionGroup(this);
  for (const Preset& p : kPresets) {
    QAction* a = tb->addAction(QString::fromLatin1(p.label));
    a->setCheckable(true);
    a->setChecked(p.span_ms == m_view.span_ms);
    a->setToolTip(tr("Show the last %1").arg(QString::fromLatin1(p.label)));
    m_presets->addAction(a);
    connect(a, &QAction::triggered, this, [this, p] { setPreset(p.span_ms); });
  }
  m_liveAction = tb->addAction(tr("Live"));
  m_liveAction->setCheckable(true);
  m_liveAction->setChecked(true);
  m_liveAction->setShortcut(Qt::Key_Space);
  m_liveAction->setToolTip(tr("Live / Pause (Space): pause freezes the view, recording goes on"));
  connect(m_liveAction, &QAction::triggered, this, [this](bool live) { setPaused(!live); });
  tb->addSeparator();

  QAction* png = tb->addAction(tr("Export PNG"));
  png->setObjectName(QStringLiteral("exportPng"));
  png->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  connect(png, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export charts"), QStringLiteral("limitscope.png"), tr("PNG images (*.png)"));
    if (!path.isEmpty()) exportPng(path);
  });
  QAction* csv = tb->addAction(tr("Export CSV"));
  csv->setObjectName(QStringLiteral("exportCsv"));
  csv->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
  connect(csv, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export series"), QStringLiteral("limitscope.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty()) exportCsv(path);
  });
  tb->addSeparator();

  auto* themeMenu = new QMenu(tr("Theme"), this);
  auto* themes = new QActionGroup(this);
  const std::pair<QString, Theme> choices[] = {
      {tr("Follow system"), Theme::system}, {tr("Light"), Theme::light}, {tr("Dark"), Theme::dark}};
  for (const auto& [label, theme] : choices) {
    QAction* a = themeMenu->addAction(label);
    a->setCheckable(true);
    a->setChecked(theme == m_theme);
    themes->addAction(a);
    connect(a, &QAction::triggered, this, [this, t = theme] { setTheme(t); });
  }
  auto* themeButton = new QToolButton(tb);
  themeButton->setText(tr("Theme"));
  themeButton->setMenu(themeMenu);
  themeButton->setPopupMode(QToolButton::InstantPopup);
  tb->addWidget(themeButton);

  auto* find = new QAction(this);
  find->setShortcut(QKeySequence::Find);
  connect(find, &QAction::triggered, this, [this] { m_keyFilter->setFocus(); });
  addAction(find);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  m_connections = new ConnectionActions(this, file);  // Connect…, Recent connections, Redis keys
  m_openAction = file->addAction(tr("&Open recording…"));
  m_openAction->setShortcut(QKeySequence::Open);
  connect(m_openAction, &QAction::triggered, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open recording"), QString(),
                                     tr("limitscope recordings (*.jsonl);;All files (*)"));
    if (!path.isEmpty()) openRecording(path);
  });
  m_closeRecordingAction = file->addAction(tr("&Close recording"));
  m_closeRecordingAction->setEnabled(false);
  connect(m_closeRecordingAction, &QAction::triggered, this, &MainWindow::closeRecording);
  m_recordAction = file->addAction(tr("&Record session…"));
  m_recordAction->setCheckable(true);
  m_recordAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_recordAction->setToolTip(tr("Record the session to a file for playback (docs/recording.md)"));
  connect(m_recordAction, &QAction::triggered, this, [this](bool on) {
    if (!on) {
      setRecording(QString());
      return;
    }
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Record session"), QStringLiteral("limitscope-%1.jsonl").arg(stamp),
        tr("limitscope recordings (*.jsonl)"));
    if (path.isEmpty()) {
      const QSignalBlocker block(m_recordAction);
      m_recordAction->setChecked(false);
      return;
    }
    setRecording(path);
  });
  file->addSeparator();
  for (QAction* a : findChildren<QAction*>()) {
    if (a->objectName() == QLatin1String("exportPng") ||
        a->objectName() == QLatin1String("exportCsv"))
      file->addAction(a);
  }
  QAction* summary = file->addAction(tr("Export &incident summary…"));
  summary->setObjectName(QStringLiteral("exportIncidentSummary"));
  summary->setToolTip(
      tr("Markdown for the incident channel (sources, fail-open, keys by 429s, alerts) and a PNG"));
  connect(summary, &QAction::triggered, this, [this] {
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export incident summary"),
                                                      QStringLiteral("incident-%1.md").arg(stamp),
                                                      tr("Markdown (*.md)"));
    if (!path.isEmpty()) exportIncidentSummary(path);
  });
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QWidget::close);

  // The dashboard's docks can be closed from their title bars: this is the way back.
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (const QString& name :
       {QStringLiteral("keysDock"), QStringLiteral("alertsDock"), QStringLiteral("eventsDock")}) {
    if (auto* dock = findChild<QDockWidget*>(name)) view->addAction(dock->toggleViewAction());
  }
}

void MainWindow::updateRunText() {
  const bool running = m_runAction->isChecked();
  if (m_liveName.size() > 0) {
    m_runAction->setText(running ? tr("Pause refresh") : tr("Resume refresh"));
    m_runAction->setToolTip(tr("Stop or resume reading the live source (history is kept)"));
  } else if (m_playbackMode) {
    m_runAction->setText(running ? tr("Pause playback") : tr("Play"));
    m_runAction->setToolTip(tr("Play or pause the recording at the chosen speed"));
  } else {
    m_runAction->setText(running ? tr("Stop simulation") : tr("Start simulation"));
    m_runAction->setToolTip(tr("Start or stop simulated time"));
  }
}

}  // namespace limitscope::ui
