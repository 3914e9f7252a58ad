#pragma once
// A private redis-server child process on a free 127.0.0.1 port, in its own directory, with no
// persistence: what `limitscope-cli bench-redis` measures against when given no --redis, and
// what every Redis test starts (tests/support/redis_server.h). The child dies with its parent
// (PR_SET_PDEATHSIG), so a crashed caller leaves no server behind.

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/common/expected.h"

namespace limitscope::redis {

class LocalRedisServer {
 public:
  struct Options {
    std::string executable = "redis-server";
    std::string dir;                      ///< working directory (created; removed at the end)
    std::string requirepass;              ///< the default user's password, when set
    std::vector<std::string> extra_args;  ///< more redis-server options (ACL users, ...)
    /// The highest port to listen on. A cluster node needs its bus port (port + 10000) to
    /// exist, so Redis refuses ports above 55535 with cluster mode on.
    int max_port = 65535;
  };

  /// Starts the server and waits (up to 10 s) until it answers PING, retrying another port
  /// when the one chosen was taken meanwhile. The error carries the server's log.
  static Expected<std::unique_ptr<LocalRedisServer>> start(Options options);

  LocalRedisServer(const LocalRedisServer&) = delete;
  LocalRedisServer& operator=(const LocalRedisServer&) = delete;
  ~LocalRedisServer();

  int port() const { return port_; }
  std::string url() const;  ///< "redis://127.0.0.1:PORT"
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return options_.dir; }

  void kill();  ///< SIGKILL and reap (no-op when not running)
  /// Kills the server and starts it again on the same port. @return ok once it answers PING,
  /// or why not (the port, and the server's log)
  Status restart();
  void pause();   ///< SIGSTOP: sockets stay open, nothing is answered
  void resume();  ///< SIGCONT

 private:
  explicit LocalRedisServer(Options options) : options_(std::move(options)) {}
  /// Starts redis-server on port_ and waits for its PING. @return ok, or why not: it exited,
  /// or did not answer within 10 s (with its log), or could not be forked
  Status launch_and_wait();

  Options options_;
  int port_ = 0;
  pid_t pid_ = -1;
  bool paused_ = false;
};

/// A TCP port on 127.0.0.1, at most max_port, that nothing listened on a moment ago (bind to
/// port 0 and read it; when the kernel's choice is above max_port, bind random ports below it).
Expected<int> free_loopback_port(int max_port = 65535);

}  // namespace limitscope::redis
