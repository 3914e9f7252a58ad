#pragma once
// The HTTP Date header (RFC 9110 section 5.6.7, IMF-fixdate: "Tue, 01 Dec 2026 10:17:09 GMT"),
// written by the gateway on every answer and read by `audit clock` as a second opinion of a
// gateway's wall clock (whole seconds only).

#include <string>
#include <string_view>

#include "core/common/clock.h"
#include "core/common/expected.h"

namespace limitscope {

/// IMF-fixdate of `wall` (epoch nanoseconds), truncated to the second.
std::string format_http_date(Nanos wall);
/// Parses an IMF-fixdate; anything else is refused with the reason.
/// @return epoch nanoseconds (whole seconds)
Expected<Nanos> parse_http_date(std::string_view text);

}  // namespace limitscope
