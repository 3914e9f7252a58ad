#pragma once
// Where a Redis server is and how to log in:
//   redis://[[user]:password@]host[:port][/db]     (host may be [IPv6])
//   unix:///path/to/redis.sock[?db=N]
// User and password may be percent-encoded. TLS (rediss://) is refused: Debian's hiredis 0.14
// has none; docs/redis-schema.md gives a tunnel recipe.

#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope::redis {

struct RedisUrl {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string unix_path;  ///< set for unix:// URLs (then host/port are unused)
  std::string user;       ///< ACL user; empty means the default user
  std::string password;   ///< empty means no AUTH
  int db = 0;

  /// The URL for logs and the status bar: the password replaced by ***.
  std::string redacted() const;
};

/// @return the parsed URL, or an error naming the URL (redacted) and the reason
Expected<RedisUrl> parse_redis_url(std::string_view text);

}  // namespace limitscope::redis
