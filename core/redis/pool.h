#pragma once
// A small pool of connections to one server. A lease holds a connection for one command or
// pipeline and returns it on destruction, unless it broke (then it is dropped and a new one
// is opened on demand). When opening fails, the next attempt waits an exponential backoff
// with jitter; until then acquire() answers at once with the last error, so a dead server
// costs callers nothing but a lock (the failure policy decides what that means).

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/redis/backoff.h"
#include "core/redis/connection.h"

namespace limitscope::redis {

struct PoolOptions {
  std::size_t size = 4;  ///< most connections open at once; acquire() waits for one beyond it
  ConnectOptions connect;
  BackoffOptions backoff;
  std::uint64_t seed = 0x5eed;  ///< for the backoff jitter
};

struct PoolStats {
  std::uint64_t opened_total = 0;
  std::uint64_t open_failures_total = 0;
  std::uint64_t dropped_total = 0;  ///< connections dropped after an I/O failure
  std::size_t idle = 0;
  std::size_t in_use = 0;
};

class ConnectionPool {
 public:
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    Connection& operator*() { return *conn_; }
    Connection* operator->() { return conn_.get(); }

   private:
    friend class ConnectionPool;
    Lease(ConnectionPool* pool, std::unique_ptr<Connection> conn);
    ConnectionPool* pool_;
    std::unique_ptr<Connection> conn_;
  };

  /// @param clock decides when the next reconnect attempt may happen (must outlive the pool)
  ConnectionPool(RedisUrl url, PoolOptions options, const Clock& clock);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  /// An idle connection, a newly opened one, or (when `size` are in use) the next one
  /// returned. Fails at once with the last error while a reconnect backoff is running.
  Result<Lease> acquire();

  PoolStats stats() const;
  const RedisUrl& url() const { return url_; }
  /// The URL with the password hidden.
  std::string peer() const { return url_.redacted(); }

 private:
  void give_back(std::unique_ptr<Connection> conn);

  RedisUrl url_;
  PoolOptions options_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::size_t in_use_ = 0;
  std::size_t opening_ = 0;
  Backoff backoff_;
  Nanos next_attempt_{0};
  std::optional<RedisError> last_error_;
  PoolStats stats_;
};

}  // namespace limitscope::redis
