// The scenario panel's work on the loaded trace with the current setting: a Redis outage under
// fail-open, fail-closed and a local fallback limiter, and a cost-aware routing rule, computed
// on the scenario worker (core/tuner/outage_whatif.h, routing_whatif.h) and shown as the tables
// of core/tuner/scenario_tables.h.

#include "ui/qt_text.h"
#include "ui/result_box.h"
#include "ui/tuner/scenario_panel.h"

namespace limitscope::ui {

namespace {

constexpr int kOutage = 0;
constexpr int kRouting = 1;

}  // namespace

void ScenarioPanel::onTraceLoaded() {
  m_outageBox->setMessage(tr("Run the outage what-if on this trace."));
  m_routingBox->setMessage(tr("Run the routing what-if on this trace."));
}

bool ScenarioPanel::startScenario(ResultBox* box) {
  showScenarios();
  const Status check = tuner::check_scenario(
      m_session.trace().get(), m_session.setting(tuner::TunerSession::current).problems());
  if (check.ok()) {
    box->setMessage(tr("Computing…"));
    return true;
  }
  box->setMessage(qs(check.error()), true);
  emit scenarioFinished();
  return false;
}

void ScenarioPanel::runOutageWhatIf() {
  if (!startScenario(m_outageBox)) return;
  QMetaObject::invokeMethod(
      m_scenarios,
      [w = m_scenarios, t = m_session.trace(),
       p = m_session.setting(tuner::TunerSession::current).params(), text = outage(),
       n = replicas(), pr = m_session.pricing(), g = m_session.next_scenario(kOutage)] {
        if (w) w->computeOutage(t, p, text, n, pr, g);
      });
}

void ScenarioPanel::runRoutingWhatIf() {
  if (!startScenario(m_routingBox)) return;
  QMetaObject::invokeMethod(
      m_scenarios,
      [w = m_scenarios, t = m_session.trace(),
       p = m_session.setting(tuner::TunerSession::current).params(), under = routeUnder(),
       model = routeModel(), pr = m_session.pricing(), g = m_session.next_scenario(kRouting)] {
        if (w) w->computeRouting(t, p, under, model, pr, g);
      });
}

void ScenarioPanel::onScenario(const ScenarioResult& r) {
  const bool isOutage = r.kind == ScenarioResult::Kind::outage;
  if (!m_session.scenario_current(isOutage ? kOutage : kRouting, r.generation))
    return;  // a newer one is on its way
  ResultBox* box = isOutage ? m_outageBox : m_routingBox;
  if (r.table.ok()) {
    box->setTable(**r.table);
  } else {
    box->setMessage(r.table.error().message, true);
  }
  emit scenarioFinished();
}

}  // namespace limitscope::ui
