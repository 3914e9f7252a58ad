#pragma once
// A real redis-server for one test (process/local_server.h): on a free 127.0.0.1 port, in
// its own temp directory, no persistence, killed when the fixture goes away or the test
// process dies. Fault tests kill, restart, pause and resume it. Failures throw, with the
// server's log, so a test cannot go on against no server.

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/redis/connection.h"
#include "process/local_server.h"

namespace limitscope::test {

class RedisServer {
 public:
  struct Options {
    std::string requirepass;              ///< the default user's password, when set
    std::vector<std::string> extra_args;  ///< more redis-server options, e.g. ACL users
  };

  static std::unique_ptr<RedisServer> start(Options options);
  static std::unique_ptr<RedisServer> start() { return start(Options{}); }

  int port() const { return server_->port(); }
  std::string url() const { return server_->url(); }
  /// The server's address as a RedisUrl, with these ACL credentials (none by default).
  redis::RedisUrl redis_url(std::string user = {}, std::string password = {}) const {
    redis::RedisUrl u;
    u.port = port();
    u.user = std::move(user);
    u.password = std::move(password);
    return u;
  }
  pid_t pid() const { return server_->pid(); }

  void kill() { server_->kill(); }
  void restart();
  void pause() { server_->pause(); }
  void resume() { server_->resume(); }

 private:
  explicit RedisServer(std::unique_ptr<redis::LocalRedisServer> s) : server_(std::move(s)) {}
  std::unique_ptr<redis::LocalRedisServer> server_;
};

/// Runs `argv` and fails the test (fatally) when it cannot or Redis answers with an error.
void must(redis::Connection& c, const std::vector<std::string>& argv);

/// A new connection to `server` (throws with the reason when it cannot connect). The default
/// command timeout is long: tests load thousands of keys in one pipeline.
redis::Connection connect(const RedisServer& server,
                          redis::ConnectOptions options = {std::chrono::seconds(2),
                                                           std::chrono::seconds(60)});

}  // namespace limitscope::test
