// The Tuner tab's layout and its trace: the panels side by side, the workers, loading a trace
// (and the operator's choice on bad lines), the passes over it on the job worker, and the
// what-if of both settings on the what-if worker.

#include "ui/tuner/tuner_tab.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "core/limiter/policy.h"
#include "core/redis/redis_url.h"
#include "ui/qt_text.h"
#include "ui/result_box.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/scenario_panel.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/sweep_panel.h"
#include "ui/tuner/trace_panel.h"
#include "ui/tuner/whatif_chart.h"

namespace limitscope::ui {

namespace {

constexpr int kShownErrors = 20;
constexpr int kAdviceWidth = 340;  // px: about 50 characters a line beside the heatmap

}  // namespace

TunerTab::TunerTab(const QString& redis_url, QWidget* parent)
    : QWidget(parent), m_redisUrl(redis_url), m_cancel(std::make_shared<std::atomic<bool>>(false)) {
  if (!m_redisUrl.isEmpty()) {
    const auto url = redis::parse_redis_url(m_redisUrl.toStdString());
    m_redisShown = url ? qs(url->redacted()) : tr("(unusable URL)");
  }
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

  auto* root = new QVBoxLayout(this);
  m_tracePanel =
      new TracePanel(m_redisUrl.isEmpty()
                         ? tr("Start limitscope with --redis URL to read a rule's decision stream")
                         : tr("The rule's logged decisions in %1").arg(m_redisShown),
                     this);
  root->addWidget(m_tracePanel);
  auto* split = new QSplitter(Qt::Horizontal, this);
  // The settings column scrolls on its own, so the tab fits a 1280×720 window and the chart,
  // the recommendation and the heatmap on the right stay in view.
  auto* leftScroll = new QScrollArea(split);
  leftScroll->setWidgetResizable(true);
  leftScroll->setFrameShape(QFrame::NoFrame);
  leftScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* left = new QWidget(leftScroll);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  m_current = new ParamEditor(tr("Current setting"), left);
  m_candidate = new ParamEditor(tr("Candidate"), left);
  m_livePanel = new LivePanel(!m_redisUrl.isEmpty(), m_redisShown, left);
  m_sweepPanel = new SweepPanel(left);
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
  auto* chartBox = new QWidget(right);
  auto* chartLayout = new QVBoxLayout(chartBox);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  m_chart = new WhatIfChart(chartBox);
  m_summary = new QLabel(chartBox);
  m_summary->setWordWrap(true);
  auto* viewRow = new QHBoxLayout;
  m_chartView = new QComboBox(chartBox);
  m_chartView->addItems({tr("Levels and 429s"), tr("Spend and daily quota burn")});
  m_chartView->setToolTip(tr("Spend needs token counts (or tokens per request) and model prices"));
  connect(m_chartView, &QComboBox::currentIndexChanged, this, [this](int index) {
    m_chart->setView(index == 1 ? WhatIfChart::View::spend : WhatIfChart::View::levels);
  });
  viewRow->addWidget(new QLabel(tr("Show"), chartBox));
  viewRow->addWidget(m_chartView);
  viewRow->addStretch(1);
  chartLayout->addLayout(viewRow);
  chartLayout->addWidget(m_chart, 1);
  chartLayout->addWidget(m_summary);
  // The sweep's heatmap and the what-if scenarios share the lower half.
  m_lowerTabs = new QTabWidget(right);
  m_lowerTabs->setDocumentMode(true);
  // The sweep page: the heatmap, and beside it the recommendation in full (word-wrapped at a
  // fixed width, the page at least as tall as its text: see showAdvice()).
  auto* sweepPage = new QWidget(m_lowerTabs);
  auto* sweepLayout = new QHBoxLayout(sweepPage);
  sweepLayout->setContentsMargins(0, 0, 0, 0);
  m_heatmap = new SweepHeatmap(sweepPage);
  m_advice = new QLabel(sweepPage);
  m_advice->setObjectName(QStringLiteral("sweepAdvice"));
  m_advice->setWordWrap(true);
  m_advice->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  m_advice->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_advice->setFrameShape(QFrame::StyledPanel);
  m_advice->setMargin(4);
  m_advice->setFixedWidth(kAdviceWidth);
  m_advice->hide();
  sweepLayout->addWidget(m_heatmap, 1);
  sweepLayout->addWidget(m_advice, 0, Qt::AlignTop);
  m_lowerTabs->addTab(sweepPage, tr("Sweep"));
  m_scenarioPanel = new ScenarioPanel(m_lowerTabs);
  m_lowerTabs->addTab(m_scenarioPanel, tr("Outage and routing what-ifs"));
  right->addWidget(chartBox);
  right->addWidget(m_lowerTabs);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  split->addWidget(leftScroll);
  split->addWidget(right);
  split->setStretchFactor(1, 1);
  root->addWidget(split, 1);

  // The workers' replies.
  connect(m_jobs, &TunerWorker::progress, m_tracePanel, &TracePanel::setProgress);
  connect(m_jobs, &TunerWorker::traceLoaded, this, &TunerTab::onTraceLoaded);
  connect(m_jobs, &TunerWorker::traceStudied, this, &TunerTab::onTraceStudied);
  connect(m_jobs, &TunerWorker::sweepDone, this, &TunerTab::onSweep);
  connect(m_redis, &TunerWorker::progress, m_tracePanel, &TracePanel::setProgress);
  connect(m_redis, &TunerWorker::traceLoaded, this, &TunerTab::onTraceLoaded);
  connect(m_redis, &TunerWorker::configDone, this, &TunerTab::onConfig);
  connect(m_redis, &TunerWorker::shadowDone, this, &TunerTab::onShadow);
  connect(m_redis, &TunerWorker::keyCountsReady, this, &TunerTab::onKeyCounts);
  connect(m_whatIf, &TunerWorker::whatIfReady, this, &TunerTab::onWhatIf);
  connect(m_scenarios, &TunerWorker::scenarioReady, this, &TunerTab::onScenario);
  // The panels' requests.
  connect(m_tracePanel, &TracePanel::fileChosen, this, &TunerTab::loadTraceFile);
  connect(m_tracePanel, &TracePanel::recordingChosen, this, &TunerTab::loadRecording);
  connect(m_tracePanel, &TracePanel::simulateClicked, this,
          [this](const QString& name, double seconds) { loadScenario(name, seconds); });
  connect(m_tracePanel, &TracePanel::streamClicked, this, &TunerTab::loadDecisionStream);
  connect(m_tracePanel, &TracePanel::cancelClicked, this, &TunerTab::cancelWork);
  connect(m_tracePanel, &TracePanel::tokensPerRequestChanged, this, [this] {
    updatePricing();
    requestWhatIf(true);
    requestWhatIf(false);
  });
  connect(m_sweepPanel, &SweepPanel::runClicked, this, &TunerTab::runSweep);
  connect(m_sweepPanel, &SweepPanel::firstGuessClicked, this, &TunerTab::useFirstGuess);
  connect(m_sweepPanel, &SweepPanel::aroundCandidateClicked, this, [this] {
    if (auto axes = tuner::axes_around(m_candidate->params(), m_sweepPanel->steps(0),
                                       m_sweepPanel->steps(1)))
      setSweepAxes(axes->first.min, axes->first.max, axes->first.steps, axes->second.min,
                   axes->second.max, axes->second.steps);
  });
  connect(m_livePanel, &LivePanel::readClicked, this, &TunerTab::readLiveConfig);
  connect(m_livePanel, &LivePanel::armToggled, this, &TunerTab::setWritesArmed);
  connect(m_livePanel, &LivePanel::applyClicked, this, &TunerTab::requestApply);
  connect(m_livePanel, &LivePanel::undoClicked, this, &TunerTab::undo);
  connect(m_livePanel, &LivePanel::shadowClicked, this, &TunerTab::putInShadow);
  connect(m_livePanel, &LivePanel::clearShadowClicked, this, &TunerTab::clearShadow);
  connect(m_livePanel, &LivePanel::scopeChanged, this, [this] {
    showLiveSetting();
    updateLiveButtons();
  });
  connect(m_livePanel, &LivePanel::ruleEdited, this, [this] {
    m_session.forget_live();
    m_shadowVersion = 0;
    m_current->setEditable(true);
    updateLiveButtons();
  });
  connect(m_scenarioPanel, &ScenarioPanel::outageClicked, this, &TunerTab::runOutageWhatIf);
  connect(m_scenarioPanel, &ScenarioPanel::routingClicked, this, &TunerTab::runRoutingWhatIf);

  LimitParams current;
  current.capacity = 60;
  current.refill = Rate::per_sec(1);
  m_current->setParams(current);
  LimitParams candidate = current;
  candidate.capacity = 120;
  m_candidate->setParams(candidate);
  connect(m_current, &ParamEditor::changed, this, [this] { requestWhatIf(true); });
  connect(m_candidate, &ParamEditor::changed, this, &TunerTab::onCandidateChanged);
  connect(m_heatmap, &SweepHeatmap::cellClicked, this, &TunerTab::loadCell);
  setSweepAxes(15, 480, 12, 0.25, 8, 12);
  setDark(palette().color(QPalette::Window).lightness() < 128);
  m_summary->setText(tr("Load a trace to see what the candidate would have done."));
  updatePricing();
  updateLiveButtons();
}

TunerTab::~TunerTab() {
  m_cancel->store(true);
  for (QThread* t : {&m_jobThread, &m_whatIfThread, &m_redisThread, &m_scenarioThread}) {
    t->quit();
    t->wait();
  }
}

void TunerTab::updatePricing() {
  auto pricing = std::make_shared<tuner::PricingOptions>();
  pricing->policy = &default_policy();
  if (m_tracePanel->tokensPerRequest() > 0)
    pricing->tokens_per_request = m_tracePanel->tokensPerRequest();
  m_pricing = std::move(pricing);
}

void TunerTab::setChartView(int index) {
  m_chartView->setCurrentIndex(index);
}

void TunerTab::setTokensPerRequest(std::optional<int> tokens) {
  m_tracePanel->setTokensPerRequest(tokens.value_or(0));
}

QString TunerTab::statusText() const {
  return m_tracePanel->status();
}

QProgressBar* TunerTab::progressBar() const {
  return m_tracePanel->progressBar();
}

void TunerTab::startJob(const QString& what) {
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_tracePanel->startJob(what);
  emit jobStarted(what);
}

void TunerTab::endJob() {
  m_tracePanel->endJob(!m_redisUrl.isEmpty());
}

void TunerTab::cancelWork() {
  m_cancel->store(true);
}

void TunerTab::loadTraceFile(const QString& path) {
  startJob(tr("Loading"));
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, path, c = m_cancel] {
    if (w) w->loadFile(path, c);
  });
}

