#pragma once
// Money as the Tuner shows it: "$0.42", "$12.40", "$1,234" (whole dollars from $100).

#include <QString>

namespace limitscope::ui {

inline QString format_dollars(double v) {
  return QStringLiteral("$%L1").arg(v, 0, 'f', v >= 100 ? 0 : 2);
}

}  // namespace limitscope::ui
