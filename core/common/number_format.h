#pragma once
// Plain decimal text for figures the tools print in English: fixed decimals, thousands grouped.

#include <string>

namespace limitscope {

/// "-12345.6" -> "-12,345.6": ',' between each three digits of the integer part.
std::string grouped_digits(const std::string& plain);

/// `v` with exactly `decimals` decimals (0 to 17), not grouped: (12.345, 1) -> "12.3".
std::string fixed_text(double v, int decimals);

/// `v` to `digits` significant digits (1 to 17), %g style: 0.25 -> "0.25",
/// 1234567 -> "1.23457e+06" (6 digits).
std::string significant_text(double v, int digits = 6);

}  // namespace limitscope
