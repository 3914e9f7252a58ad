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
  // Replace, not throw: a message may quote what a client sent (a parser's "last read: ..."),
  // which need not be UTF-8; an exception here would turn a 400 into a 500.
  r.body =
      nlohmann::json{{"error", err}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

}  // namespace limitscope::gateway
