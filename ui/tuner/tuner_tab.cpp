#include "ui/tuner/tuner_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "core/limiter/policy.h"
#include "core/redis/redis_url.h"
#include "core/sim/scenario.h"
#include "core/tuner/candidate.h"
#include "core/tuner/trace_file_load.h"
#include "ui/tuner/dollars.h"
#include "ui/result_box.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/whatif_chart.h"

namespace limitscope::ui {

namespace {

constexpr int kShownErrors = 20;
constexpr int kAdviceWidth = 340;  // px: about 50 characters a line beside the heatmap

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

TunerTab::TunerTab(const QString& redis_url, QWidget* parent)
    : QWidget(parent), m_redisUrl(redis_url), m_cancel(std::make_shared<std::atomic<bool>>(false)) {
  if (!m_redisUrl.isEmpty()) {
    const auto url = redis::parse_redis_url(m_redisUrl.toStdString());
    m_redisShown = url ? q(url->redacted()) : tr("(unusable URL)");
  }
  const std::pair<QThread*, QPointer<TunerWorker>*> workers[] = {
      {&m_jobThread, &m_jobs}, {&m_whatIfThread, &m_whatIf}, {&m_redisThread, &m_redis},
      {&m_scenarioThread, &m_scenarios}};
  for (const auto& [thread, worker] : workers) {
    *worker = new TunerWorker;
    (*worker)->moveToThread(thread);
    connect(thread, &QThread::finished, *worker, &QObject::deleteLater);
    thread->start();
  }
  connect(m_jobs, &TunerWorker::progress, this, &TunerTab::onProgress);
  connect(m_jobs, &TunerWorker::traceLoaded, this, &TunerTab::onTraceLoaded);
  connect(m_jobs, &TunerWorker::sweepDone, this, &TunerTab::onSweep);
  connect(m_redis, &TunerWorker::progress, this, &TunerTab::onProgress);
  connect(m_redis, &TunerWorker::traceLoaded, this, &TunerTab::onTraceLoaded);
  connect(m_redis, &TunerWorker::configDone, this, &TunerTab::onConfig);
  connect(m_whatIf, &TunerWorker::whatIfReady, this, &TunerTab::onWhatIf);
  connect(m_scenarios, &TunerWorker::scenarioReady, this, &TunerTab::onScenario);

  auto* root = new QVBoxLayout(this);
  root->addWidget(buildTracePanel());
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
  leftLayout->addWidget(m_current);
  leftLayout->addWidget(m_candidate);
  leftLayout->addWidget(buildLivePanel());
  leftLayout->addWidget(buildSweepPanel());
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
  m_lowerTabs->addTab(buildScenarioPanel(m_lowerTabs), tr("Outage and routing what-ifs"));
  right->addWidget(chartBox);
  right->addWidget(m_lowerTabs);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  split->addWidget(leftScroll);
  split->addWidget(right);
  split->setStretchFactor(1, 1);
  root->addWidget(split, 1);

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

void TunerTab::updatePricing() {
  auto pricing = std::make_shared<tuner::PricingOptions>();
  pricing->policy = &default_policy();
  if (m_tokensPerRequest->value() > 0) pricing->tokens_per_request = m_tokensPerRequest->value();
  m_pricing = std::move(pricing);
}

void TunerTab::setChartView(int index) {
  m_chartView->setCurrentIndex(index);
}

void TunerTab::setTokensPerRequest(std::optional<int> tokens) {
  m_tokensPerRequest->setValue(tokens.value_or(0));
}

TunerTab::~TunerTab() {
  m_cancel->store(true);
  for (QThread* t : {&m_jobThread, &m_whatIfThread, &m_redisThread, &m_scenarioThread}) {
    t->quit();
    t->wait();
  }
}

QWidget* TunerTab::buildTracePanel() {
  auto* box = new QGroupBox(tr("Trace"), this);
  auto* layout = new QVBoxLayout(box);
  auto* row = new QHBoxLayout;
  auto* file = new QPushButton(tr("Open file…"), box);
  file->setToolTip(
      tr("JSON lines {\"t\", \"key\", \"cost\", \"model\", \"tier\"} or CSV with those columns"));
  connect(file, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open trace"), {}, tr("Traces (*.jsonl *.json *.csv);;All files (*)"));
    if (!path.isEmpty()) loadTraceFile(path);
  });
  auto* recording = new QPushButton(tr("Recording…"), box);
  connect(recording, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open recording"), {},
                                                      tr("Recordings (*.jsonl);;All files (*)"));
    if (!path.isEmpty()) loadRecording(path);
  });
  m_scenario = new QComboBox(box);
  for (const auto name : scenario_names())
    m_scenario->addItem(QString::fromUtf8(name.data(), static_cast<int>(name.size())));
  m_scenario->setCurrentText(QStringLiteral("mixed"));
  m_scenarioSeconds = new QDoubleSpinBox(box);
  m_scenarioSeconds->setRange(1, 86400);
  m_scenarioSeconds->setValue(300);
  m_scenarioSeconds->setSuffix(tr(" s"));
  auto* simulate = new QPushButton(tr("Simulate"), box);
  connect(simulate, &QPushButton::clicked, this,
          [this] { loadScenario(m_scenario->currentText(), m_scenarioSeconds->value()); });
  m_streamRule = new QLineEdit(box);
  m_streamRule->setPlaceholderText(tr("rule"));
  m_streamRule->setMaximumWidth(140);
  m_streamButton = new QPushButton(tr("Decision stream"), box);
  m_streamButton->setToolTip(
      m_redisUrl.isEmpty()
          ? tr("Start limitscope with --redis URL to read a rule's decision stream")
          : tr("The rule's logged decisions in %1").arg(m_redisShown));
  connect(m_streamButton, &QPushButton::clicked, this,
          [this] { loadDecisionStream(m_streamRule->text()); });
  row->addWidget(file);
  row->addWidget(recording);
  row->addSpacing(12);
  row->addWidget(new QLabel(tr("Scenario"), box));
  row->addWidget(m_scenario);
  row->addWidget(m_scenarioSeconds);
  row->addWidget(simulate);
  row->addSpacing(12);
  row->addWidget(m_streamRule);
  row->addWidget(m_streamButton);
  row->addStretch(1);
  m_jobButtons = {file, recording, simulate, m_streamButton};
  layout->addLayout(row);
  auto* row2 = new QHBoxLayout;
  m_traceLabel = new QLabel(tr("No trace loaded."), box);
  m_progress = new QProgressBar(box);
  m_progress->setRange(0, 1000);
  m_progress->setMaximumWidth(260);
  m_progress->hide();
  m_cancelButton = new QPushButton(tr("Cancel"), box);
  m_cancelButton->hide();
  connect(m_cancelButton, &QPushButton::clicked, this, &TunerTab::cancelWork);
  m_status = new QLabel(box);
  m_tokensPerRequest = new QSpinBox(box);
  m_tokensPerRequest->setRange(0, 10'000'000);
  m_tokensPerRequest->setSingleStep(100);
  m_tokensPerRequest->setSpecialValueText(tr("none"));
  m_tokensPerRequest->setSuffix(tr(" tokens"));
  m_tokensPerRequest->setToolTip(
      tr("Spend is each request's LLM tokens at its model's price (default policy). Requests "
         "whose trace line has no token count are priced with this many tokens, or, with none, "
         "left unpriced and counted."));
  connect(m_tokensPerRequest, &QSpinBox::valueChanged, this, [this] {
    updatePricing();
    requestWhatIf(true);
    requestWhatIf(false);
  });
  row2->addWidget(m_traceLabel, 1);
  row2->addWidget(new QLabel(tr("Tokens per request when the trace has none:"), box));
  row2->addWidget(m_tokensPerRequest);
  row2->addWidget(m_status);
  row2->addWidget(m_progress);
  row2->addWidget(m_cancelButton);
  layout->addLayout(row2);
  return box;
}

