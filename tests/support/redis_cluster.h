#pragma once
// A real Redis Cluster for one test: N redis-server processes with cluster mode on, each on a
// free 127.0.0.1 port in its own temp directory (process/local_server.h), joined by
// `redis-cli --cluster create ... --cluster-replicas R --cluster-yes`, and ready when every
// node reports cluster_state:ok (bounded polling of the real processes, never a fixed sleep).
// The destructor stops every node. Failures throw with the reason (and redis-cli's output).

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/redis/connection.h"
#include "process/local_server.h"

namespace limitscope::test {

/// One line of CLUSTER NODES.
struct ClusterNodeLine {
  std::string id;
  int port = 0;
  bool master = false;
  bool failed = false;    ///< flags hold "fail" (not "fail?")
  std::string master_id;  ///< for a replica
  int slots = 0;          ///< slots it serves
};

class RedisCluster {
 public:
  struct Options {
    int masters = 3;
    int replicas = 0;  ///< per master
    int node_timeout_ms = 2000;
    std::vector<std::string> extra_args;
  };

  static std::unique_ptr<RedisCluster> start(Options options);
  static std::unique_ptr<RedisCluster> start() { return start(Options{}); }
  ~RedisCluster();

  /// "redis+cluster://127.0.0.1:P1,127.0.0.1:P2,..." with every node as a seed.
  std::string url() const;
  std::size_t size() const { return nodes_.size(); }
  int port(std::size_t i) const { return nodes_[i]->port(); }
  std::vector<int> ports() const;
  /// A connection to the node on `port` (throws when it cannot connect).
  redis::Connection connect(int port) const;

  /// CLUSTER NODES as some live node sees it.
  std::vector<ClusterNodeLine> nodes() const;
  /// The port of the master serving `slot` (CLUSTER SLOTS of a live node), or 0.
  int master_port_of_slot(int slot) const;
  std::string node_id(int port) const;
  /// The port of a replica of the master on `master_port` (CLUSTER NODES), or 0 for none.
  int replica_of(int master_port) const;

  /// SIGKILL the node on `port`.
  void kill(int port);
  /// SIGSTOP / SIGCONT the node on `port`: it holds every call until resumed.
  void pause(int port);
  void resume(int port);
  /// The process id of the node on `port`, or -1.
  pid_t pid(int port) const;
  /// Moves `slot` to the master on `to_port` with CLUSTER SETSLOT IMPORTING/MIGRATING,
  /// MIGRATE of its keys `keys_per_step` at a time (calling `between_steps` after each step,
  /// so a test can decide while the slot is half moved), then SETSLOT NODE on both sides.
  void migrate_slot(int slot, int to_port, int keys_per_step = 1,
                    const std::function<void()>& between_steps = {});

  /// Polls `done` (a check against the real processes) until it is true or `timeout` passes.
  static bool wait_for(const std::function<bool()>& done,
                       std::chrono::milliseconds timeout = std::chrono::seconds(20));
  /// True when every live node says cluster_state:ok.
  bool all_ok() const;

 private:
  RedisCluster() = default;
  std::vector<std::unique_ptr<redis::LocalRedisServer>> nodes_;
};

}  // namespace limitscope::test