void TunerTab::loadRecording(const QString& path) {
  startJob(tr("Loading"));
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, path, c = m_cancel] {
    if (w) w->loadRecording(path, c);
  });
}

void TunerTab::loadScenario(const QString& name, double seconds, quint64 seed) {
  startJob(tr("Simulating"));
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, name, seconds, seed, c = m_cancel] {
    if (w) w->loadScenario(name, seconds, seed, c);
  });
}

void TunerTab::loadDecisionStream(const QString& rule) {
  const QString why =
      m_redisUrl.isEmpty()
          ? tr("No Redis connection: start limitscope with --redis URL to read a decision stream.")
      : rule.trimmed().isEmpty() ? tr("Name the rule whose decision stream to read.")
                                 : QString();
  if (!why.isEmpty()) {
    m_tracePanel->setStatus(why);
    emit traceLoadFailed(why);
    return;
  }
  startJob(tr("Reading stream"));
  RuleTarget t = target();
  t.rule = rule.trimmed();
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t, cancel = m_cancel] {
    if (w) w->loadStream(t, cancel);
  });
}

void TunerTab::loadFailed(bool cancelled, const QString& error) {
  m_tracePanel->setStatus(cancelled ? tr("Load cancelled; the previous trace stays.") : error);
  emit traceLoadFailed(cancelled ? QStringLiteral("cancelled") : error);
}

