#pragma once
// The one way the CLI prints JSON: bytes that are not UTF-8 (a key name from Redis, a label
// from a remote /metrics, a path, a trace's field) are written as U+FFFD instead of making
// nlohmann::json throw, which aborted --json output (SIGABRT) after the work was done.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace limitscope::cli {

/// j as JSON text (compact, or indented by `indent` spaces), invalid UTF-8 replaced.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The value of `v`, or null when it has none.
template <class T>
nlohmann::json json_or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// `text` as a JSON string, or null when it is empty (no name, no error).
inline nlohmann::json json_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace limitscope::cli
