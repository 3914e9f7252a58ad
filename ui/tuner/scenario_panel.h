#pragma once
// The Tuner's what-if scenarios page: a Redis outage (its window and the gateway replicas
// sharing the limit) and a cost-aware routing rule (requests under N tokens to another model),
// each run on the loaded trace with the current setting, and their results side by side. It
// binds: the scenarios are computed on the scenario worker (core/tuner/outage_whatif.h,
// routing_whatif.h; scenario_panel_run.cpp), the session drops late replies, and core's
// tables are shown here.

#include <QPointer>
#include <QScrollArea>

#include "core/tuner/tuner_session.h"
#include "ui/tuner/tuner_worker.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QLineEdit;
class QSpinBox;
QT_END_NAMESPACE

namespace limitscope::ui {

class ResultBox;

class ScenarioPanel : public QScrollArea {
  Q_OBJECT
 public:
  /// @param session the trace, the current setting the scenarios run with, the prices, the
  ///        scenarios' generations
  /// @param scenarios the worker the scenarios run on
  ScenarioPanel(tuner::TunerSession& session, TunerWorker* scenarios, QWidget* parent = nullptr);

  /// The outage as typed: "10m@14:00" (UTC) or "90s@+5m" (from the trace's start).
  QString outage() const;
  int replicas() const;
  void setOutage(const QString& outage, int replicas);
  int routeUnder() const;
  QString routeModel() const;
  void setRouting(int under_tokens, const QString& model);
  ResultBox* outageBox() const { return m_outageBox; }
  ResultBox* routingBox() const { return m_routingBox; }
  void runOutageWhatIf();
  void runRoutingWhatIf();
  /// A scenario's reply (wired by the tab).
  void onScenario(const ScenarioResult& result);
  /// A new trace: both results are to be run again.
  void onTraceLoaded();
  /// Asks the tab to show this page (instead of the sweep's heatmap).
  void showScenarios() { emit showRequested(); }

 signals:
  /// An outage or routing what-if finished (its box shows the result or the error).
  void scenarioFinished();
  void showRequested();

 private:
  /// "Computing…" in `box` when there is a trace and a valid current setting, else why not
  /// (and scenarioFinished). @return whether to compute
  bool startScenario(ResultBox* box);

  tuner::TunerSession& m_session;
  QPointer<TunerWorker> m_scenarios;
  QLineEdit* m_outage = nullptr;
  QSpinBox* m_outageReplicas = nullptr;
  QSpinBox* m_routeUnder = nullptr;
  QComboBox* m_routeModel = nullptr;
  ResultBox* m_outageBox = nullptr;
  ResultBox* m_routingBox = nullptr;
};

}  // namespace limitscope::ui