void TunerTab::onTraceLoaded(const TraceLoadResult& r) {
  endJob();
  if (!r.error.isEmpty()) return loadFailed(r.cancelled, r.error);
  if (r.error_count == 0) {
    if (!r.trace || r.trace->events.empty()) {
      m_tracePanel->setStatus(tr("%1: no events; nothing loaded.").arg(r.source));
      emit traceLoadFailed(m_tracePanel->status());
      return;
    }
    study(r.trace, r.source, 0, TraceStudy::Purpose::adopt);
    return;
  }
  // Bad lines: nothing is used until the operator says so.
  m_waiting = r;
  QString lines;
  for (std::size_t i = 0; i < std::min<std::size_t>(kShownErrors, r.errors.size()); ++i) {
    const auto& e = r.errors[i];
    lines += (e.line > 0 ? tr("line %1: %2").arg(e.line).arg(qs(e.message)) : qs(e.message)) +
             QLatin1Char('\n');
  }
  if (r.error_count > static_cast<std::size_t>(kShownErrors))
    lines += tr("… and %1 more").arg(r.error_count - kShownErrors);
  const std::size_t good = r.trace ? r.trace->events.size() : 0;
  m_report = new QMessageBox(
      QMessageBox::Warning, tr("Trace has bad lines"),
      tr("%1 has %2 bad line(s) and %3 good one(s). Nothing is loaded unless you choose "
         "to use the good lines.")
          .arg(r.source)
          .arg(r.error_count)
          .arg(good),
      QMessageBox::Cancel, this);
  m_report->setInformativeText(lines.trimmed());
  QPushButton* use =
      m_report->addButton(tr("Use the %1 good lines").arg(good), QMessageBox::AcceptRole);
  use->setEnabled(good > 0);
  m_report->setAttribute(Qt::WA_DeleteOnClose);
  connect(m_report, &QMessageBox::buttonClicked, this, [this, use](QAbstractButton* b) {
    TraceLoadResult w = std::exchange(m_waiting, {});
    if (b == use) {
      study(w.trace, w.source, w.error_count, TraceStudy::Purpose::adopt);
    } else {
      m_tracePanel->setStatus(tr("Nothing loaded: %1 has bad lines.").arg(w.source));
      emit traceLoadFailed(m_tracePanel->status());
    }
  });
  m_report->open();
  m_tracePanel->setStatus(tr("%1 bad line(s): choose in the report.").arg(r.error_count));
  emit loadReportShown();
}

