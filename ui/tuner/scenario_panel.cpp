#include "ui/tuner/scenario_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/limiter/policy.h"
#include "ui/qt_text.h"
#include "ui/result_box.h"

namespace limitscope::ui {

ScenarioPanel::ScenarioPanel(tuner::TunerSession& session, TunerWorker* scenarios, QWidget* parent)
    : QScrollArea(parent), m_session(session), m_scenarios(scenarios) {
  // One row of controls; the two results side by side under it, the outage's table wider. The
  // page scrolls rather than widen the window (the Tuner's width is the main window's minimum).
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  auto* page = new QWidget(this);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 4, 0, 0);
  auto* row = new QHBoxLayout;
  m_outage = new QLineEdit(QStringLiteral("10m@+1m"), page);
  m_outage->setToolTip(
      tr("The Redis outage: its length, then @ and its UTC start (10m@14:00) or its offset "
         "from the trace's first request (10m@+1m)"));
  m_outage->setMinimumWidth(100);
  m_outage->setMaximumWidth(140);
  m_outageReplicas = new QSpinBox(page);
  m_outageReplicas->setRange(1, 10'000);
  m_outageReplicas->setValue(2);
  m_outageReplicas->setSuffix(tr(" replicas"));
  m_outageReplicas->setToolTip(
      tr("Gateway replicas: the local fallback gives each 1/N of the limit"));
  auto* runOutage = new QPushButton(tr("Outage what-if"), page);
  runOutage->setToolTip(
      tr("Replays the trace with the current setting and Redis down for the window: "
         "fail-open, fail-closed and a local fallback limiter"));
  connect(runOutage, &QPushButton::clicked, this, &ScenarioPanel::runOutageWhatIf);
  m_routeUnder = new QSpinBox(page);
  m_routeUnder->setRange(1, 100'000'000);
  m_routeUnder->setValue(500);
  m_routeUnder->setSuffix(tr(" tokens"));
  m_routeModel = new QComboBox(page);
  for (const ModelPolicy& m : default_policy().models) m_routeModel->addItem(qs(m.name));
  auto* runRouting = new QPushButton(tr("Routing what-if"), page);
  runRouting->setToolTip(
      tr("Replays the trace as it was and with small requests on another model "
         "(its cost weight and price, default policy)"));
  connect(runRouting, &QPushButton::clicked, this, &ScenarioPanel::runRoutingWhatIf);
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
  m_outageBox->setMessage(
      tr("Over-admission, 429s served and extra spend when the limiter's Redis is down."));
  m_routingBox = new ResultBox(tr("Cost-aware routing"), results);
  m_routingBox->setMessage(tr("Spend and 429s with small requests routed to a cheaper model."));
  results->addWidget(m_outageBox);
  results->addWidget(m_routingBox);
  results->setStretchFactor(0, 3);
  results->setStretchFactor(1, 2);
  layout->addWidget(results, 1);
  setWidget(page);
}

QString ScenarioPanel::outage() const {
  return m_outage->text().trimmed();
}

int ScenarioPanel::replicas() const {
  return m_outageReplicas->value();
}

void ScenarioPanel::setOutage(const QString& outage, int replicas) {
  m_outage->setText(outage);
  m_outageReplicas->setValue(replicas);
}

int ScenarioPanel::routeUnder() const {
  return m_routeUnder->value();
}

QString ScenarioPanel::routeModel() const {
  return m_routeModel->currentText();
}

void ScenarioPanel::setRouting(int under_tokens, const QString& model) {
  m_routeUnder->setValue(under_tokens);
  m_routeModel->setCurrentText(model);
}

}  // namespace limitscope::ui
