#pragma once
// A private Redis Cluster of `masters` redis-server children (local_server.h) on free
// 127.0.0.1 ports, no replicas: what `limitscope-cli bench-redis --cluster` measures beside a
// single server. Built without redis-cli: each node takes an even share of the 16384 slots
// (CLUSTER ADDSLOTSRANGE) and its own config epoch, the first node MEETs the others, and
// start() returns when every node reports cluster_state:ok and knows every other node
// (polled, at most 20 s). The destructor stops every node.

#include <memory>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "process/local_server.h"

namespace limitscope::redis {

class LocalRedisCluster {
 public:
  struct Options {
    std::string dir;  ///< one sub-directory per node (removed at the end)
    int masters = 3;
    std::string executable = "redis-server";
  };

  static Expected<std::unique_ptr<LocalRedisCluster>> start(Options options);
  LocalRedisCluster(const LocalRedisCluster&) = delete;
  LocalRedisCluster& operator=(const LocalRedisCluster&) = delete;
  ~LocalRedisCluster();

  /// "redis+cluster://127.0.0.1:P1,127.0.0.1:P2,..."
  std::string url() const;
  const std::vector<std::unique_ptr<LocalRedisServer>>& nodes() const { return nodes_; }

 private:
  LocalRedisCluster() = default;
  std::string dir_;
  std::vector<std::unique_ptr<LocalRedisServer>> nodes_;
};

}  // namespace limitscope::redis
