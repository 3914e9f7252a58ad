#pragma once
// The Tuner tab: load a trace (file, recording, the simulation's scenario, or a rule's decision
// stream), compare a candidate setting against the current one on it (what-if chart), sweep a
// grid of settings (heatmap, Pareto frontier, recommendation; a click loads a cell), and apply
// the candidate to the live rule in Redis once writes are armed (diff, compare-and-set, audit
// entry, Undo). The tab lays out its panels (TracePanel, ParamEditor ×2, LivePanel, SweepPanel,
// ScenarioPanel, the chart and the heatmap) over a Qt-free tuner::TunerSession, which holds the
// state and says what to show; every load, pass over the trace, replay, sweep and Redis command
// runs on a TunerWorker thread. This class only wires panels, session and workers.

#include <QMessageBox>
#include <QPointer>
#include <QThread>
#include <QWidget>
#include <memory>
#include <optional>

#include "core/redis/rule_config.h"
#include "core/sources/dashboard_snapshot.h"
#include "core/sources/key_names.h"
#include "core/tuner/first_guess.h"
#include "core/tuner/tuner_session.h"
#include "ui/tuner/apply_dialog.h"
#include "ui/tuner/tuner_worker.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QProgressBar;
class QTabWidget;
QT_END_NAMESPACE

namespace limitscope::ui {

class LivePanel;
class ParamEditor;
class ResultBox;
class ScenarioPanel;
class SweepHeatmap;
class SweepPanel;
class TracePanel;
class WhatIfChart;

class TunerTab : public QWidget {
  Q_OBJECT
 public:
  /// @param redis_url the connection the app was started with (--redis), or empty: then the
  ///        decision-stream source and Apply are unavailable and the current setting is entered
  explicit TunerTab(const QString& redis_url = {}, QWidget* parent = nullptr);
  ~TunerTab() override;

  // Trace sources (each runs on the job worker; progress and Cancel show meanwhile).
  void loadTraceFile(const QString& path);
  void loadRecording(const QString& path);
  void loadScenario(const QString& name, double seconds, quint64 seed = 1);
  void loadDecisionStream(const QString& rule);
  /// Uses a trace (tests, the benchmark): its passes run on the job worker, then traceLoaded.
  void setTrace(TracePtr trace, const QString& source);
  /// Cancels the running load or sweep.
  void cancelWork();
  /// The report of a load with bad lines, while it waits for the operator's choice.
  QMessageBox* loadReport() const { return m_report; }

  void runSweep();
  /// Loads sweep cell `index` as the candidate (what a click on the heatmap does).
  void loadCell(int index);

  // The live rule.
  void setRule(const QString& rule);
  void readLiveConfig();
  /// "Allow writes to <url>": nothing is written to Redis unless this is on.
  void setWritesArmed(bool armed);
  bool writesArmed() const;
  /// Opens the diff dialog (refused with a message when writes are not armed).
  void requestApply();
  /// The Apply scope: "" for the whole rule, else the key whose override is set.
  void setOverrideKey(const QString& key);
  /// Names keys as the dashboard does (from its key rows: limitscope_key_info, --key-names):
  /// the worst key of the spend summary and the key of an override say the name.
  void setKeyNames(const std::vector<KeyRow>& rows);
  /// "acme-prod (0123…:gpt-4.1)" for a key with a name, else the key as is.
  QString keyShown(const QString& key) const;
  QString overrideKey() const;
  /// A composite rule's limit the candidate replaces ("" = the whole composite).
  void setCompositeLimit(const QString& name);
  QString compositeLimit() const;
  ApplyDialog* applyDialog() const { return m_applyDialog; }
  void undo();
  /// Stores the candidate as the rule's shadow config (what Apply would make of the whole
  /// rule), on the Redis worker: audited, compare-and-set on the shadow's version as last read
  /// or written; shadowFinished says how it went.
  void putInShadow();
  void clearShadow();
  /// The rule's config as last read or written.
  const std::optional<redis::RuleConfig>& liveConfig() const { return m_session.live(); }

  // For tests and the benchmark.
  TracePtr trace() const { return m_session.trace(); }
  ParamEditor* currentEditor() const { return m_current; }
  ParamEditor* candidateEditor() const { return m_candidate; }
  WhatIfChart* whatIfChart() const { return m_chart; }
  SweepHeatmap* heatmap() const { return m_heatmap; }
  QString statusText() const;
  QString liveStatusText() const;
  QProgressBar* progressBar() const;
  void setSweepAxes(double x_min, double x_max, int x_steps, double y_min, double y_max,
                    int y_steps);
  void setMax429Constraint(std::optional<double> ratio);
  void setMaxKey429Constraint(std::optional<double> ratio);
  void setWellBehaved429Constraint(std::optional<double> ratio);
  /// "Spend of the worst key ≤ $X per minute".
  void setMaxKeySpendConstraint(std::optional<double> dollars_per_minute);
  /// The spend limit: at most `share` more than the current setting admits (0.10 = +10%, the
  /// default); nullopt turns it off.
  void setSpendLimit(std::optional<double> share);
  /// Log-spaced sweep axes (the default) or even steps.
  void setLogGrid(bool log);
  /// Makes the trace's first guess (core/tuner/first_guess.h) the candidate (made on the job
  /// worker when the candidate's algorithm is not the one of the load's guess).
  void useFirstGuess();
  /// The sweep's recommendation in full, beside the heatmap.
  QLabel* adviceLabel() const { return m_advice; }
  /// Tokens assumed for requests the trace gives no count (nullopt: none, they stay unpriced).
  void setTokensPerRequest(std::optional<int> tokens);
  /// Levels and 429s (0) or spend and quota burn (1) in the what-if chart.
  void setChartView(int index);
  /// The spend line under the chart ("" until both settings are computed).
  QString spendText() const;
  void setDark(bool dark);
  /// Demo content for a screenshot: the simulation's scenario, a sweep; emits demoReady.
  void prepareDemo(const QString& scenario, double seconds);

