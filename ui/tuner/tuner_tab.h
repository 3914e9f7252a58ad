#pragma once
// The Tuner tab: load a trace (file, recording, the simulation's scenario, or a rule's decision
// stream), compare a candidate setting against the current one on it (what-if chart), sweep a
// grid of settings (heatmap, Pareto frontier, recommendation; a click loads a cell), run the
// outage and routing what-ifs, and apply the candidate to the live rule in Redis once writes
// are armed (diff, compare-and-set, audit entry, Undo).
//
// The tab only lays out and wires. Each panel binds its own fields and buttons over the shared
// state (tuner_shared.h: the Qt-free tuner::TunerSession, the workers, the Cancel flag, the
// prices): TracePanel (loads, the passes over a trace, progress and Cancel), the two
// ParamEditors, LivePanel (the live rule: read, Apply, Undo, shadow), SweepPanel (the sweep, its
// heatmap and advice), WhatIfPanel (the chart) and ScenarioPanel. The tab starts the four
// worker threads, connects each worker's replies to the panel that asked, and connects what
// one panel does to the panels it concerns (a new trace, a new candidate, the live setting).

#include <QThread>
#include <QWidget>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "ui/tuner/tuner_shared.h"

QT_BEGIN_NAMESPACE
class QTabWidget;
QT_END_NAMESPACE

namespace limitscope::ui {

class LivePanel;
class ParamEditor;
class ScenarioPanel;
class SweepPanel;
class TracePanel;
class WhatIfPanel;

class TunerTab : public QWidget {
  Q_OBJECT
 public:
  /// @param redis_url the connection the app was started with (--redis), or empty: then the
  ///        decision-stream source and Apply are unavailable and the current setting is entered
  explicit TunerTab(const QString& redis_url = {}, QWidget* parent = nullptr);
  ~TunerTab() override;

  /// Reads `rule`'s decision stream, under the live panel's connection and prefix.
  void loadDecisionStream(const QString& rule);
  /// Names keys as the dashboard does (from its key rows: limitscope_key_info, --key-names):
  /// the worst key of the spend summary and the key of an override say the name.
  void setKeyNames(const std::vector<KeyRow>& rows);
  /// Demo content for a screenshot: the simulation's scenario, a sweep; emits demoReady.
  void prepareDemo(const QString& scenario, double seconds);

  // The panels (tests, the benchmark, the app).
  TracePanel* tracePanel() const { return m_tracePanel; }
  ParamEditor* currentEditor() const { return m_shared.current; }
  ParamEditor* candidateEditor() const { return m_shared.candidate; }
  LivePanel* livePanel() const { return m_livePanel; }
  SweepPanel* sweepPanel() const { return m_sweepPanel; }
  WhatIfPanel* whatIfPanel() const { return m_whatIfPanel; }
  ScenarioPanel* scenarioPanel() const { return m_scenarioPanel; }
  TracePtr trace() const { return m_shared.session.trace(); }

 signals:
  void traceLoaded(const QString& source);
  /// A load failed, was cancelled ("cancelled"), or the operator refused its bad lines.
  void traceLoadFailed(const QString& error);
  /// A load with bad lines waits for the operator (TracePanel::loadReport()).
  void loadReportShown();
  /// The chart shows the latest settings.
  void whatIfUpdated();
  void sweepFinished(bool ok, const QString& message);
  void configRead(const QString& message);
  void applyFinished(bool ok, const QString& message);
  /// Put in shadow or Clear shadow finished (the live status says the same).
  void shadowFinished(bool ok, const QString& message);
  /// The diff dialog opened (at once, or once a key's predicted counts are computed).
  void applyDialogOpened();
  void demoReady();
  /// An outage or routing what-if finished (its box shows the result or the error).
  void scenarioFinished();
  /// A job on the worker starts ("Loading", "Reading the trace", ...); its Cancel flag is fresh.
  void jobStarted(const QString& what);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  TunerShared m_shared;
  QThread m_jobThread, m_whatIfThread, m_redisThread, m_scenarioThread;
  TracePanel* m_tracePanel = nullptr;
  LivePanel* m_livePanel = nullptr;
  SweepPanel* m_sweepPanel = nullptr;
  WhatIfPanel* m_whatIfPanel = nullptr;
  ScenarioPanel* m_scenarioPanel = nullptr;
  QTabWidget* m_lowerTabs = nullptr;  // the sweep's heatmap, the scenarios
};

}  // namespace limitscope::ui
