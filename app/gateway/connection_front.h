#pragma once
// The gateway's front door: one event-loop thread (epoll) accepts connections and reads each
// request — head and body, with a deadline for each — holding no worker; only a complete
// request takes a worker, which passes it to the request server behind (cpp-httplib on a
// loopback port, "Connection: close") and relays the answer as it arrives (streams included).
// Then the connection goes back to the loop: idle keep-alive connections, slow clients and
// pipelined requests cost a buffer, never a thread. This is what cpp-httplib 0.11's thread per
// connection could not do: ~150 clients dripping a byte every 3 s held all its 128 workers.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "core/common/expected.h"

namespace limitscope::gateway_app {

struct FrontOptions {
  std::string host = "127.0.0.1";
  int port = 0;                          // 0 = any free port
  int backend_port = 0;                  // the request server on 127.0.0.1
  std::size_t workers = 128;             // requests in progress at once
  std::size_t max_connections = 10'000;  // open at once; more are closed at accept
  int listen_backlog = 1024;
  std::chrono::seconds header_timeout{10};  // first byte of a request to the end of its head
  std::chrono::seconds body_timeout{30};    // end of the head to the end of the body
  std::chrono::seconds idle_timeout{60};    // a keep-alive connection between requests
  std::chrono::seconds write_timeout{30};   // a client not reading its answer
  std::size_t max_head_bytes = 16 * 1024;
  std::size_t max_body_bytes = 1 << 20;
  /// Every answer the front gives itself (400, 408, 413, 431, 501, 502), by status.
  std::function<void(int status)> on_response;
  std::function<void(const std::string&)> log;
};

class ConnectionFront {
 public:
  explicit ConnectionFront(FrontOptions options);
  ~ConnectionFront();
  ConnectionFront(const ConnectionFront&) = delete;
  ConnectionFront& operator=(const ConnectionFront&) = delete;
  /// Binds and listens. @return the bound port, or an error naming the address
  Expected<int> bind();
  /// Serves until stop(), then lets the requests in progress finish.
  void run();
  /// Safe from any thread (a signal thread).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace limitscope::gateway_app
