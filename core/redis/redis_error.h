#pragma once
// One error map for everything that talks to Redis: what kind of failure it was (so callers
// can decide between retrying, reconnecting, failing open and reporting) and a one-line text.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/common/expected.h"

namespace limitscope::redis {

enum class ErrorKind {
  io,        ///< connect or socket failure (refused, reset, unreachable)
  timeout,   ///< connect or command took longer than its timeout
  closed,    ///< the server closed the connection, or it was already unusable
  protocol,  ///< the byte stream was not RESP
  reply,     ///< the server answered with an error reply (WRONGTYPE, script error, ...)
  auth,      ///< AUTH refused (wrong user or password), required and not given (NOAUTH), or
             ///< the user's ACL denies a command or key (NOPERM, also inside a script)
  noscript,  ///< EVALSHA of a script the server does not hold
  usage,     ///< the caller's input was refused before anything was sent
};

std::string_view to_string(ErrorKind kind);

struct RedisError {
  ErrorKind kind = ErrorKind::io;
  std::string message;  // one line: what failed and why

  /// True when the connection it came from must be dropped (io, timeout, closed, protocol).
  bool breaks_connection() const {
    return kind == ErrorKind::io || kind == ErrorKind::timeout || kind == ErrorKind::closed ||
           kind == ErrorKind::protocol;
  }
};

/// The empty value of Result<void>.
struct Unit {};

/// A value or a RedisError (the project's Expected with a kind; core/common/expected.h);
/// Result<void> is ok or a RedisError.
template <class T>
using Result = Expected<T, RedisError>;

inline RedisError make_redis_error(ErrorKind kind, std::string message) {
  return RedisError{kind, std::move(message)};
}

}  // namespace limitscope::redis
