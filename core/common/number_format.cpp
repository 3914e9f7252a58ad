#include "core/common/number_format.h"

#include <algorithm>
#include <cstdio>

namespace limitscope {

std::string grouped_digits(const std::string& plain) {
  if (plain.empty()) return plain;
  const std::size_t start = plain[0] == '-' ? 1 : 0;
  const std::size_t dot = plain.find('.');
  const std::size_t end = dot == std::string::npos ? plain.size() : dot;
  std::string out = plain.substr(0, start);
  for (std::size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) out += ',';
    out += plain[i];
  }
  return out + plain.substr(end);
}

std::string fixed_text(double v, int decimals) {
  char buf[400];  // DBL_MAX in %f is 309 digits
  std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 17), v);
  return buf;
}

std::string significant_text(double v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", std::clamp(digits, 1, 17), v);
  return buf;
}

}  // namespace limitscope
