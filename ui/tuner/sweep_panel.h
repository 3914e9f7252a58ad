#pragma once
// The Tuner's sweep panel: the grid (two axes, their steps, log or even spacing), the operator's
// constraints (429 ratios, the worst key's spend, the spend limit over the current setting), and
// the buttons that start from the trace's first guess, centre the grid on the candidate, or run
// the sweep. It only binds: inputs() hands the fields to core (tuner::check_sweep), the tab
// runs the sweep on its worker.

#include <QGroupBox>
#include <optional>

#include "core/tuner/tuner_session.h"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
QT_END_NAMESPACE

namespace limitscope::ui {

class SweepPanel : public QGroupBox {
  Q_OBJECT
 public:
  explicit SweepPanel(QWidget* parent = nullptr);

  /// The grid; `window`: the axes are a window and a limit (else a capacity and a refill).
  void setAxes(const tuner::SweepAxis& x, const tuner::SweepAxis& y, bool window);
  int steps(int axis) const;
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
  void runClicked();
  void firstGuessClicked();
  void aroundCandidateClicked();

 private:
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
