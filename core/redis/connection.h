#pragma once
// One blocking connection to a Redis server (RAII over a hiredis context; move-only).
// open() connects with a timeout, authenticates (ACL user + password, or password only) and
// selects the database; every command then has the command timeout. After an I/O, timeout or
// protocol failure the connection is unusable and the caller opens a new one (ConnectionPool
// does that, with backoff).

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/redis/command_batch.h"
#include "core/redis/redis_error.h"
#include "core/redis/redis_url.h"
#include "core/redis/redis_value.h"

namespace limitscope::redis {

struct ConnectOptions {
  std::chrono::milliseconds connect_timeout{500};
  std::chrono::milliseconds command_timeout{500};
};

/// How a connection runs the limiter's Lua (core/redis/script.h): as a Redis 7 function
/// library with FCALL, or as scripts with EVALSHA where Functions are missing (a server older
/// than 7, an ACL without FCALL or FUNCTION LOAD). Unknown until the first call finds out.
enum class ScriptMode { unknown, functions, scripts };

class Connection {
 public:
  /// Connects, AUTHs and SELECTs. Errors: io (refused, unreachable), timeout, auth; usage
  /// for a redis+cluster:// URL (a cluster needs core/redis/cluster_client.h).
  static Result<Connection> open(const RedisUrl& url, const ConnectOptions& options = {});

  Connection(Connection&&) noexcept;
  Connection& operator=(Connection&&) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  /// One command. An error reply becomes RedisError{reply, text} (noscript for NOSCRIPT,
  /// auth for NOAUTH/WRONGPASS).
  Result<Value> command(const std::vector<std::string>& argv);

  /// Sends every command, then reads every reply in order, in one round trip. Error replies
  /// stay in the vector as Values of Type::error (one failed command does not fail the
  /// batch); only I/O, timeout and protocol failures fail the whole call.
  Result<std::vector<Value>> pipeline(const std::vector<std::vector<std::string>>& commands);
  /// The same for commands encoded as they were added (large pipelines: a refresh's reads).
  Result<std::vector<Value>> pipeline(const CommandBatch& batch);

  /// False after an io/timeout/protocol/closed failure: drop it and open a new one.
  bool usable() const;

  /// Redis Cluster: while on, every command (each one of a pipeline too) is preceded by
  /// ASKING, the one-shot permission to run it on a slot this node is importing, after an ASK
  /// redirection. Off by default; the cluster client turns it on for one redirected call.
  void set_asking(bool on);

  /// How this connection runs Lua; set by core/redis/script.cpp when a call finds out (and by
  /// tests that force the EVALSHA path).
  ScriptMode script_mode() const;
  void set_script_mode(ScriptMode mode);

  /// The server this connection talks to (password redacted), for messages.
  const std::string& peer() const;

 private:
  struct Impl;
  explicit Connection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The error kind of an error reply's text ("NOSCRIPT ..." and FCALL's "ERR Function not
/// found" → noscript, "WRONGPASS"/"NOAUTH"
/// → auth, an ACL refusal inside a script → auth, anything else → reply).
ErrorKind classify_error_reply(const std::string& text);

}  // namespace limitscope::redis
