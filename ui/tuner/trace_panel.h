#pragma once
// The Tuner's trace panel: where a trace comes from (a file, a recording, the simulation's
// scenario, a rule's decision stream), what is loaded, the tokens assumed per request, and a
// job's progress with Cancel. It binds its buttons to the loads on the job (or Redis) worker,
// asks the operator about bad lines, runs the passes over a loaded trace on the job worker
// (tuner::study_trace, never the GUI thread) and hands the result to the session
// (trace_panel_load.cpp); the tab wires what follows a load to the other panels.

#include <QGroupBox>
#include <QList>
#include <QMessageBox>
#include <QPointer>
#include <utility>

#include "core/tuner/tuner_session.h"
#include "ui/tuner/tuner_worker.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
QT_END_NAMESPACE

namespace limitscope::ui {

class ValueSpinBox;

class TracePanel : public QGroupBox {
  Q_OBJECT
 public:
  /// @param session the trace, the connection, the prices, the running job's Cancel flag and
  ///        the candidate, whose algorithm the passes over a trace are for
  /// @param jobs the worker of loads and passes; `redis` reads a decision stream
  TracePanel(tuner::TunerSession& session, TunerWorker* jobs, TunerWorker* redis,
             QWidget* parent = nullptr);
  /// The steps of the sweep's x axis, which the passes over a trace suggest axes for (the tab
  /// follows the sweep panel's field).
  void setStudySteps(int steps) { m_studySteps = steps; }

  // Trace sources (each runs on a worker; progress and Cancel show meanwhile).
  void loadTraceFile(const QString& path);
  void loadRecording(const QString& path);
  void loadScenario(const QString& name, double seconds, quint64 seed = 1);
  /// A rule's decision stream (`target.rule`, trimmed), on the Redis worker.
  void loadDecisionStream(RuleTarget target);
  /// Uses a trace (tests, the benchmark): its passes run on the job worker, then traceLoaded.
  void setTrace(TracePtr trace, const QString& source);
  /// Cancels the running load, pass or sweep.
  void cancelWork();
  /// The report of a load with bad lines, while it waits for the operator's choice.
  QMessageBox* loadReport() const { return m_report; }
  /// Passes over the whole trace on the job worker (for the candidate's algorithm), then
  /// traceLoaded (purpose adopt) or firstGuessStudied (purpose guess).
  void study(TracePtr trace, const QString& source, std::size_t skipped,
             TraceStudy::Purpose purpose);
  /// A worker's replies (wired by the tab).
  void onTraceLoaded(const TraceLoadResult& result);
  void onTraceStudied(const TraceStudy& study);

  void setTraceText(const QString& text);
  void setStatus(const QString& text);
  QString status() const;
  /// A job of this panel starts on a worker with a fresh Cancel flag (the session's), then
  /// showJob.
  void startJob(const QString& what);
  /// A job (this panel's or the sweep's) runs: its buttons (and the sweep's) are disabled;
  /// progress and Cancel show; jobStarted.
  void showJob(const QString& what);
  /// The job ended: the buttons work again (the decision stream's with a connection).
  void endJob();
  /// The same, with the status it ended with.
  void endJob(const QString& status);
  void setProgress(double fraction, const QString& what);
  QProgressBar* progressBar() const { return m_progress; }
  /// Buttons disabled while a job runs, besides the panel's own.
  void addJobButton(QPushButton* button) { m_jobButtons.append(button); }
  void setStreamEnabled(bool enabled);
  /// The decision stream's rule, when none is given yet.
  void suggestStreamRule(const QString& rule);
  /// 0: none (requests without a token count stay unpriced).
  int tokensPerRequest() const;
  void setTokensPerRequest(int tokens);

 signals:
  void fileChosen(const QString& path);
  void recordingChosen(const QString& path);
  void simulateClicked(const QString& scenario, double seconds);
  void streamClicked(const QString& rule);
  void cancelClicked();
  /// The tokens per request changed, and with them the session's prices.
  void tokensPerRequestChanged();
  /// A trace is the session's (after the passes over it).
  void traceLoaded(const QString& source);
  /// A load failed, was cancelled ("cancelled"), or the operator refused its bad lines.
  void traceLoadFailed(const QString& error);
  /// A load with bad lines waits for the operator (loadReport()).
  void loadReportShown();
  /// A job on the worker starts ("Loading", "Reading the trace", ...); its Cancel flag is fresh.
  void jobStarted(const QString& what);
  /// The first guess for another algorithm is in the session's facts (or was cancelled).
  void firstGuessStudied(bool cancelled);

 private:
  /// The status and traceLoadFailed of a load that failed (`error`) or was cancelled.
  void loadFailed(bool cancelled, const QString& error);
  void adoptTrace(const TraceStudy& study);

  tuner::TunerSession& m_session;
  QPointer<TunerWorker> m_jobs, m_redis;
  int m_studySteps = 1;
  std::pair<LoadedTrace, QString> m_waiting;  // a load with bad lines and its source, until
                                              // the operator chooses
  QPointer<QMessageBox> m_report;
  QLabel* m_traceLabel = nullptr;
  QComboBox* m_scenario = nullptr;
  ValueSpinBox* m_scenarioSeconds = nullptr;
  QLineEdit* m_streamRule = nullptr;
  QPushButton* m_streamButton = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QLabel* m_status = nullptr;
  QSpinBox* m_tokensPerRequest = nullptr;
  QList<QPushButton*> m_jobButtons;
};

}  // namespace limitscope::ui
