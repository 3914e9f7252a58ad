#include "ui/tuner/value_spin_box.h"

namespace limitscope::ui {

ValueSpinBox::ValueSpinBox(int decimals, QWidget* parent) : QDoubleSpinBox(parent) {
  setDecimals(decimals);
}

QString ValueSpinBox::textFromValue(double value) const {
  QString text = QDoubleSpinBox::textFromValue(value);
  const QString point = locale().decimalPoint();
  if (!text.contains(point)) return text;
  while (text.endsWith(QLatin1Char('0'))) text.chop(1);
  if (text.endsWith(point)) text.chop(point.size());
  return text;
}

}  // namespace limitscope::ui
