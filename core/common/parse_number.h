#pragma once
// Numbers read from text that must be nothing but the number (a Redis reply, a stream field).

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

namespace limitscope {

/// The finite double `s` spells in full (std::from_chars' general format: "1.5", "-2e3");
/// nullopt for empty text, trailing characters, NaN or ±Inf.
inline std::optional<double> parse_finite(std::string_view s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace limitscope
