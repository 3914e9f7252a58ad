#pragma once
// The HTTP face of limitscope-gateway on cpp-httplib: routes (the three admitted POST
// endpoints, GET /v1/models, /metrics, /healthz, /readyz), body size limit, JSON error
// bodies for the library's own errors (413, 404, 405), the mock upstream, and forwarding.
// Clients connect to the ConnectionFront (connection_front.h), which reads requests with
// deadlines and passes complete ones to the cpp-httplib server on a loopback port.
// The request logic itself is core/gateway/chat_gateway.h.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "app/gateway/connection_front.h"
#include "app/gateway/upstream_forwarder.h"
#include "core/common/expected.h"
#include "core/gateway/chat_gateway.h"

namespace limitscope::gateway_app {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0 = any free port
  std::size_t max_body_bytes = 1 << 20;
  std::size_t threads = 128;  // requests in progress at once (idle connections hold none)
  /// Connections the kernel queues for accept (the library's own 5 drops connects under a
  /// burst; Linux caps it at net.core.somaxconn).
  int listen_backlog = 1024;
  /// Deadlines of the connection front (connection_front.h): a request's head, its body, an
  /// idle keep-alive connection; and the most connections open at once.
  std::chrono::seconds header_timeout{10};
  std::chrono::seconds body_timeout{30};
  std::chrono::seconds idle_timeout{60};
  std::size_t max_connections = 10'000;
  /// Answer from the built-in mock upstream after this latency; else forward to `upstream`.
  bool mock_upstream = false;
  std::chrono::nanoseconds mock_latency{0};
  std::optional<UpstreamTarget> upstream;
  ForwardOptions forward;
  /// Where the server logs what clients never see (an unexpected exception's text).
  std::function<void(const std::string&)> log;
};

class GatewayServer {
 public:
  GatewayServer(gateway::ChatGateway& gateway, ServerOptions options);
  /// Binds the listening socket (and the request server's loopback one behind it).
  /// @return the bound port, or an error naming the address
  Expected<int> bind();
  /// Serves until stop(); returns false when the server could not run.
  bool run();
  /// Stops accepting and returns from run(); safe from another thread.
  void stop();
  /// Counts a successful policy reload (shown by /readyz as policy_generation).
  void note_policy_reload() { policy_generation_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void handle_api(gateway::Endpoint endpoint, const httplib::Request& req, httplib::Response& res);
  void answer_from_mock(gateway::ForwardTicket ticket, httplib::Response& res);

  gateway::ChatGateway& gateway_;
  ServerOptions options_;
  httplib::Server server_;  // the request server, on a loopback port behind front_
  std::unique_ptr<ConnectionFront> front_;
  std::atomic<std::uint64_t> policy_generation_{1};  // 1 = the policy read at start
};

}  // namespace limitscope::gateway_app
