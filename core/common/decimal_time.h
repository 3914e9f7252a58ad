#pragma once
// Exact conversion of a decimal number of seconds ("1700049900.003861123", "0.001953125",
// "17e8") to integer nanoseconds. Going through a double loses the nanoseconds of an epoch
// time (a double of 1.7e9 s is spaced 238 ns apart), so traces and recordings convert the
// number's text instead.

#include <cstdint>
#include <optional>
#include <string_view>

namespace limitscope {

/// The nanoseconds of a decimal number of seconds: an optional '-', digits with an optional
/// '.' and fraction, an optional exponent (e/E, optional sign, digits); the JSON number
/// grammar, plus a leading '+' and leading zeros. Digits past the nanosecond round to the
/// nearest (halves away from zero).
/// @return nullopt when the text is not such a number or its nanoseconds overflow int64
std::optional<std::int64_t> decimal_seconds_to_ns(std::string_view text);

}  // namespace limitscope
