// The Tuner's what-if scenarios on the loaded trace with the current setting: a Redis outage
// under fail-open, fail-closed and a local fallback limiter, and a cost-aware routing rule.
// Computed on their own worker thread (core/tuner/outage_whatif.h, routing_whatif.h), shown
// as the tables of core/tuner/scenario_tables.h in the scenario panel.

#include <QTabWidget>

#include "ui/qt_text.h"
#include "ui/result_box.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/scenario_panel.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {

namespace {

constexpr int kOutage = 0;
constexpr int kRouting = 1;

}  // namespace

void TunerTab::setOutage(const QString& outage, int replicas) {
  m_scenarioPanel->setOutage(outage, replicas);
}

void TunerTab::setRouting(int under_tokens, const QString& model) {
  m_scenarioPanel->setRouting(under_tokens, model);
}

void TunerTab::showScenarios() {
  m_lowerTabs->setCurrentIndex(1);
}

ResultBox* TunerTab::outageBox() const {
  return m_scenarioPanel->outageBox();
}

ResultBox* TunerTab::routingBox() const {
  return m_scenarioPanel->routingBox();
}

bool TunerTab::startScenario(ResultBox* box) {
  showScenarios();
  if (m_session.trace() && m_current->isValid()) {
    box->setMessage(tr("Computing…"));
    return true;
  }
  box->setMessage(!m_session.trace()
                      ? tr("Load a trace first.")
                      : tr("Current setting: %1").arg(qs(m_current->problems().front().message)),
                  true);
  emit scenarioFinished();
  return false;
}

void TunerTab::runOutageWhatIf() {
  if (!startScenario(outageBox())) return;
  QMetaObject::invokeMethod(m_scenarios,
                            [w = m_scenarios, t = m_session.trace(), p = m_current->params(),
                             text = m_scenarioPanel->outage(), n = m_scenarioPanel->replicas(),
                             pr = m_pricing, g = m_session.next_scenario(kOutage)] {
                              if (w) w->computeOutage(t, p, text, n, pr, g);
                            });
}

void TunerTab::runRoutingWhatIf() {
  if (!startScenario(routingBox())) return;
  QMetaObject::invokeMethod(
      m_scenarios, [w = m_scenarios, t = m_session.trace(), p = m_current->params(),
                    under = m_scenarioPanel->routeUnder(), model = m_scenarioPanel->routeModel(),
                    pr = m_pricing, g = m_session.next_scenario(kRouting)] {
        if (w) w->computeRouting(t, p, under, model, pr, g);
      });
}

void TunerTab::onScenario(const ScenarioResult& r) {
  const bool outage = r.kind == ScenarioResult::Kind::outage;
  if (!m_session.scenario_current(outage ? kOutage : kRouting, r.generation))
    return;  // a newer one is on its way
  ResultBox* box = outage ? outageBox() : routingBox();
  if (r.table) {
    box->setTable(*r.table);
  } else {
    box->setMessage(r.error, true);
  }
  emit scenarioFinished();
}

}  // namespace limitscope::ui
