// The Tuner's what-if scenarios on the loaded trace with the current setting: a Redis outage
// under fail-open, fail-closed and a local fallback limiter, and a cost-aware routing rule.
// Computed on their own worker thread (core/tuner/outage_whatif.h, routing_whatif.h), shown
// as the tables of core/tuner/scenario_tables.h.

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "core/limiter/policy.h"
#include "ui/result_box.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {

QWidget* TunerTab::buildScenarioPanel(QWidget* parent) {
  // One row of controls; the two results side by side under it, the outage's table wider. The
  // page scrolls rather than widen the window (the Tuner's width is the main window's minimum).
  auto* scroll = new QScrollArea(parent);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* page = new QWidget(scroll);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 4, 0, 0);
  auto* row = new QHBoxLayout;
  m_outage = new QLineEdit(QStringLiteral("10m@+1m"), page);
  m_outage->setToolTip(tr("The Redis outage: its length, then @ and its UTC start (10m@14:00) or its offset "
                          "from the trace's first request (10m@+1m)"));
  m_outage->setMinimumWidth(100);
  m_outage->setMaximumWidth(140);
  m_outageReplicas = new QSpinBox(page);
  m_outageReplicas->setRange(1, 10'000);
  m_outageReplicas->setValue(2);
  m_outageReplicas->setSuffix(tr(" replicas"));
  m_outageReplicas->setToolTip(tr("Gateway replicas: the local fallback gives each 1/N of the limit"));
  auto* runOutage = new QPushButton(tr("Outage what-if"), page);
  runOutage->setToolTip(tr("Replays the trace with the current setting and Redis down for the window: "
                           "fail-open, fail-closed and a local fallback limiter"));
  connect(runOutage, &QPushButton::clicked, this, &TunerTab::runOutageWhatIf);
  m_routeUnder = new QSpinBox(page);
  m_routeUnder->setRange(1, 100'000'000);
  m_routeUnder->setValue(500);
  m_routeUnder->setSuffix(tr(" tokens"));
  m_routeModel = new QComboBox(page);
  for (const ModelPolicy& m : default_policy().models) m_routeModel->addItem(QString::fromStdString(m.name));
  auto* runRouting = new QPushButton(tr("Routing what-if"), page);
  runRouting->setToolTip(tr("Replays the trace as it was and with small requests on another model "
                            "(its cost weight and price, default policy)"));
  connect(runRouting, &QPushButton::clicked, this, &TunerTab::runRoutingWhatIf);
  row->addWidget(new QLabel(tr("Redis down"), page));
  row->addWidget(m_outage);
  row->addWidget(m_outageReplicas);
  row->addWidget(runOutage);
  row->addSpacing(16);
  row->addWidget(new QLabel(tr("Route under"), page));
  row->addWidget(m_routeUnder);
  row->addWidget(new QLabel(tr("to"), page));
  row->addWidget(m_routeModel);
  row->addWidget(runRouting);
  row->addStretch(1);
  layout->addLayout(row);

  auto* results = new QSplitter(Qt::Horizontal, page);
  m_outageBox = new ResultBox(tr("Redis outage"), results);
  m_outageBox->setMessage(tr("Over-admission, 429s served and extra spend when the limiter's Redis is down."));
  m_routingBox = new ResultBox(tr("Cost-aware routing"), results);
  m_routingBox->setMessage(tr("Spend and 429s with small requests routed to a cheaper model."));
  results->addWidget(m_outageBox);
  results->addWidget(m_routingBox);
  results->setStretchFactor(0, 3);
  results->setStretchFactor(1, 2);
  layout->addWidget(results, 1);
  scroll->setWidget(page);
  return scroll;
}

void TunerTab::setOutage(const QString& outage, int replicas) {
  m_outage->setText(outage);
  m_outageReplicas->setValue(replicas);
}

void TunerTab::setRouting(int under_tokens, const QString& model) {
  m_routeUnder->setValue(under_tokens);
  m_routeModel->setCurrentText(model);
}

void TunerTab::showScenarios() { m_lowerTabs->setCurrentIndex(1); }

bool TunerTab::startScenario(ResultBox* box) {
  showScenarios();
  if (m_trace && m_current->isValid()) {
    box->setMessage(tr("Computing…"));
    return true;
  }
  box->setMessage(!m_trace ? tr("Load a trace first.")
                           : tr("Current setting: %1").arg(QString::fromStdString(m_current->problems().front().message)),
                  true);
  emit scenarioFinished();
  return false;
}

void TunerTab::runOutageWhatIf() {
  if (!startScenario(m_outageBox)) return;
  QMetaObject::invokeMethod(m_scenarios, [w = m_scenarios, t = m_trace, p = m_current->params(),
                                          text = m_outage->text().trimmed(), n = m_outageReplicas->value(),
                                          pr = m_pricing, g = ++m_scenarioGeneration[0]] {
    if (w) w->computeOutage(t, p, text, n, pr, g);
  });
}

void TunerTab::runRoutingWhatIf() {
  if (!startScenario(m_routingBox)) return;
  QMetaObject::invokeMethod(m_scenarios, [w = m_scenarios, t = m_trace, p = m_current->params(),
                                          under = m_routeUnder->value(), model = m_routeModel->currentText(),
                                          pr = m_pricing, g = ++m_scenarioGeneration[1]] {
    if (w) w->computeRouting(t, p, under, model, pr, g);
  });
}

void TunerTab::onScenario(const ScenarioResult& r) {
  const bool outage = r.kind == ScenarioResult::Kind::outage;
  if (r.generation != m_scenarioGeneration[outage ? 0 : 1]) return;  // a newer request is on its way
  ResultBox* box = outage ? m_outageBox : m_routingBox;
  if (r.table) {
    box->setTable(*r.table);
  } else {
    box->setMessage(r.error, true);
  }
  emit scenarioFinished();
}

}  // namespace limitscope::ui
