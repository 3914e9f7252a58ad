#include "core/common/result_table.h"

#include <cmath>
#include <cstdio>

namespace limitscope {

std::string format_number(double v, int decimals) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string out = buf;
  // -0.04 at one decimal reads "0.0", not "-0.0".
  if (out[0] == '-' && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

std::string format_dollars(double v) {
  const std::string digits = format_number(std::abs(v), std::abs(v) >= 100 ? 0 : 2);
  return (v < 0 ? "-$" : "$") + digits;
}

std::string format_seconds(double s) {
  if (std::isnan(s)) return "-";
  const double a = std::abs(s);
  if (a < 1) return format_number(s * 1e3, 1) + " ms";
  return format_number(s, a < 10 ? 2 : 0) + " s";
}

std::string format_signed(long long v) {
  return (v > 0 ? "+" : "") + std::to_string(v);
}

}  // namespace limitscope
