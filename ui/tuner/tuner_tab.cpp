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

#include "ui/tuner/apply_panel.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/scenario_panel.h"
#include "ui/tuner/shadow_panel.h"
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
  m_session.set_connection(redis_url.toStdString());
  const std::pair<QThread*, QPointer<TunerWorker>*> workers[] = {{&m_jobThread, &m_jobs},
                                                                 {&m_whatIfThread, &m_whatIf},
                                                                 {&m_redisThread, &m_redis},
                                                                 {&m_scenarioThread, &m_scenarios}};
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
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* leftScroll = new QScrollArea(split);
  leftScroll->setWidgetResizable(true);
  leftScroll->setFrameShape(QFrame::NoFrame);
  leftScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* left = new QWidget(leftScroll);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  m_current =
      new ParamEditor(tr("Current setting"), m_session.setting(tuner::TunerSession::current), left);
  m_candidate =
      new ParamEditor(tr("Candidate"), m_session.setting(tuner::TunerSession::candidate), left);
  m_tracePanel = new TracePanel(m_session, m_jobs, m_redis, this);
  root->addWidget(m_tracePanel);
  m_livePanel = new LivePanel(m_session, m_redis, left);
  const LiveWriter::Parts writer{m_session, m_redis, *m_livePanel};
  m_applyPanel = new ApplyPanel(writer, m_livePanel);
  m_shadowPanel = new ShadowPanel(writer, m_livePanel);
  m_livePanel->addActionRow(m_applyPanel);
  m_livePanel->addActionRow(m_shadowPanel);
  m_sweepPanel = new SweepPanel(m_session, m_jobs, left);
  m_tracePanel->addJobButton(m_sweepPanel->runButton());
  leftLayout->addWidget(m_current);
  leftLayout->addWidget(m_candidate);
  leftLayout->addWidget(m_livePanel);
  leftLayout->addWidget(m_sweepPanel);
  leftLayout->addStretch(1);
  leftScroll->setWidget(left);
  leftScroll->setMinimumWidth(left->minimumSizeHint().width() +
                              leftScroll->verticalScrollBar()->sizeHint().width());
  auto* right = new QSplitter(Qt::Vertical, split);
  m_whatIfPanel = new WhatIfPanel(m_session, m_whatIf, right);
  m_lowerTabs = new QTabWidget(right);
  m_lowerTabs->setDocumentMode(true);
  auto* sweepPage = new QWidget(m_lowerTabs);
  auto* sweepLayout = new QHBoxLayout(sweepPage);
  sweepLayout->setContentsMargins(0, 0, 0, 0);
  sweepLayout->addWidget(m_sweepPanel->heatmap(), 1);
  sweepLayout->addWidget(m_sweepPanel->adviceLabel(), 0, Qt::AlignTop);
  m_lowerTabs->addTab(sweepPage, tr("Sweep"));
  m_scenarioPanel = new ScenarioPanel(m_session, m_scenarios, m_lowerTabs);
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
  TunerWorker* jobs = m_jobs;
  TunerWorker* redis = m_redis;
  connect(jobs, &TunerWorker::progress, m_tracePanel, &TracePanel::setProgress);
  connect(jobs, &TunerWorker::traceLoaded, m_tracePanel, &TracePanel::onTraceLoaded);
  connect(jobs, &TunerWorker::traceStudied, m_tracePanel, &TracePanel::onTraceStudied);
  connect(jobs, &TunerWorker::sweepDone, m_sweepPanel, &SweepPanel::onSweep);
  connect(redis, &TunerWorker::progress, m_tracePanel, &TracePanel::setProgress);
  connect(redis, &TunerWorker::traceLoaded, m_tracePanel, &TracePanel::onTraceLoaded);
  connect(redis, &TunerWorker::configDone, m_livePanel, &LivePanel::onConfig);
  connect(redis, &TunerWorker::configDone, m_applyPanel, &ApplyPanel::onConfig);
  connect(redis, &TunerWorker::shadowDone, m_shadowPanel, &ShadowPanel::onShadow);
  connect(redis, &TunerWorker::keyCountsReady, m_applyPanel, &ApplyPanel::onKeyCounts);
  connect(m_whatIf, &TunerWorker::whatIfReady, m_whatIfPanel, &WhatIfPanel::onWhatIf);
  connect(m_scenarios, &TunerWorker::scenarioReady, m_scenarioPanel, &ScenarioPanel::onScenario);

  // What one panel does, to the panels it concerns. A new trace: first the editors show that
  // their settings (the session's) now refuse capacities below its largest request, then the
  // sweep, the scenarios and the chart follow.
  const auto bothWhatIfs = [this] {
    m_whatIfPanel->requestWhatIf(true);
    m_whatIfPanel->requestWhatIf(false);
  };
  connect(m_tracePanel, &TracePanel::traceLoaded, this, [this] {
    m_current->showForm();
    m_candidate->showForm();
  });
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
  connect(m_candidate, &ParamEditor::changed, this, candidateChanged);
  connect(m_sweepPanel, &SweepPanel::candidateChosen, this,
          [this, candidateChanged](const LimitParams& params) {
            m_candidate->setParams(params);
            candidateChanged();
          });
  const auto currentChanged = [this] { m_whatIfPanel->requestWhatIf(true); };
  connect(m_current, &ParamEditor::changed, this, currentChanged);
  connect(m_livePanel, &LivePanel::liveSettingShown, this,
          [this, currentChanged](const LimitParams& params) {
            m_current->setParams(params);
            m_current->setEditable(false);
            currentChanged();
          });
  connect(m_livePanel, &LivePanel::currentSettingTyped, this,
          [this] { m_current->setEditable(true); });
  // The sweep's job shows on the trace panel (progress, Cancel); its first guess for another
  // algorithm is a pass over the trace there.
  connect(m_sweepPanel, &SweepPanel::jobStarted, m_tracePanel, &TracePanel::showJob);
  connect(m_sweepPanel, &SweepPanel::jobEnded, m_tracePanel,
          qOverload<const QString&>(&TracePanel::endJob));
  connect(m_sweepPanel, &SweepPanel::firstGuessWanted, this,
          [this] { m_tracePanel->study(m_session.trace(), {}, 0, TraceStudy::Purpose::guess); });
  connect(m_sweepPanel, &SweepPanel::xStepsChanged, m_tracePanel, &TracePanel::setStudySteps);
  connect(m_livePanel, &LivePanel::streamAvailable, m_tracePanel, &TracePanel::setStreamEnabled);
  // The live rule's writers: their buttons as core allows, their news on the live status, and
  // a write (or a conflict) back to the live panel.
  connect(m_livePanel, &LivePanel::buttonsChanged, m_applyPanel, &LiveWriter::setButtons);
  connect(m_livePanel, &LivePanel::buttonsChanged, m_shadowPanel, &LiveWriter::setButtons);
  connect(m_applyPanel, &ApplyPanel::statusChanged, m_livePanel, &LivePanel::setStatus);
  connect(m_shadowPanel, &ShadowPanel::statusChanged, m_livePanel, &LivePanel::setStatus);
  connect(m_applyPanel, &ApplyPanel::liveWritten, m_livePanel, &LivePanel::showWritten);
  connect(m_applyPanel, &ApplyPanel::rereadRequested, m_livePanel, &LivePanel::rereadAfter);
  connect(m_shadowPanel, &ShadowPanel::rereadRequested, m_livePanel, &LivePanel::rereadAfter);
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
  connect(m_applyPanel, &ApplyPanel::applyFinished, this, &TunerTab::applyFinished);
  connect(m_shadowPanel, &ShadowPanel::shadowFinished, this, &TunerTab::shadowFinished);
  connect(m_applyPanel, &ApplyPanel::applyDialogOpened, this, &TunerTab::applyDialogOpened);
  connect(m_scenarioPanel, &ScenarioPanel::scenarioFinished, this, &TunerTab::scenarioFinished);

  LimitParams current;
  current.capacity = 60;
  current.refill = Rate::per_sec(1);
  m_current->setParams(current);
  LimitParams candidate = current;
  candidate.capacity = 120;
  m_candidate->setParams(candidate);
  m_sweepPanel->setSweepAxes(15, 480, 12, 0.25, 8, 12);
  m_whatIfPanel->chart()->setDark(isDark(this));
  m_livePanel->updateLiveButtons();
}

TunerTab::~TunerTab() {
  m_session.cancel_job();
  for (QThread* t : {&m_jobThread, &m_whatIfThread, &m_redisThread, &m_scenarioThread}) {
    t->quit();
    t->wait();
  }
}

void TunerTab::loadDecisionStream(const QString& rule) {
  RuleTarget target = m_livePanel->liveRule().target;
  target.rule = rule;
  m_tracePanel->loadDecisionStream(target);
}

void TunerTab::setKeyNames(const std::vector<KeyRow>& rows) {
  m_session.set_key_names(tuner::key_names_of(rows));
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
