#pragma once
// The source text of one member of a JSON object, for numbers whose text says more than a
// double holds (a time in seconds with nanoseconds: core/common/decimal_time.h).

#include <optional>
#include <string_view>

namespace limitscope {

/// The text of the value of the top-level member `key` of the JSON object `json` (a number's
/// digits as written, a string with its quotes), the last one when the key repeats, as
/// nlohmann::json keeps the last. Meant for text a JSON parser has already accepted; a key
/// spelled with escapes is not matched.
/// @return nullopt when there is no such member
std::optional<std::string_view> json_member_text(std::string_view json, std::string_view key);

}  // namespace limitscope
