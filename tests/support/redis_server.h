#pragma once
// A real redis-server for one test: on a free 127.0.0.1 port, in its own temp directory, with
// no persistence, killed when the fixture goes away (and when the test process dies, via
// PR_SET_PDEATHSIG). Fault tests kill, restart, pause and resume it.

#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace limitscope::test {

class RedisServer {
 public:
  struct Options {
    std::string requirepass;              ///< the default user's password, when set
    std::vector<std::string> extra_args;  ///< more redis-server options, e.g. ACL users
  };

  /// Starts the server and waits until it answers PING (retrying another port when the one
  /// chosen was taken meanwhile). Throws std::runtime_error with the server's log on failure.
  static std::unique_ptr<RedisServer> start(Options options);
  static std::unique_ptr<RedisServer> start() { return start(Options{}); }

  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;
  ~RedisServer();

  int port() const { return port_; }
  /// "redis://127.0.0.1:PORT"
  std::string url() const;
  pid_t pid() const { return pid_; }

  /// SIGKILL and reap (no-op when not running).
  void kill();
  /// Starts it again on the same port (after kill()); throws when it does not come up.
  void restart();
  /// SIGSTOP: the server keeps its sockets but answers nothing.
  void pause();
  /// SIGCONT.
  void resume();

 private:
  RedisServer(Options options, std::string dir);
  bool launch_and_wait(std::string* log);

  Options options_;
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  bool paused_ = false;
};

}  // namespace limitscope::test
