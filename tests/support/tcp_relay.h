#pragma once
// A TCP relay in the test process between a client process and a server on loopback: every
// byte is passed on unchanged both ways, and the bytes the client sends are counted, an event
// a test can block on (e.g. "the gateway has written to Redis", with Redis paused, where the
// bytes would otherwise only sit in the paused server's socket). When either side closes, the
// relay closes the other.

#include <condition_variable>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace limitscope::test {

class TcpRelay {
 public:
  /// Listens on a free 127.0.0.1 port; each connection is relayed to 127.0.0.1:target_port.
  explicit TcpRelay(int target_port);
  ~TcpRelay();
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  int port() const { return port_; }
  /// Bytes the clients have sent so far.
  std::uint64_t bytes_in() const;
  /// Blocks until clients have sent more than `seen` bytes, or `deadline` (a safety net) passes.
  bool wait_past(std::uint64_t seen, std::chrono::steady_clock::time_point deadline) const;

 private:
  void accept_loop();
  void pump(int from, int to, bool count);

  int target_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  mutable std::mutex mu_;
  mutable std::condition_variable arrived_;
  std::uint64_t bytes_in_ = 0;
  bool stopping_ = false;
  std::vector<int> fds_;              // every relayed socket, shut down at the end
  std::vector<std::thread> pumps_;
};

}  // namespace limitscope::test
