#pragma once
// The Tuner's trace panel: where a trace comes from (a file, a recording, the simulation's
// scenario, a rule's decision stream), what is loaded, the tokens assumed per request, and a
// job's progress with Cancel. It only binds: each button emits what the operator asked for,
// and the tab (over core/tuner/tuner_session.h) says what to show.

#include <QGroupBox>
#include <QList>

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
  /// @param stream_tip the decision-stream button's tooltip (where it reads, or why it cannot)
  TracePanel(const QString& stream_tip, QWidget* parent = nullptr);

  void setTraceText(const QString& text);
  void setStatus(const QString& text);
  QString status() const;
  /// A job runs: its buttons (and `extra`, the sweep's) are disabled; progress and Cancel show.
  void startJob(const QString& what);
  /// The job ended. @param stream_enabled whether the decision-stream button works (a connection)
  void endJob(bool stream_enabled);
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
  void tokensPerRequestChanged();

 private:
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
