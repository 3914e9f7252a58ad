#pragma once
// A minimal HTTP/1.1 responder on 127.0.0.1:<free port> for tests of HTTP clients: every
// connection gets the same canned response (any status, headers and body, including bodies
// cut short), or none at all (a server that accepts and never answers, for timeouts). A real
// TCP exchange, no HTTP library on the server side.

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace limitscope::test {

class CannedHttpServer {
 public:
  struct Response {
    int status = 200;
    std::string content_type = "text/plain; version=0.0.4";
    std::string body;
    bool silent = false;              ///< accept, read the request, never answer
    std::size_t declared_length = 0;  ///< Content-Length to claim (0: the body's size)
  };

  CannedHttpServer();
  ~CannedHttpServer();
  CannedHttpServer(const CannedHttpServer&) = delete;
  CannedHttpServer& operator=(const CannedHttpServer&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "/metrics") const;
  /// The response for the next connections.
  void respond(Response r);
  /// More header lines for every response from now on, each ending in "\r\n" (a Date, say).
  void add_headers(std::string lines);
  /// From now on, a request whose Authorization header is not exactly `value` (e.g.
  /// "Bearer t0k", "Basic dTpw") gets 401 instead of the canned response; "" lifts the
  /// requirement.
  void require_authorization(std::string value);
  /// Requests served so far.
  int requests() const { return requests_.load(); }
  /// The last request's head (request line and headers).
  std::string last_request() const;
  /// Every request line served so far, oldest first ("GET /path?query HTTP/1.1").
  std::vector<std::string> request_lines() const;

 private:
  void serve();

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  mutable std::mutex mu_;
  Response response_;
  std::string required_authorization_;
  std::string extra_headers_;
  std::string last_request_;
  std::vector<std::string> request_lines_;
  std::thread thread_;
};

}  // namespace limitscope::test
