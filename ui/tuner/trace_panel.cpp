#include "ui/tuner/trace_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/sim/scenario.h"
#include "ui/qt_text.h"
#include "ui/tuner/value_spin_box.h"

namespace limitscope::ui {

TracePanel::TracePanel(tuner::TunerSession& session, TunerWorker* jobs, TunerWorker* redis,
                       QWidget* parent)
    : QGroupBox(tr("Trace"), parent), m_session(session), m_jobs(jobs), m_redis(redis) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  auto* file = new QPushButton(tr("Open file…"), this);
  file->setToolTip(
      tr("JSON lines {\"t\", \"key\", \"cost\", \"model\", \"tier\"} or CSV with those columns"));
  connect(file, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open trace"), {}, tr("Traces (*.jsonl *.json *.csv);;All files (*)"));
    if (!path.isEmpty()) emit fileChosen(path);
  });
  auto* recording = new QPushButton(tr("Recording…"), this);
  connect(recording, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open recording"), {},
                                                      tr("Recordings (*.jsonl);;All files (*)"));
    if (!path.isEmpty()) emit recordingChosen(path);
  });
  m_scenario = new QComboBox(this);
  for (const auto name : scenario_names())
    m_scenario->addItem(QString::fromUtf8(name.data(), static_cast<int>(name.size())));
  m_scenario->setCurrentText(QStringLiteral("mixed"));
  m_scenarioSeconds = new ValueSpinBox(1, this);
  m_scenarioSeconds->setRange(1, 86400);
  m_scenarioSeconds->setValue(300);
  m_scenarioSeconds->setSuffix(tr(" s"));
  auto* simulate = new QPushButton(tr("Simulate"), this);
  connect(simulate, &QPushButton::clicked, this,
          [this] { emit simulateClicked(m_scenario->currentText(), m_scenarioSeconds->value()); });
  m_streamRule = new QLineEdit(this);
  m_streamRule->setPlaceholderText(tr("rule"));
  m_streamRule->setMaximumWidth(140);
  m_streamButton = new QPushButton(tr("Decision stream"), this);
  m_streamButton->setToolTip(
      !m_session.connected()
          ? tr("Start limitscope with --redis URL to read a rule's decision stream")
          : tr("The rule's logged decisions in %1").arg(qs(m_session.url_shown())));
  connect(m_streamButton, &QPushButton::clicked, this,
          [this] { emit streamClicked(m_streamRule->text()); });
  row->addWidget(file);
  row->addWidget(recording);
  row->addSpacing(12);
  row->addWidget(new QLabel(tr("Scenario"), this));
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
  m_traceLabel = new QLabel(tr("No trace loaded."), this);
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1000);
  m_progress->setMaximumWidth(260);
  m_progress->hide();
  m_cancelButton = new QPushButton(tr("Cancel"), this);
  m_cancelButton->hide();
  connect(m_cancelButton, &QPushButton::clicked, this, &TracePanel::cancelClicked);
  connect(this, &TracePanel::cancelClicked, this, &TracePanel::cancelWork);
  m_status = new QLabel(this);
  m_tokensPerRequest = new QSpinBox(this);
  m_tokensPerRequest->setRange(0, 10'000'000);
  m_tokensPerRequest->setSingleStep(100);
  m_tokensPerRequest->setSpecialValueText(tr("none"));
  m_tokensPerRequest->setSuffix(tr(" tokens"));
  m_tokensPerRequest->setToolTip(
      tr("Spend is each request's LLM tokens at its model's price (default policy). Requests "
         "whose trace line has no token count are priced with this many tokens, or, with none, "
         "left unpriced and counted."));
  connect(m_tokensPerRequest, &QSpinBox::valueChanged, this, [this](int tokens) {
    m_session.set_tokens_per_request(tokens);
    emit tokensPerRequestChanged();
  });
  row2->addWidget(m_traceLabel, 1);
  row2->addWidget(new QLabel(tr("Tokens per request when the trace has none:"), this));
  row2->addWidget(m_tokensPerRequest);
  row2->addWidget(m_status);
  row2->addWidget(m_progress);
  row2->addWidget(m_cancelButton);
  layout->addLayout(row2);
  connect(this, &TracePanel::fileChosen, this, &TracePanel::loadTraceFile);
  connect(this, &TracePanel::recordingChosen, this, &TracePanel::loadRecording);
  connect(this, &TracePanel::simulateClicked, this,
          [this](const QString& name, double seconds) { loadScenario(name, seconds); });
  m_session.set_tokens_per_request(tokensPerRequest());
}

void TracePanel::setTraceText(const QString& text) {
  m_traceLabel->setText(text);
}

void TracePanel::setStatus(const QString& text) {
  m_status->setText(text);
}

QString TracePanel::status() const {
  return m_status->text();
}

void TracePanel::startJob(const QString& what) {
  m_session.start_job();
  showJob(what);
}

void TracePanel::showJob(const QString& what) {
  for (QPushButton* b : m_jobButtons) b->setEnabled(false);
  m_progress->setValue(0);
  m_progress->setFormat(what + QStringLiteral(" %p%"));
  m_progress->show();
  m_cancelButton->show();
  m_status->setText(what);
  emit jobStarted(what);
}

void TracePanel::endJob() {
  for (QPushButton* b : m_jobButtons) b->setEnabled(true);
  m_streamButton->setEnabled(m_session.connected());
  m_progress->hide();
  m_cancelButton->hide();
}

void TracePanel::endJob(const QString& status) {
  endJob();
  setStatus(status);
}

void TracePanel::setProgress(double fraction, const QString& what) {
  m_progress->setValue(static_cast<int>(fraction * 1000));
  m_progress->setFormat(what + QStringLiteral(" %p%"));
}

void TracePanel::setStreamEnabled(bool enabled) {
  m_streamButton->setEnabled(enabled);
}

void TracePanel::suggestStreamRule(const QString& rule) {
  if (m_streamRule->text().isEmpty()) m_streamRule->setText(rule);
}

int TracePanel::tokensPerRequest() const {
  return m_tokensPerRequest->value();
}

void TracePanel::setTokensPerRequest(int tokens) {
  m_tokensPerRequest->setValue(tokens);
}

}  // namespace limitscope::ui
