#pragma once
// Tells a test when bytes arrive for a stopped (SIGSTOP) server process, which cannot read
// them: the server's sockets on its client port (listening and accepted) are duplicated from
// it (pidfd_getfd, Linux 5.6; the server must be this process's child or the same user's) into
// an edge-triggered epoll set, so each arrival wakes the test once. A test re-checks its
// condition after each wake-up (other clients of the server, e.g. a replica's acks, wake it
// too), never waiting on time. Destroy it once the wait is over: its copies of the sockets
// keep them open, so a client would not see them close if the server died.

#include <sys/types.h>

#include <chrono>
#include <vector>

namespace limitscope::test {

class ServerInbox {
 public:
  ServerInbox();
  ~ServerInbox();
  ServerInbox(const ServerInbox&) = delete;
  ServerInbox& operator=(const ServerInbox&) = delete;

  /// Watches the sockets of process `pid` bound to local port `port`; throws when it cannot.
  void watch(pid_t pid, int port);
  /// Blocks until bytes or a connection arrive at a watched socket after the previous wait
  /// returned (an arrival in between is kept), or `deadline` (a safety net) passes.
  /// @return whether something arrived
  bool wait(std::chrono::steady_clock::time_point deadline);

 private:
  int epoll_fd_ = -1;
  std::vector<int> fds_;  // our duplicates; closing them leaves the server's sockets open
};

}  // namespace limitscope::test