QString TunerTab::statusText() const {
  return m_status->text();
}

void TunerTab::startJob(const QString& what) {
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  for (QPushButton* b : m_jobButtons) b->setEnabled(false);
  m_progress->setValue(0);
  m_progress->setFormat(what + QStringLiteral(" %p%"));
  m_progress->show();
  m_cancelButton->show();
  m_status->setText(what);
}

void TunerTab::endJob() {
  for (QPushButton* b : m_jobButtons) b->setEnabled(true);
  m_streamButton->setEnabled(!m_redisUrl.isEmpty());
  m_progress->hide();
  m_cancelButton->hide();
}

void TunerTab::onProgress(double fraction, const QString& what) {
  m_progress->setValue(static_cast<int>(fraction * 1000));
  m_progress->setFormat(what + QStringLiteral(" %p%"));
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
  if (m_redisUrl.isEmpty()) {
    m_status->setText(
        tr("No Redis connection: start limitscope with --redis URL to read a decision stream."));
    emit traceLoadFailed(m_status->text());
    return;
  }
  if (rule.trimmed().isEmpty()) {
    m_status->setText(tr("Name the rule whose decision stream to read."));
    emit traceLoadFailed(m_status->text());
    return;
  }
  startJob(tr("Reading stream"));
  RuleTarget t = target();
  t.rule = rule.trimmed();
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t, cancel = m_cancel] {
    if (w) w->loadStream(t, cancel);
  });
}

