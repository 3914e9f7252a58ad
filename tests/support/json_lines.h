#pragma once
// Newline-delimited JSON (a recording, a JSON-lines log) read back in tests.

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace limitscope::test {

/// Each line of `text` parsed as one JSON document, in order (a bad line throws).
inline std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

/// The lines of `text` whose "type" is `type` (a recording's "key" lines, ...), in order.
inline std::vector<nlohmann::json> json_lines_of_type(const std::string& text,
                                                      const std::string& type) {
  std::vector<nlohmann::json> out;
  for (nlohmann::json& j : json_lines(text)) {
    if (j["type"] == type) out.push_back(std::move(j));
  }
  return out;
}

}  // namespace limitscope::test
