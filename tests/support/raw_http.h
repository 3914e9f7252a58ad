#pragma once
// HTTP as a hostile or unusual client speaks it, byte for byte, on a plain loopback socket:
// malformed framing, pipelined requests, bodies the usual clients would never send.

#include <chrono>
#include <functional>
#include <string>

namespace limitscope::test {

struct RawExchange {
  std::string received;  // every byte the server sent
  bool closed = false;   // the server closed the connection (not our deadline)
};

/// One client connection to 127.0.0.1:port, kept open as long as the object lives.
class RawConnection {
 public:
  explicit RawConnection(int port);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  bool connected() const { return fd_ >= 0; }
  /// Sends all of `bytes` (stops early when the server refused and closed).
  void send(const std::string& bytes);
  /// Reads until the server closes or `deadline` passes (a safety net for a server that keeps
  /// the connection, not a pacing delay).
  RawExchange read_until_close(std::chrono::milliseconds deadline);
  /// Reads until `received` holds `count` answers (or the deadline, a safety net, passes).
  std::string read_answers(int count,
                           std::chrono::milliseconds deadline = std::chrono::seconds(10));
  /// Appends what arrives to `received`, blocking on the socket, until `done(received)` holds,
  /// the server closes, or `deadline` (a safety net, not a pacing delay) passes.
  /// @return whether `done` held
  bool read_until(std::string& received, const std::function<bool(const std::string&)>& done,
                  std::chrono::milliseconds deadline);
  /// The server has closed this connection (looked at without waiting).
  bool closed_by_server();

 private:
  int fd_ = -1;
};

/// Connects, sends `bytes`, and reads until the server closes or `deadline` passes.
RawExchange raw_exchange(int port, const std::string& bytes,
                         std::chrono::milliseconds deadline = std::chrono::seconds(10));

/// How many responses (status lines "HTTP/1.1 ") `received` holds (bodies must not contain it).
int count_responses(const std::string& received);

/// The value of header `name` (case-sensitive, as sent) in the first response, or "".
std::string first_header(const std::string& received, const std::string& name);

/// VmHWM (peak resident set) of process `pid` in KiB, from /proc; -1 when unreadable.
long peak_rss_kib(int pid);

}  // namespace limitscope::test
