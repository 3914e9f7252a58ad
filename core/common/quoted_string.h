#pragma once
// Double-quoted string literals as Go's %q and JSON spell them: one escaper for both, which
// differ only in how a control byte is written.

#include <string>
#include <string_view>

namespace limitscope {

/// How a control byte other than \n \r \t is written.
enum class ControlEscape {
  go_hex,        // "\x01" and DEL as "\x7f" (Go's strconv.Quote for ASCII)
  json_unicode,  // "\u0001"; DEL stays as it is (JSON does not escape it)
};

/// Appends `s` to `out` in double quotes, with `"` `\` newline, carriage return and tab
/// backslash-escaped and other control bytes as `control` says. Other bytes (UTF-8 included)
/// are copied as they are.
void append_quoted(std::string& out, std::string_view s, ControlEscape control);

}  // namespace limitscope
