#pragma once
// Amounts as the dashboard shows them: "1,000,000", "59.5" — grouped in thousands, never in
// exponent form (a capacity of 1e+06 reads as a typo in an incident).

#include <QLocale>
#include <QString>
#include <string>

#include "core/dashboard/key_details.h"

namespace limitscope::ui {

/// The user's locale with thousands grouped; English where the process runs in the C locale
/// (which Qt prints without grouping).
inline QLocale amounts_locale() {
  QLocale l;
  if (l.language() == QLocale::C) l = QLocale(QLocale::English, QLocale::UnitedStates);
  l.setNumberOptions(l.numberOptions() & ~QLocale::OmitGroupSeparator);
  return l;
}

/// `v` with `decimals` decimals, grouped: format_amount(1e6) == "1,000,000".
inline QString format_amount(double v, int decimals = 0) {
  return amounts_locale().toString(v, 'f', decimals);
}

/// format_amount() as core's AmountText (core/dashboard/key_details.h).
inline std::string amount_text(double v, int decimals) {
  return format_amount(v, decimals).toStdString();
}

/// A capacity or limit: whole numbers without decimals, fractions with up to three.
inline QString format_capacity(double v) {
  return QString::fromStdString(capacity_text(v, amount_text));
}

}  // namespace limitscope::ui