void TunerTab::setTrace(TracePtr trace, const QString& source) {
  study(std::move(trace), source, 0, TraceStudy::Purpose::adopt);
}

void TunerTab::study(TracePtr trace, const QString& source, std::size_t skipped,
                     TraceStudy::Purpose purpose) {
  startJob(purpose == TraceStudy::Purpose::adopt ? tr("Reading the trace") : tr("First guess"));
  TraceStudy s;
  s.purpose = purpose;
  s.trace = std::move(trace);
  s.source = source;
  s.skipped = skipped;
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, s, a = m_candidate->params().algorithm,
                                     n = m_sweepPanel->steps(0), c = m_cancel] {
    if (w) w->studyTrace(s, a, n, c);
  });
}

void TunerTab::onTraceStudied(const TraceStudy& s) {
  endJob();
  if (s.cancelled && s.purpose == TraceStudy::Purpose::adopt) {
    loadFailed(true, {});
  } else if (s.cancelled) {
    m_sweepPanel->setText(tr("First guess cancelled."));
  } else if (s.purpose == TraceStudy::Purpose::adopt) {
    adoptTrace(s);
  } else if (s.trace == m_session.trace()) {  // else a newer trace came meanwhile
    m_session.set_facts(s.facts);
    applyFirstGuess(s.facts.first_guess);
  }
}

