#pragma once
// Forwards an admitted request to the real upstream (the same endpoint path under the
// target's prefix) with cpp-httplib and passes the answer through as it arrives (server-sent
// events chunk by chunk), reading its `usage` on the way so the gateway can settle the token
// estimate.

#include <httplib.h>

#include <chrono>
#include <memory>
#include <string>

#include "core/common/expected.h"
#include "core/gateway/chat_gateway.h"

namespace limitscope::gateway_app {

struct UpstreamTarget {
  std::string scheme_host_port;  // "http://127.0.0.1:9000", "https://api.openai.com"
  std::string path_prefix;       // "" or "/proxy" (prepended to /v1/chat/completions etc.)
};

/// Parses "http[s]://host[:port][/prefix]". @return the target or why not (names the URL)
Expected<UpstreamTarget> parse_upstream_url(const std::string& url);

struct ForwardOptions {
  std::chrono::seconds connect_timeout{5};
  std::chrono::seconds read_timeout{60};  // between bytes of the upstream's answer
  /// When set, sent upstream as "Authorization: Bearer <key>" instead of the client's header
  /// (the gateway then holds the provider key; clients hold gateway keys).
  std::string upstream_api_key;
};

/// Answers `res` from the upstream: status, content type, body (streamed), plus the ticket's
/// rate-limit headers; 502/504 JSON when the upstream fails. Calls gateway.complete() exactly
/// once, when the answer is over.
void forward_to_upstream(gateway::ChatGateway& gateway, gateway::ForwardTicket ticket,
                         const UpstreamTarget& target, const ForwardOptions& options,
                         const std::string& client_authorization, httplib::Response& res);

}  // namespace limitscope::gateway_app