void TunerTab::onTraceLoaded(const TraceLoadResult& r) {
  endJob();
  if (!r.error.isEmpty()) {
    m_status->setText(r.cancelled ? tr("Load cancelled; the previous trace stays.") : r.error);
    emit traceLoadFailed(r.cancelled ? QStringLiteral("cancelled") : r.error);
    return;
  }
  if (r.error_count == 0) {
    if (!r.trace || r.trace->events.empty()) {
      m_status->setText(tr("%1: no events; nothing loaded.").arg(r.source));
      emit traceLoadFailed(m_status->text());
      return;
    }
    adoptTrace(r.trace, r.source, 0);
    return;
  }
  // Bad lines: nothing is used until the operator says so.
  m_waiting = r;
  QString lines;
  for (std::size_t i = 0; i < std::min<std::size_t>(kShownErrors, r.errors.size()); ++i) {
    const auto& e = r.errors[i];
    lines += (e.line > 0 ? tr("line %1: %2").arg(e.line).arg(q(e.message)) : q(e.message)) +
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
      adoptTrace(w.trace, w.source, w.error_count);
    } else {
      m_status->setText(tr("Nothing loaded: %1 has bad lines.").arg(w.source));
      emit traceLoadFailed(m_status->text());
    }
  });
  m_report->open();
  m_status->setText(tr("%1 bad line(s): choose in the report.").arg(r.error_count));
  emit loadReportShown();
}

void TunerTab::setTrace(TracePtr trace, const QString& source) {
  adoptTrace(std::move(trace), source, 0);
}

void TunerTab::adoptTrace(TracePtr trace, const QString& source, std::size_t skipped) {
  m_trace = std::move(trace);
  m_largestCost = tuner::largest_cost(*m_trace);
  m_current->setLargestCost(m_largestCost);
  m_candidate->setLargestCost(m_largestCost);
  QString text =
      tr("%1: %2 requests from %3 keys over %4 s (%5 MB); largest cost %6")
          .arg(source)
          .arg(m_trace->events.size())
          .arg(m_trace->keys.size())
          .arg(m_trace->duration_s(), 0, 'f', 1)
          .arg(static_cast<double>(tuner::trace_event_bytes(m_trace->events.size())) / 1e6, 0, 'f',
               1)
          .arg(m_largestCost);
  if (skipped > 0) text += tr("; %1 bad line(s) skipped").arg(skipped);
  m_traceLabel->setText(text);
  m_status->setText(tr("Loaded."));
  m_heatmap->clear();
  m_sweepLabel->clear();
  showAdvice({});
  m_firstGuess = tuner::first_guess(*m_trace, m_candidate->params().algorithm);
  m_guessButton->setToolTip(q(m_firstGuess.basis));
  const auto [x, y] =
      tuner::suggest_axes(*m_trace, m_candidate->params().algorithm, m_steps[0]->value());
  setSweepAxes(x.min, x.max, x.steps, y.min, y.max, m_steps[1]->value());
  // Replies still in flight belong to the previous trace: make them stale.
  ++m_generation[0];
  ++m_generation[1];
  for (int i = 0; i < 2; ++i) ++m_scenarioGeneration[i];
  m_outageBox->setMessage(tr("Run the outage what-if on this trace."));
  m_routingBox->setMessage(tr("Run the routing what-if on this trace."));
  requestWhatIf(true);
  requestWhatIf(false);
  emit traceLoaded(source);
}

