#pragma once
// One limiter setting as an operator edits it: the algorithm, and its two parameters (capacity
// and refill per period, or window in seconds and limit) each as a slider (logarithmic, for
// coarse moves over decades) beside a spin box (exact values). It binds to a
// tuner::SettingForm (core/tuner/setting_form.h; the tab's are the session's): the form holds
// the setting, the trace's largest cost, the field names and the problems shown under the
// fields in words; the editor shows it and writes back what the operator changes. Invalid
// values are kept (never clamped silently) and the form reports itself invalid.

#include <QGroupBox>
#include <vector>

#include "core/limiter/limit_params.h"
#include "core/tuner/setting_form.h"

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
  /// @param form the setting this editor shows and edits; it must outlive the editor
  ParamEditor(const QString& title, tuner::SettingForm& form, QWidget* parent = nullptr);

  /// The setting as entered (possibly invalid: see problems()).
  LimitParams params() const { return m_form.params(); }
  /// Shows a setting (no changed() signal).
  void setParams(const LimitParams& params);
  /// Shows the form again after someone else changed it (a new trace's largest cost).
  void showForm();
  std::vector<tuner::FieldProblem> problems() const { return m_form.problems(); }
  bool isValid() const { return m_form.valid(); }
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
  /// The form's labels, note and problems (not its numbers).
  void showLabels();
  /// A spin box's value into the form, then its slider and problems follow (changed()).
  void onSpin(int field);
  void onSlider(int field);
  /// The spin box shows `value` (to its six decimals), which the form then holds as shown.
  void showValue(int field, double value);

  tuner::SettingForm& m_form;
  QComboBox* m_algorithm = nullptr;
  QComboBox* m_rateUnit = nullptr;
  QLabel* m_name[2] = {};
  QSlider* m_slider[2] = {};
  QDoubleSpinBox* m_spin[2] = {};
  QLabel* m_problem[2] = {};
  QLabel* m_note = nullptr;
  bool m_quiet = false;  // while showing the form: no changed()
};

}  // namespace limitscope::ui
