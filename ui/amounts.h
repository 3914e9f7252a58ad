#pragma once
// Amounts as the dashboard shows them: "1,000,000", "59.5" — grouped in thousands, never in
// exponent form (a capacity of 1e+06 reads as a typo in an incident).

#include <QLocale>
#include <QString>

#include <cmath>

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

/// A capacity or limit: whole numbers without decimals, fractions with up to three.
inline QString format_capacity(double v) {
  if (v == std::floor(v)) return format_amount(v, 0);
  QString s = format_amount(v, 3);
  while (s.endsWith(QLatin1Char('0'))) s.chop(1);
  return s;
}

}  // namespace limitscope::ui
