#include "core/gateway/http_types.h"

#include <nlohmann/json.hpp>

namespace limitscope::gateway {

namespace {
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}
}  // namespace

std::optional<std::string_view> find_header(const HttpHeaders& headers, std::string_view name) {
  for (const HttpHeader& h : headers) {
    if (iequals(h.name, name)) return std::string_view(h.value);
  }
  return std::nullopt;
}

GatewayResponse error_response(int status, std::string_view type, std::string_view code,
                               std::string_view message, std::string_view extra_json) {
  nlohmann::json err = {
      {"message", std::string(message)}, {"type", std::string(type)}, {"code", std::string(code)}};
  auto extra = nlohmann::json::parse(extra_json.begin(), extra_json.end(), nullptr, false);
  if (extra.is_object()) err.update(extra);
  GatewayResponse r;
  r.status = status;
  r.body = nlohmann::json{{"error", err}}.dump();
  return r;
}

}  // namespace limitscope::gateway
