#pragma once
// The Tuner's sweep panel: the grid (two axes, their steps, log or even spacing), the operator's
// constraints (429 ratios, the worst key's spend, the spend limit over the current setting), and
// the buttons that start from the trace's first guess, centre the grid on the candidate, or run
// the sweep; and the sweep's results, laid out by the tab: the heatmap (a click loads a cell
// as the candidate) and the recommendation in full beside it. It binds: core checks the
// fields (tuner::check_sweep) and says what the outcome means; the sweep runs on the job
// worker (sweep_panel_run.cpp).

#include <QGroupBox>
#include <QPointer>
#include <optional>

#include "core/tuner/tuner_session.h"
#include "ui/tuner/tuner_worker.h"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
QT_END_NAMESPACE

namespace limitscope::ui {

class SweepHeatmap;

class SweepPanel : public QGroupBox {
  Q_OBJECT
 public:
  /// @param session the trace and its facts, the prices, the running job's Cancel flag, the
  ///        candidate (the sweep's base) and the current setting (its spend limit)
  /// @param jobs the worker the sweep runs on
  SweepPanel(tuner::TunerSession& session, TunerWorker* jobs, QWidget* parent = nullptr);

  /// The grid, log-spaced, for the candidate's algorithm (a window and a limit, or a capacity
  /// and a refill).
  void setSweepAxes(double x_min, double x_max, int x_steps, double y_min, double y_max,
                    int y_steps);
  int steps(int axis) const;
  /// Checks the fields (core) and runs the sweep on the job worker, then sweepFinished.
  void runSweep();
  /// The same for the demo screenshot: once done, demoCellChosen with the cell to load.
  void runDemoSweep();
  /// A sweep's outcome (wired by the tab).
  void onSweep(const SweepOutcome& outcome);
  /// Loads sweep cell `index` as the candidate (what a click on the heatmap does).
  void loadCell(int index);
  /// Makes the trace's first guess (core/tuner/first_guess.h) the candidate (firstGuessWanted
  /// when the candidate's algorithm is not the one of the load's guess).
  void useFirstGuess();
  /// The first guess for another algorithm was made (or cancelled) on the job worker.
  void onFirstGuessStudied(bool cancelled);
  /// A new trace: the old sweep goes, the axes are the ones its passes suggest.
  void onTraceLoaded();
  /// The candidate changed: no cell is selected any more.
  void onCandidateChanged();
  SweepHeatmap* heatmap() const { return m_heatmap; }
  /// The sweep's recommendation in full, beside the heatmap.
  QLabel* adviceLabel() const { return m_advice; }
  /// The fields as entered, for the candidate `base`.
  tuner::SweepInputs inputs(const LimitParams& base, int threads) const;
  void setMax429(std::optional<double> ratio);
  void setMaxKey429(std::optional<double> ratio);
  void setWellBehaved429(std::optional<double> ratio);
  void setMaxKeySpend(std::optional<double> dollars_per_minute);
  void setSpendLimit(std::optional<double> share);
  void setLogGrid(bool log);
  /// The line under the panel (a sweep's summary, a refusal, the first guess).
  void setText(const QString& text);
  QString text() const;
  void setGuessTip(const QString& tip);
  QPushButton* runButton() const { return m_sweepButton; }

 signals:
  void sweepFinished(bool ok, const QString& message);
  /// A cell or the first guess is to be the candidate (the tab sets the candidate's editor).
  void candidateChosen(const LimitParams& params);
  /// The first guess for the candidate's algorithm needs a pass over the trace (on the job
  /// worker, by the trace panel); onFirstGuessStudied follows.
  void firstGuessWanted();
  /// The sweep runs on the job worker (the trace panel shows progress and Cancel) or ended,
  /// with the status to show.
  void jobStarted(const QString& what);
  void jobEnded(const QString& status);
  /// The x axis's steps changed (the passes over a trace suggest an axis of as many).
  void xStepsChanged(int steps);
  /// A sweep starts on a loaded trace: its page should be in view.
  void sweepStarted();
  void demoCellChosen(int index);

 private:
  /// The grid, for a candidate of `algorithm` (a window and a limit, or a capacity and a refill).
  void setAxes(const tuner::SweepAxis& x, const tuner::SweepAxis& y, Algorithm algorithm);
  void applyFirstGuess(const tuner::FirstGuess& guess);
  /// The recommendation beside the heatmap ("" hides it).
  void showAdvice(const QString& text);

  tuner::TunerSession& m_session;
  QPointer<TunerWorker> m_jobs;
  SweepHeatmap* m_heatmap = nullptr;
  QLabel* m_advice = nullptr;
  bool m_demo = false;
  QDoubleSpinBox* m_axis[4] = {};  // x min, x max, y min, y max
  QSpinBox* m_steps[2] = {};
  QLabel* m_axisLabel[2] = {};
  QCheckBox* m_useMax429 = nullptr;
  QDoubleSpinBox* m_max429 = nullptr;
  QCheckBox* m_useKey429 = nullptr;
  QDoubleSpinBox* m_key429 = nullptr;
  QCheckBox* m_useGood429 = nullptr;
  QDoubleSpinBox* m_good429 = nullptr;
  QDoubleSpinBox* m_goodFactor = nullptr;
  QCheckBox* m_useKeySpend = nullptr;
  QDoubleSpinBox* m_keySpend = nullptr;
  QCheckBox* m_useSpendLimit = nullptr;
  QDoubleSpinBox* m_spendIncrease = nullptr;
  QCheckBox* m_logGrid = nullptr;
  QPushButton* m_guessButton = nullptr;
  QPushButton* m_sweepButton = nullptr;
  QLabel* m_sweepLabel = nullptr;
};

}  // namespace limitscope::ui
