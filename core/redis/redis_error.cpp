#include "core/redis/redis_error.h"

namespace limitscope::redis {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::io:
      return "io";
    case ErrorKind::timeout:
      return "timeout";
    case ErrorKind::closed:
      return "closed";
    case ErrorKind::protocol:
      return "protocol";
    case ErrorKind::reply:
      return "reply";
    case ErrorKind::auth:
      return "auth";
    case ErrorKind::noscript:
      return "noscript";
    case ErrorKind::usage:
      return "usage";
  }
  return "unknown";
}

}  // namespace limitscope::redis
