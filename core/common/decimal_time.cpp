#include "core/common/decimal_time.h"

#include <limits>

namespace limitscope {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

constexpr std::int64_t kPow10[19] = {1,
                                     10,
                                     100,
                                     1'000,
                                     10'000,
                                     100'000,
                                     1'000'000,
                                     10'000'000,
                                     100'000'000,
                                     1'000'000'000,
                                     10'000'000'000,
                                     100'000'000'000,
                                     1'000'000'000'000,
                                     10'000'000'000'000,
                                     100'000'000'000'000,
                                     1'000'000'000'000'000,
                                     10'000'000'000'000'000,
                                     100'000'000'000'000'000,
                                     1'000'000'000'000'000'000};

}  // namespace

std::optional<std::int64_t> decimal_seconds_to_ns(std::string_view s) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  // Mantissa: the digits, and where the decimal point sits among them.
  const std::size_t int_begin = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  const std::size_t int_end = i;
  std::size_t frac_begin = i, frac_end = i;
  if (i < s.size() && s[i] == '.') {
    frac_begin = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    frac_end = i;
  }
  if (int_end == int_begin && frac_end == frac_begin) return std::nullopt;
  std::int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) exp_negative = s[i++] == '-';
    const std::size_t exp_begin = i;
    while (i < s.size() && is_digit(s[i])) {
      // Any exponent past ±10^6 already puts every digit out of range or below the rounding one.
      if (exponent < 1'000'000) exponent = exponent * 10 + (s[i] - '0');
      ++i;
    }
    if (i == exp_begin) return std::nullopt;
    if (exp_negative) exponent = -exponent;
  }
  if (i != s.size()) return std::nullopt;

  // Digit k (0 = first integer digit) stands for 10^(place) seconds = 10^(place + 9) ns.
  const auto int_digits = static_cast<std::int64_t>(int_end - int_begin);
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t ns = 0;
  bool round_up = false;
  const auto digit_at = [&](std::size_t k) {
    const std::size_t n_int = int_end - int_begin;
    return k < n_int ? s[int_begin + k] : s[frac_begin + (k - n_int)];
  };
  const std::size_t count = (int_end - int_begin) + (frac_end - frac_begin);
  for (std::size_t k = 0; k < count; ++k) {
    const int d = digit_at(k) - '0';
    const std::int64_t ns_place = int_digits - 1 - static_cast<std::int64_t>(k) + exponent + 9;
    if (ns_place < 0) {
      // The first digit below the nanosecond decides the rounding; the rest cannot change it.
      round_up = ns_place == -1 && d >= 5;
      break;
    }
    if (d == 0) continue;
    // d · 10^ns_place, added without overflow.
    if (ns_place > 18) return std::nullopt;
    const std::int64_t term = d * kPow10[ns_place];  // 9·10^18 < 2^63
    if (ns > kMax - term) return std::nullopt;
    ns += term;
  }
  if (round_up) {
    if (ns == kMax) return std::nullopt;
    ++ns;
  }
  return negative ? -ns : ns;
}

}  // namespace limitscope
