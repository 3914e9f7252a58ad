#include "core/tuner/number_text.h"

#include <algorithm>
#include <cmath>

#include "core/common/number_format.h"

namespace limitscope::tuner {

double round_significant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int shift = digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v))));
  // Dividing by an exact power of ten gives the double nearest the decimal (26.8, not
  // 26.800000000000001 as multiplying by 0.1 does).
  const double scale = std::pow(10.0, std::abs(shift));
  return shift >= 0 ? std::round(v * scale) / scale : std::round(v / scale) * scale;
}

std::string number_text(double v, int digits) {
  if (!std::isfinite(v)) return v > 0 ? "∞" : (v < 0 ? "-∞" : "n/a");
  if (v == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::clamp(digits - 1 - magnitude, 0, 12);
  std::string s = fixed_text(v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  // Beyond `digits` significant digits an integer keeps its digits (9183 stays 9,183 only when
  // digits >= 4): round it to the significant ones.
  if (decimals == 0 && magnitude + 1 > digits) s = fixed_text(round_significant(v, digits), 0);
  return grouped_digits(s);
}

std::string percent_text(double ratio) {
  const double pct = ratio * 100;
  if (pct != 0 && std::fabs(pct) < 0.01) return pct > 0 ? "<0.01%" : ">-0.01%";
  // Two decimals below 10% (0.12%), else 3 significant digits, grouped.
  if (std::fabs(pct) < 10) {
    std::string s = fixed_text(pct, 2);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s + "%";
  }
  return number_text(std::round(pct),
                     std::max(3, static_cast<int>(std::floor(std::log10(std::fabs(pct)))) + 1)) +
         "%";
}

std::string percent_change_text(double ratio) {
  const std::string p = percent_text(ratio);
  return ratio >= 0 && p[0] != '<' ? "+" + p : p;
}

std::string dollars_text(double usd) {
  if (std::fabs(usd) >= 100) return "$" + number_text(std::round(usd), 15);  // whole dollars
  if (std::fabs(usd) >= 1) return "$" + fixed_text(usd, 2);
  return "$" + number_text(usd, 2);
}

std::string dollars_cents_text(double usd) {
  if (std::fabs(usd) >= 100) return "$" + number_text(std::round(usd), 15);
  return "$" + fixed_text(usd, 2);
}

}  // namespace limitscope::tuner
