#pragma once
// Numbers as the Tuner prints them for an operator: 3 significant digits, thousands grouped,
// no trailing zeros ("918", "9,180", "0.523", "1.5"), so a recommendation reads as a value to
// type, never as 918.367.

#include <string>

#include "core/common/number_format.h"

namespace limitscope::tuner {

/// `v` rounded to `digits` significant digits (0 stays 0), as the nearest double to the decimal:
/// 26.83 -> 26.8, 9183.47 -> 9180.
double round_significant(double v, int digits);

/// `v` with `digits` significant digits (at least the integer part), thousands separated by ','.
std::string number_text(double v, int digits = 3);

/// A share as a signed percentage with sensible precision: "+10%", "-3.5%", "+4,606%".
std::string percent_change_text(double ratio);

/// A ratio as a percentage: 0.0012 -> "0.12%", 46.06 -> "4,606%".
std::string percent_text(double ratio);

/// Dollars: "$0.0042", "$12.30", whole dollars from $100 ("$491", "$1,234").
std::string dollars_text(double usd);

/// Dollars to the cent, as the what-if's spend line shows them: "$0.42", "$12.40", whole
/// dollars from $100 ("$1,234").
std::string dollars_cents_text(double usd);

}  // namespace limitscope::tuner
