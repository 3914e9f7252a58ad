#pragma once
// One limiter setting as an operator edits it: the algorithm, and its two parameters (capacity
// and refill per second, or window in seconds and limit) each as a slider (logarithmic, for
// coarse moves over decades) beside a spin box (exact values). Values the core would refuse,
// or that can never admit the trace's largest request, are shown under the field in words;
// the editor keeps them (it never clamps silently) and reports itself invalid.

#include <QGroupBox>
#include <vector>

#include "core/limiter/limit_params.h"
#include "core/tuner/candidate.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
QT_END_NAMESPACE

namespace limitscope::ui {

class ParamEditor : public QGroupBox {
  Q_OBJECT
 public:
  explicit ParamEditor(const QString& title, QWidget* parent = nullptr);

  /// The setting as entered (possibly invalid: see problems()).
  LimitParams params() const;
  /// Shows a setting (no changed() signal).
  void setParams(const LimitParams& params);
  /// The trace's largest cost: capacities and limits below it are refused.
  void setLargestCost(double cost);
  std::vector<tuner::FieldProblem> problems() const;
  bool isValid() const { return problems().empty(); }
  /// Read-only: the live setting is shown, not edited.
  void setEditable(bool editable);

  // For tests and the benchmark.
  QDoubleSpinBox* firstSpin() const { return m_spin[0]; }
  QDoubleSpinBox* secondSpin() const { return m_spin[1]; }
  QSlider* firstSlider() const { return m_slider[0]; }
  QSlider* secondSlider() const { return m_slider[1]; }
  QComboBox* algorithmBox() const { return m_algorithm; }
  /// The refill (drain) rate's unit: per second, minute, hour or day. A rate is shown in its
  /// own period when it is one of these, so "100/min" or "1/h" is edited as written, never
  /// rounded to a per-second value; changing the unit keeps the number.
  QComboBox* rateUnitBox() const { return m_rateUnit; }
  /// The message shown under field 0 or 1 (empty when it is fine).
  QString problemText(int field) const;

 signals:
  void changed();

 private:
  void relabel();
  void onSpin(int field);
  void onSlider(int field);
  void showProblems();
  Algorithm algorithm() const;

  QComboBox* m_algorithm = nullptr;
  QComboBox* m_rateUnit = nullptr;
  int m_unitShown = 0;  // the unit the rate spin's value is in (index into the unit table)
  QLabel* m_name[2] = {};
  QSlider* m_slider[2] = {};
  QDoubleSpinBox* m_spin[2] = {};
  QLabel* m_problem[2] = {};
  QLabel* m_note = nullptr;
  double m_largestCost = 0;
  bool m_quiet = false;
};

}  // namespace limitscope::ui
