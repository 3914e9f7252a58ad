#pragma once
// The Tuner tab: load a trace (file, recording, the simulation's scenario, or a rule's decision
// stream), compare a candidate setting against the current one on it (what-if chart), sweep a
// grid of settings (heatmap, Pareto frontier, recommendation; a click loads a cell), run the
// outage and routing what-ifs, and apply the candidate to the live rule in Redis once writes
// are armed (diff, compare-and-set, audit entry, Undo).
//
// The tab only lays out and wires. The tuner's state has one owner, the Qt-free
// tuner::TunerSession (the connection, the trace and its facts, the prices, the key names, the
// running job's Cancel flag, the what-if series, the live rule), which the tab holds and changes
// only through its operations; the two settings are the session's too (tuner::SettingForm),
// which the two ParamEditors bind to and the panels read. Each panel gets the session and the
// worker it runs its work on, and binds its own fields and buttons: TracePanel (loads,
// the passes over a trace, progress and Cancel), LivePanel (the live rule: its fields, read,
// status) with ApplyPanel (Apply, Undo) and ShadowPanel (the shadow) in its box, SweepPanel (the
// sweep, its heatmap and advice), WhatIfPanel (the chart) and ScenarioPanel. No panel holds
// another: the tab starts the four worker threads, connects each worker's replies to the panel that
// asked, and connects what one panel does to the panels it concerns (a new trace, a new candidate,
// the live setting, the sweep's job).

#include <QPointer>
#include <QThread>
#include <QWidget>
#include <vector>

#include "core/dashboard/dashboard_snapshot.h"
#include "core/tuner/tuner_session.h"
#include "ui/tuner/tuner_worker.h"

QT_BEGIN_NAMESPACE
class QTabWidget;
QT_END_NAMESPACE

namespace limitscope::ui {

class ApplyPanel;
class LivePanel;
class ParamEditor;
class ScenarioPanel;
class ShadowPanel;
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
  ParamEditor* currentEditor() const { return m_current; }
  ParamEditor* candidateEditor() const { return m_candidate; }
  LivePanel* livePanel() const { return m_livePanel; }
  ApplyPanel* applyPanel() const { return m_applyPanel; }
  ShadowPanel* shadowPanel() const { return m_shadowPanel; }
  SweepPanel* sweepPanel() const { return m_sweepPanel; }
  WhatIfPanel* whatIfPanel() const { return m_whatIfPanel; }
  ScenarioPanel* scenarioPanel() const { return m_scenarioPanel; }
  TracePtr trace() const { return m_session.trace(); }

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
  tuner::TunerSession m_session;
  QThread m_jobThread, m_whatIfThread, m_redisThread, m_scenarioThread;
  /// One worker per thread: loads, trace passes and sweeps; what-ifs; Redis; scenarios.
  QPointer<TunerWorker> m_jobs, m_whatIf, m_redis, m_scenarios;
  ParamEditor* m_current = nullptr;
  ParamEditor* m_candidate = nullptr;
  TracePanel* m_tracePanel = nullptr;
  LivePanel* m_livePanel = nullptr;
  ApplyPanel* m_applyPanel = nullptr;
  ShadowPanel* m_shadowPanel = nullptr;
  SweepPanel* m_sweepPanel = nullptr;
  WhatIfPanel* m_whatIfPanel = nullptr;
  ScenarioPanel* m_scenarioPanel = nullptr;
  QTabWidget* m_lowerTabs = nullptr;  // the sweep's heatmap, the scenarios
};

}  // namespace limitscope::ui
