// libFuzzer target for exact time text (core/common/decimal_time, json_member_text): the
// nanoseconds of a decimal number of seconds agree with its double to the double's precision,
// every number a double reads (finite, within ±9e9 s) has them, and a member's text is a piece
// of the object's text.
// seed-corpus: tests/data/fuzz/decimal_time
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/decimal_time.h"
#include "core/common/json_member_text.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto ns = limitscope::decimal_seconds_to_ns(text);
  // from_chars reads no leading '+'; otherwise it and the exact path read the same grammar
  // (plus inf/nan and overflowing exponents, which are not finite or not in range).
  const bool plus = !text.empty() && text[0] == '+';
  if (plus && text.size() > 1 && (text[1] == '+' || text[1] == '-')) return 0;  // "+-1": no number
  const std::string_view plain = plus ? std::string_view(text).substr(1) : text;
  double v = 0;
  const auto [end, ec] = std::from_chars(plain.data(), plain.data() + plain.size(), v);
  const bool whole = ec == std::errc{} && end == plain.data() + plain.size();
  if (whole && std::isfinite(v) && std::abs(v) < 9e9 &&
      plain.find_first_of("iInN") == std::string_view::npos) {
    check(ns.has_value());
    check(std::abs(static_cast<double>(*ns) - v * 1e9) <= 1 + std::abs(v) * 1e9 * 1e-15);
  }

  if (const auto member = limitscope::json_member_text(text, "t")) {
    check(member->data() >= text.data() &&
          member->data() + member->size() <= text.data() + text.size());
  }
  return 0;
}
