#pragma once
// Watches a real redis-server run commands, through its MONITOR stream: a test that resumes a
// paused server blocks on the stream until the server reports running the queued call, an
// event, instead of polling the server's counters.

#include <chrono>
#include <string>
#include <vector>

#include "support/raw_http.h"

namespace limitscope::test {

class RedisMonitor {
 public:
  /// Connects to 127.0.0.1:port (no password) and starts MONITOR; ok() says whether it did.
  /// Open it while the server runs (before pausing it): only later commands are reported.
  explicit RedisMonitor(int port);
  bool ok() const { return ok_; }

  /// Blocks until the server reports running a command named one of `names` (as the client
  /// sent it, e.g. "FCALL"), after the ones an earlier call saw. Redis writes the report once
  /// the command has run, so what the command did is visible to the next command of any client.
  /// @param deadline a safety net for a server that never runs it
  /// @return whether such a command ran
  bool wait_for_command(const std::vector<std::string>& names,
                        std::chrono::milliseconds deadline = std::chrono::seconds(30));

 private:
  RawConnection conn_;
  std::string received_;
  std::size_t seen_ = 0;  // bytes of received_ already matched against
  bool ok_ = false;
};

}  // namespace limitscope::test
