#pragma once
// Where a Redis server is and how to log in:
//   redis://[[user]:password@]host[:port][/db]     (host may be [IPv6])
//   unix:///path/to/redis.sock[?db=N]
//   redis+cluster://[[user]:password@]host:port[,host:port...]   (Redis Cluster seed nodes)
// User and password may be percent-encoded. TLS (rediss://) is refused: Debian's hiredis 0.14
// has none; docs/redis-schema.md gives a tunnel recipe.

#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"

namespace limitscope::redis {

/// One seed node of a redis+cluster:// URL.
struct ClusterSeed {
  std::string host;
  int port = 6379;
};

struct RedisUrl {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string unix_path;  ///< set for unix:// URLs (then host/port are unused)
  std::string user;       ///< ACL user; empty means the default user
  std::string password;   ///< empty means no AUTH
  int db = 0;
  /// redis+cluster:// seed nodes, in the order given (host/port then hold the first). Empty
  /// for a single server. A cluster has only database 0.
  std::vector<ClusterSeed> cluster_seeds;

  bool cluster() const { return !cluster_seeds.empty(); }
  /// One node of a cluster as a single-server URL with this URL's credentials.
  RedisUrl node(const std::string& node_host, int node_port) const;

  /// The URL for logs and the status bar: the password replaced by ***.
  std::string redacted() const;
};

/// @return the parsed URL, or an error naming the URL (redacted) and the reason
Expected<RedisUrl> parse_redis_url(std::string_view text);

}  // namespace limitscope::redis
