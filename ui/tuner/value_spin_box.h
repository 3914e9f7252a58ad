#pragma once
// A number field that shows a value at its own scale: the decimals it has, up to decimals(),
// and none trailing ("480", "0.25", "0.0005", "12.5"), where a fixed three decimals showed
// "480.000" and rounded a refill of 0.0005 per second to 0.001.

#include <QDoubleSpinBox>

namespace limitscope::ui {

class ValueSpinBox : public QDoubleSpinBox {
  Q_OBJECT
 public:
  /// @param decimals the most decimals kept (the value is rounded to them, as QDoubleSpinBox does)
  explicit ValueSpinBox(int decimals = 6, QWidget* parent = nullptr);

  QString textFromValue(double value) const override;
};

}  // namespace limitscope::ui