int TunerTab::chartColumns() const {
  // About one column per pixel of the plot (decimation in core, not in QtCharts).
  return std::clamp(m_chart->width() - 140, 100, 1000);
}

void TunerTab::requestWhatIf(bool current) {
  const int side = current ? 0 : 1;
  ParamEditor* editor = current ? m_current : m_candidate;
  if (!m_trace) return;
  if (!editor->isValid()) {
    // The field says why; the chart drops that side rather than show a stale line.
    (current ? m_currentSeries : m_candidateSeries).reset();
    current ? m_chart->setCurrent(nullptr) : m_chart->setCandidate(nullptr);
    m_pending[side] = false;
    ++m_generation[side];  // a reply still in flight is stale now
    m_summary->setText(
        tr("%1 setting: %2")
            .arg(current ? tr("Current") : tr("Candidate"), q(editor->problems().front().message)));
    return;
  }
  if (m_inFlight[side]) {
    m_pending[side] = true;  // coalesce: only the newest setting is computed next
    return;
  }
  m_inFlight[side] = true;
  const int generation = ++m_generation[side];
  QMetaObject::invokeMethod(m_whatIf, [w = m_whatIf, t = m_trace, p = editor->params(),
                                       n = chartColumns(), current, generation, pr = m_pricing] {
    if (w) w->computeWhatIf(t, p, n, current, generation, pr);
  });
}

void TunerTab::onWhatIf(const WhatIfResult& r) {
  const int side = r.current ? 0 : 1;
  m_inFlight[side] = false;
  if (r.generation == m_generation[side] && r.series) {
    if (r.current) {
      m_currentSeries = r.series;
      m_chart->setCurrent(r.series.get());
    } else {
      m_candidateSeries = r.series;
      m_chart->setCandidate(r.series.get());
    }
  }
  if (m_pending[side]) {
    m_pending[side] = false;
    requestWhatIf(r.current);
    return;
  }
  if (!r.error.isEmpty()) m_summary->setText(r.error);
  if (m_currentSeries && m_candidateSeries) m_summary->setText(summaryText());
  if (!m_inFlight[0] && !m_inFlight[1] && !m_pending[0] && !m_pending[1]) emit whatIfUpdated();
}

namespace {

// "$12.40 admitted, worst key acme-prod $3.10/min, quota burn 64%" for one side of the
// comparison; `worst` names the worst key as the dashboard does.
QString spend_of(const tuner::WhatIfSeries& s, const QString& worst) {
  double burn = 0;
  for (double b : s.max_quota_burn) burn = std::max(burn, b);
  return TunerTab::tr("%1 admitted, worst key %2%3/min, highest daily quota burn %4%")
      .arg(format_dollars(s.total.admitted_spend), worst.isEmpty() ? QString() : worst + QLatin1Char(' '),
           format_dollars(s.spend_summary.worst_key_per_min))
      .arg(burn * 100, 0, 'f', 0);
}

}  // namespace

QString TunerTab::spendText() const {
  if (!m_currentSeries || !m_candidateSeries) return {};
  const auto& cur = *m_currentSeries;
  const auto& cand = *m_candidateSeries;
  if (!cand.spend_summary.priced) {
    return tr("Spend: unknown — %1.")
        .arg(cand.spend_summary.unpriced_reason.empty() ? tr("nothing to price")
                                                        : q(cand.spend_summary.unpriced_reason));
  }
  const auto worst = [this](const tuner::WhatIfSeries& s) {
    if (!m_trace || s.spend_summary.worst_key >= m_trace->keys.size()) return QString();
    return QString::fromStdString(m_names.display(m_trace->keys[s.spend_summary.worst_key]));
  };
  QString text = tr("Spend — current: %1; candidate: %2.").arg(spend_of(cur, worst(cur)), spend_of(cand, worst(cand)));
  if (cand.spend_summary.unpriced_requests > 0) {
    text += QLatin1Char(' ') + q(cand.spend_summary.unpriced_reason) + QLatin1Char('.');
  }
  return text;
}

QString TunerTab::summaryText() const {
  return tr("429s on this trace — current: %1; candidate: %2")
             .arg(q(tuner::describe_429s(m_currentSeries->total)),
                  q(tuner::describe_429s(m_candidateSeries->total))) +
         QLatin1Char('\n') + spendText();
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
