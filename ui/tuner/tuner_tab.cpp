// The Tuner tab's layout and wiring: the panels side by side over the shared state, the four
// worker threads, each worker's replies to the panel that asked, and what one panel does to
// the panels it concerns.

#include "ui/tuner/tuner_tab.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "core/redis/redis_url.h"
#include "ui/qt_text.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/scenario_panel.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/sweep_panel.h"
#include "ui/tuner/trace_panel.h"
#include "ui/tuner/whatif_chart.h"
#include "ui/tuner/whatif_panel.h"

namespace limitscope::ui {

namespace {

bool isDark(const QWidget* w) {
  return w->palette().color(QPalette::Window).lightness() < 128;
}

}  // namespace

TunerTab::TunerTab(const QString& redis_url, QWidget* parent) : QWidget(parent) {
  m_shared.redisUrl = redis_url;
  if (!redis_url.isEmpty()) {
    const auto url = redis::parse_redis_url(redis_url.toStdString());
    m_shared.redisShown = url ? qs(url->redacted()) : tr("(unusable URL)");
  }
  const std::pair<QThread*, QPointer<TunerWorker>*> workers[] = {
      {&m_jobThread, &m_shared.jobs},
      {&m_whatIfThread, &m_shared.whatIf},
      {&m_redisThread, &m_shared.redis},
      {&m_scenarioThread, &m_shared.scenarios}};
  for (const auto& [thread, worker] : workers) {
    *worker = new TunerWorker;
    (*worker)->moveToThread(thread);
    connect(thread, &QThread::finished, *worker, &QObject::deleteLater);
    thread->start();
  }

  // The layout: the trace on top; the settings column (scrolling on its own, so the tab fits a
  // 1280×720 window and the chart, the recommendation and the heatmap stay in view) beside the
  // chart over the sweep's heatmap and the scenarios.
  auto* root = new QVBoxLayout(this);
  m_tracePanel = new TracePanel(m_shared, this);
  root->addWidget(m_tracePanel);
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* leftScroll = new QScrollArea(split);
  leftScroll->setWidgetResizable(true);
  leftScroll->setFrameShape(QFrame::NoFrame);
  leftScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* left = new QWidget(leftScroll);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  m_shared.current = new ParamEditor(tr("Current setting"), left);
  m_shared.candidate = new ParamEditor(tr("Candidate"), left);
  m_livePanel = new LivePanel(m_shared, left);
  m_sweepPanel = new SweepPanel(m_shared, *m_tracePanel, left);
  m_tracePanel->setSweep(m_sweepPanel);
  m_tracePanel->addJobButton(m_sweepPanel->runButton());
  leftLayout->addWidget(m_shared.current);
  leftLayout->addWidget(m_shared.candidate);
  leftLayout->addWidget(m_livePanel);
  leftLayout->addWidget(m_sweepPanel);
  leftLayout->addStretch(1);
  leftScroll->setWidget(left);
  leftScroll->setMinimumWidth(left->minimumSizeHint().width() +
                              leftScroll->verticalScrollBar()->sizeHint().width());
  auto* right = new QSplitter(Qt::Vertical, split);
  m_whatIfPanel = new WhatIfPanel(m_shared, right);
  m_lowerTabs = new QTabWidget(right);
  m_lowerTabs->setDocumentMode(true);
  auto* sweepPage = new QWidget(m_lowerTabs);
  auto* sweepLayout = new QHBoxLayout(sweepPage);
  sweepLayout->setContentsMargins(0, 0, 0, 0);
  sweepLayout->addWidget(m_sweepPanel->heatmap(), 1);
  sweepLayout->addWidget(m_sweepPanel->adviceLabel(), 0, Qt::AlignTop);
  m_lowerTabs->addTab(sweepPage, tr("Sweep"));
  m_scenarioPanel = new ScenarioPanel(m_shared, m_lowerTabs);
  m_lowerTabs->addTab(m_scenarioPanel, tr("Outage and routing what-ifs"));
  right->addWidget(m_whatIfPanel);
  right->addWidget(m_lowerTabs);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  split->addWidget(leftScroll);
  split->addWidget(right);
  split->setStretchFactor(1, 1);
  root->addWidget(split, 1);

  // The workers' replies, to the panel that asked.
  TunerWorker* jobs = m_shared.jobs;
  TunerWorker* redis = m_shared.redis;
  connect(jobs, &TunerWorker::progress, m_tracePanel, &TracePanel::setProgress);
  connect(jobs, &TunerWorker::traceLoaded, m_tracePanel, &TracePanel::onTraceLoaded);
  connect(jobs, &TunerWorker::traceStudied, m_tracePanel, &TracePanel::onTraceStudied);
  connect(jobs, &TunerWorker::sweepDone, m_sweepPanel, &SweepPanel::onSweep);
  connect(redis, &TunerWorker::progress, m_tracePanel, &TracePanel::setProgress);
  connect(redis, &TunerWorker::traceLoaded, m_tracePanel, &TracePanel::onTraceLoaded);
  connect(redis, &TunerWorker::configDone, m_livePanel, &LivePanel::onConfig);
  connect(redis, &TunerWorker::shadowDone, m_livePanel, &LivePanel::onShadow);
  connect(redis, &TunerWorker::keyCountsReady, m_livePanel, &LivePanel::onKeyCounts);
  connect(m_shared.whatIf, &TunerWorker::whatIfReady, m_whatIfPanel, &WhatIfPanel::onWhatIf);
  connect(m_shared.scenarios, &TunerWorker::scenarioReady, m_scenarioPanel,
          &ScenarioPanel::onScenario);

  // What one panel does, to the panels it concerns.
  const auto bothWhatIfs = [this] {
    m_whatIfPanel->requestWhatIf(true);
    m_whatIfPanel->requestWhatIf(false);
  };
  connect(m_tracePanel, &TracePanel::traceLoaded, m_sweepPanel, &SweepPanel::onTraceLoaded);
  connect(m_tracePanel, &TracePanel::traceLoaded, m_scenarioPanel, &ScenarioPanel::onTraceLoaded);
  connect(m_tracePanel, &TracePanel::traceLoaded, this, bothWhatIfs);
  connect(m_tracePanel, &TracePanel::tokensPerRequestChanged, this, bothWhatIfs);
  connect(m_tracePanel, &TracePanel::streamClicked, this, &TunerTab::loadDecisionStream);
  connect(m_tracePanel, &TracePanel::firstGuessStudied, m_sweepPanel,
          &SweepPanel::onFirstGuessStudied);
  const auto candidateChanged = [this] {
    m_sweepPanel->onCandidateChanged();
    m_whatIfPanel->requestWhatIf(false);
    m_livePanel->updateLiveButtons();
  };
  connect(m_shared.candidate, &ParamEditor::changed, this, candidateChanged);
  connect(m_sweepPanel, &SweepPanel::candidateChosen, this, candidateChanged);
  const auto currentChanged = [this] { m_whatIfPanel->requestWhatIf(true); };
  connect(m_shared.current, &ParamEditor::changed, this, currentChanged);
  connect(m_livePanel, &LivePanel::liveSettingShown, this, currentChanged);
  connect(m_livePanel, &LivePanel::streamAvailable, m_tracePanel, &TracePanel::setStreamEnabled);
  connect(m_livePanel, &LivePanel::ruleSet, m_tracePanel, &TracePanel::suggestStreamRule);
  connect(m_sweepPanel, &SweepPanel::sweepStarted, this,
          [this] { m_lowerTabs->setCurrentIndex(0); });
  connect(m_scenarioPanel, &ScenarioPanel::showRequested, this,
          [this] { m_lowerTabs->setCurrentIndex(1); });
  connect(m_sweepPanel, &SweepPanel::demoCellChosen, this, [this](int index) {
    connect(m_whatIfPanel, &WhatIfPanel::whatIfUpdated, this, &TunerTab::demoReady,
            Qt::SingleShotConnection);
    m_sweepPanel->loadCell(index);
  });

  // The panels' news, as the tab's (after the panels above have had theirs).
  connect(m_tracePanel, &TracePanel::traceLoaded, this, &TunerTab::traceLoaded);
  connect(m_tracePanel, &TracePanel::traceLoadFailed, this, &TunerTab::traceLoadFailed);
  connect(m_tracePanel, &TracePanel::loadReportShown, this, &TunerTab::loadReportShown);
  connect(m_tracePanel, &TracePanel::jobStarted, this, &TunerTab::jobStarted);
  connect(m_whatIfPanel, &WhatIfPanel::whatIfUpdated, this, &TunerTab::whatIfUpdated);
  connect(m_sweepPanel, &SweepPanel::sweepFinished, this, &TunerTab::sweepFinished);
  connect(m_livePanel, &LivePanel::configRead, this, &TunerTab::configRead);
  connect(m_livePanel, &LivePanel::applyFinished, this, &TunerTab::applyFinished);
  connect(m_livePanel, &LivePanel::shadowFinished, this, &TunerTab::shadowFinished);
  connect(m_livePanel, &LivePanel::applyDialogOpened, this, &TunerTab::applyDialogOpened);
  connect(m_scenarioPanel, &ScenarioPanel::scenarioFinished, this, &TunerTab::scenarioFinished);

  LimitParams current;
  current.capacity = 60;
  current.refill = Rate::per_sec(1);
  m_shared.current->setParams(current);
  LimitParams candidate = current;
  candidate.capacity = 120;
  m_shared.candidate->setParams(candidate);
  m_sweepPanel->setSweepAxes(15, 480, 12, 0.25, 8, 12);
  m_whatIfPanel->chart()->setDark(isDark(this));
  m_livePanel->updateLiveButtons();
}

TunerTab::~TunerTab() {
  m_shared.cancel->store(true);
  for (QThread* t : {&m_jobThread, &m_whatIfThread, &m_redisThread, &m_scenarioThread}) {
    t->quit();
    t->wait();
  }
}

void TunerTab::loadDecisionStream(const QString& rule) {
  RuleTarget target = m_livePanel->target();
  target.rule = rule;
  m_tracePanel->loadDecisionStream(target);
}

void TunerTab::setKeyNames(const std::vector<KeyRow>& rows) {
  m_shared.names = tuner::key_names_of(rows);
}

void TunerTab::prepareDemo(const QString& scenario, double seconds) {
  connect(
      m_tracePanel, &TracePanel::traceLoaded, m_sweepPanel,
      [this] { m_sweepPanel->runDemoSweep(); }, Qt::SingleShotConnection);
  m_tracePanel->loadScenario(scenario, seconds);
}

void TunerTab::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) m_whatIfPanel->chart()->setDark(isDark(this));
  QWidget::changeEvent(event);
}

}  // namespace limitscope::ui
