#pragma once
// Transport-neutral HTTP pieces the gateway logic produces and consumes, so core/gateway
// needs no HTTP library: the app's server copies them to and from its own types.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace limitscope::gateway {

struct HttpHeader {
  std::string name;
  std::string value;
};
using HttpHeaders = std::vector<HttpHeader>;

/// The value of the first header named `name` (ASCII case-insensitive), or nullopt.
std::optional<std::string_view> find_header(const HttpHeaders& headers, std::string_view name);

struct GatewayResponse {
  int status = 200;
  HttpHeaders headers;
  std::string content_type = "application/json";
  std::string body;
};

/// An OpenAI-style error: {"error": {"message", "type", "code"}} plus `extra` members
/// (a JSON object text, e.g. {"retry_after": 2}) merged into "error". Bytes of `message` that
/// are not UTF-8 become U+FFFD (never an exception).
/// @param type e.g. "invalid_request_error", "authentication_error", "rate_limit_error"
GatewayResponse error_response(int status, std::string_view type, std::string_view code,
                               std::string_view message, std::string_view extra_json = "{}");

}  // namespace limitscope::gateway
