#include "core/common/json_member_text.h"

namespace limitscope {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// The end of the string starting at s[i] == '"' (one past its closing quote).
std::size_t string_end(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return s.size();
}

// The end of the value starting at s[i]: a string, an object or array (balanced), or a scalar.
std::size_t value_end(std::string_view s, std::size_t i) {
  if (i >= s.size()) return s.size();
  if (s[i] == '"') return string_end(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = string_end(s, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return s.size();
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_space(s[i])) ++i;
  return i;
}

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

}  // namespace

std::optional<std::string_view> json_member_text(std::string_view json, std::string_view key) {
  std::size_t i = skip_space(json, 0);
  if (i >= json.size() || json[i] != '{') return std::nullopt;
  i = skip_space(json, i + 1);
  std::optional<std::string_view> found;
  while (i < json.size() && json[i] == '"') {
    const std::size_t key_end = string_end(json, i);
    const std::string_view name = json.substr(i + 1, key_end - i - 2);
    i = skip_space(json, key_end);
    if (i >= json.size() || json[i] != ':') return found;
    i = skip_space(json, i + 1);
    const std::size_t end = value_end(json, i);
    if (name == key) found = json.substr(i, end - i);
    i = skip_space(json, end);
    if (i >= json.size() || json[i] != ',') break;
    i = skip_space(json, i + 1);
  }
  return found;
}

}  // namespace limitscope