void TunerTab::adoptTrace(const TraceStudy& s) {
  m_session.adopt(s.trace, s.facts);  // replies in flight for the previous trace go stale
  const tuner::TraceFacts& facts = m_session.facts();
  m_current->setLargestCost(facts.largest_cost);
  m_candidate->setLargestCost(facts.largest_cost);
  m_tracePanel->setTraceText(
      qs(tuner::trace_summary(s.source.toStdString(), *s.trace, facts.largest_cost, s.skipped)));
  m_tracePanel->setStatus(tr("Loaded."));
  m_heatmap->clear();
  m_sweepPanel->setText({});
  showAdvice({});
  m_sweepPanel->setGuessTip(qs(facts.first_guess.basis));
  const auto& [x, y] = facts.axes;
  setSweepAxes(x.min, x.max, x.steps, y.min, y.max, m_sweepPanel->steps(1));
  m_scenarioPanel->outageBox()->setMessage(tr("Run the outage what-if on this trace."));
  m_scenarioPanel->routingBox()->setMessage(tr("Run the routing what-if on this trace."));
  requestWhatIf(true);
  requestWhatIf(false);
  emit traceLoaded(s.source);
}

int TunerTab::chartColumns() const {
  // About one column per pixel of the plot (decimation in core, not in QtCharts).
  return std::clamp(m_chart->width() - 140, 100, 1000);
}

void TunerTab::requestWhatIf(bool current) {
  const auto side = current ? tuner::TunerSession::current : tuner::TunerSession::candidate;
  ParamEditor* editor = current ? m_current : m_candidate;
  if (!m_session.trace()) return;
  if (!editor->isValid()) {
    // The field says why; the chart drops that side rather than show a stale line.
    m_session.drop_whatif(side);
    current ? m_chart->setCurrent(nullptr) : m_chart->setCandidate(nullptr);
    m_summary->setText(tr("%1 setting: %2")
                           .arg(current ? tr("Current") : tr("Candidate"),
                                qs(editor->problems().front().message)));
    return;
  }
  const std::optional<int> generation = m_session.request_whatif(side);
  if (!generation) return;  // coalesced: computed when the reply in flight comes back
  QMetaObject::invokeMethod(
      m_whatIf, [w = m_whatIf, t = m_session.trace(), p = editor->params(), n = chartColumns(),
                 current, g = *generation, pr = m_pricing] {
        if (w) w->computeWhatIf(t, p, n, current, g, pr);
      });
}

void TunerTab::onWhatIf(const WhatIfResult& r) {
  const auto side = r.current ? tuner::TunerSession::current : tuner::TunerSession::candidate;
  const bool again = m_session.finish_whatif(side, r.generation, r.series);
  if (r.series && m_session.series(side) == r.series)  // taken: not stale
    r.current ? m_chart->setCurrent(r.series.get()) : m_chart->setCandidate(r.series.get());
  if (again) {
    requestWhatIf(r.current);
    return;
  }
  if (!r.error.isEmpty()) m_summary->setText(r.error);
  const auto& cur = m_session.series(tuner::TunerSession::current);
  const auto& cand = m_session.series(tuner::TunerSession::candidate);
  if (cur && cand)
    m_summary->setText(qs(tuner::whatif_summary(m_session.trace().get(), *cur, *cand, m_names)));
  if (m_session.whatif_idle()) emit whatIfUpdated();
}

QString TunerTab::spendText() const {
  return qs(tuner::spend_text(m_session.trace().get(),
                              m_session.series(tuner::TunerSession::current).get(),
                              m_session.series(tuner::TunerSession::candidate).get(), m_names));
}

void TunerTab::onCandidateChanged() {
  if (m_heatmap->hasSweep()) m_heatmap->setSelected(-1);
  requestWhatIf(false);
  updateLiveButtons();
}

void TunerTab::prepareDemo(const QString& scenario, double seconds) {
  connect(
      this, &TunerTab::traceLoaded, this,
      [this] {
        m_demo = true;
        runSweep();
      },
      Qt::SingleShotConnection);
  loadScenario(scenario, seconds);
}

void TunerTab::setDark(bool dark) {
  m_chart->setDark(dark);
}

void TunerTab::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange)
    setDark(palette().color(QPalette::Window).lightness() < 128);
  QWidget::changeEvent(event);
}

}  // namespace limitscope::ui
