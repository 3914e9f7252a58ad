#pragma once
// HTTP as a hostile or unusual client speaks it, byte for byte, on a plain loopback socket:
// malformed framing, pipelined requests, bodies the usual clients would never send.

#include <chrono>
#include <string>

namespace limitscope::test {

struct RawExchange {
  std::string received;  // every byte the server sent
  bool closed = false;   // the server closed the connection (not our deadline)
};

/// Connects to 127.0.0.1:port, sends `bytes`, and reads until the server closes or `deadline`
/// passes (a safety net for a server that keeps the connection, not a pacing delay).
RawExchange raw_exchange(int port, const std::string& bytes,
                         std::chrono::milliseconds deadline = std::chrono::seconds(10));

/// How many responses (status lines "HTTP/1.1 ") `received` holds.
int count_responses(const std::string& received);

/// The value of header `name` (case-sensitive, as sent) in the first response, or "".
std::string first_header(const std::string& received, const std::string& name);

/// VmHWM (peak resident set) of process `pid` in KiB, from /proc; -1 when unreadable.
long peak_rss_kib(int pid);

}  // namespace limitscope::test