  // What-if scenarios on the trace with the current setting (tuner_tab_scenarios.cpp).
  /// The outage: "10m@14:00" (UTC) or "90s@+5m" (from the trace's start), and the replicas
  /// sharing the limit (each with a 1/N local fallback).
  void setOutage(const QString& outage, int replicas);
  /// "Requests estimated under `under_tokens` tokens go to `model`".
  void setRouting(int under_tokens, const QString& model);
  void runOutageWhatIf();
  void runRoutingWhatIf();
  /// Shows the scenarios page (instead of the sweep's heatmap).
  void showScenarios();
  ResultBox* outageBox() const;
  ResultBox* routingBox() const;

 signals:
  void traceLoaded(const QString& source);
  /// A load failed, was cancelled ("cancelled"), or the operator refused its bad lines.
  void traceLoadFailed(const QString& error);
  /// A load with bad lines waits for the operator (loadReport()).
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
  void startJob(const QString& what);
  void endJob();
  /// The status and traceLoadFailed of a load that failed (`error`) or was cancelled.
  void loadFailed(bool cancelled, const QString& error);
  void onTraceLoaded(const TraceLoadResult& result);
  /// Passes over the whole trace on the job worker, then onTraceStudied.
  void study(TracePtr trace, const QString& source, std::size_t skipped,
             TraceStudy::Purpose purpose);
  void onTraceStudied(const TraceStudy& study);
  void adoptTrace(const TraceStudy& study);
  void requestWhatIf(bool current);
  void onWhatIf(const WhatIfResult& result);
  void onSweep(const SweepOutcome& outcome);
  void applyFirstGuess(const tuner::FirstGuess& guess);
  /// The recommendation beside the heatmap ("" hides it).
  void showAdvice(const QString& text);
  void onConfig(const ConfigResult& result);
  void onConfigWritten(const ConfigResult& result);
  void onShadow(const ShadowResult& result);
  /// The audit entry's who and why and the shadow's compare-and-set version, or nullopt after
  /// showing `refusal` (shadowFinished false).
  std::optional<redis::ChangeInfo> shadowChange(const std::optional<std::string>& refusal);
  void onCandidateChanged();
  void updateLiveButtons();
  void setLiveStatus(const QString& text, bool error);
  /// Refuses Apply or Undo with `why` (applyFinished false).
  void refuse(const QString& why);
  void openApplyDialog(std::optional<tuner::Counts> current,
                       std::optional<tuner::Counts> candidate);
  void onKeyCounts(const KeyCountsResult& result);
  void showLiveSetting();
  RuleTarget target() const;
  int chartColumns() const;
  void updatePricing();
  QString who() const;
  /// "Computing…" in `box` when there is a trace and a valid current setting, else why not
  /// (and scenarioFinished). @return whether to compute
  bool startScenario(ResultBox* box);
  void onScenario(const ScenarioResult& result);

  QString m_redisUrl;    // as given (may hold a password): only ever sent to the worker
  QString m_redisShown;  // redacted, for labels
  QThread m_jobThread, m_whatIfThread, m_redisThread, m_scenarioThread;
  QPointer<TunerWorker> m_jobs, m_whatIf, m_redis, m_scenarios;
  CancelFlag m_cancel;
  PricingPtr m_pricing;  // the default policy's prices and quotas, and the assumed tokens

  tuner::TunerSession m_session;
  KeyNames m_names;
  TraceLoadResult m_waiting;  // a load with bad lines, until the operator chooses
  QPointer<QMessageBox> m_report;
  QPointer<ApplyDialog> m_applyDialog;
  QString m_afterRead;  // why the config is being re-read, kept in front of what it says
  std::int64_t m_shadowVersion = 0;  // the rule's shadow version as last read or written
  bool m_demo = false;

  // the panels
  TracePanel* m_tracePanel = nullptr;
  ParamEditor* m_current = nullptr;
  ParamEditor* m_candidate = nullptr;
  LivePanel* m_livePanel = nullptr;
  SweepPanel* m_sweepPanel = nullptr;
  ScenarioPanel* m_scenarioPanel = nullptr;
  // the results: the what-if chart and its summary; the heatmap and the recommendation
  WhatIfChart* m_chart = nullptr;
  QLabel* m_summary = nullptr;
  QComboBox* m_chartView = nullptr;
  QTabWidget* m_lowerTabs = nullptr;  // the sweep's heatmap, the scenarios
  SweepHeatmap* m_heatmap = nullptr;
  QLabel* m_advice = nullptr;
};

}  // namespace limitscope::ui
