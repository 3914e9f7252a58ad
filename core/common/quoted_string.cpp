#include "core/common/quoted_string.h"

#include <array>
#include <cstdio>

namespace limitscope {

void append_quoted(std::string& out, std::string_view s, ControlEscape control) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (control == ControlEscape::go_hex && (c < 0x20 || c == 0x7f)) {
          std::array<char, 8> buf{};
          std::snprintf(buf.data(), buf.size(), "\\x%02x", static_cast<unsigned>(c));
          out += buf.data();
        } else if (control == ControlEscape::json_unicode && c < 0x20) {
          std::array<char, 8> buf{};
          std::snprintf(buf.data(), buf.size(), "\\u%04x", static_cast<unsigned>(c));
          out += buf.data();
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

}  // namespace limitscope
