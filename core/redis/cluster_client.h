#pragma once
// A client for Redis Cluster on top of the single-server Connection (Debian's hiredis 0.14 has
// no cluster support): the slot map from CLUSTER SHARDS (CLUSTER SLOTS on a server older than
// Redis 7, once it said it has no SHARDS), asked of the seed nodes and then of the known masters; a
// small connection pool per master, opened lazily; commands routed by key slot; MOVED refreshes the
// map (at most once per min_refresh_interval, and the slot is patched at once) and retries on the
// named node; ASK retries once on the named node after ASKING; TRYAGAIN and CLUSTERDOWN are retried
// with a growing pause within a time budget; a master that cannot be reached makes the client
// re-read the map (a replica may have been promoted) before the error goes to the caller.
// Thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/redis/backoff.h"
#include "core/redis/cluster_topology.h"
#include "core/redis/connection.h"
#include "core/redis/pool.h"
#include "core/redis/redis_url.h"

namespace limitscope::redis {

struct ClusterOptions {
  std::size_t connections_per_node = 1;  ///< pool size per master
  ConnectOptions connect;
  BackoffOptions reconnect;  ///< a node's pool between failed connects
  int max_redirects = 5;     ///< MOVED/ASK hops for one call
  /// TRYAGAIN/CLUSTERDOWN/unreachable-master retries: pauses from `retry.initial` growing to
  /// `retry.max`, for at most `retry_budget` in all; then the last error goes to the caller.
  BackoffOptions retry{std::chrono::milliseconds(2), std::chrono::milliseconds(100), 2.0, 0.5};
  Nanos retry_budget = std::chrono::seconds(1);
  /// The map is re-read at most this often (MOVED storms during a reshard, dead masters).
  Nanos min_refresh_interval = std::chrono::milliseconds(100);
};

struct ClusterStats {
  std::uint64_t refreshes = 0;  ///< slot map reads that changed or confirmed the map
  std::uint64_t moved = 0;
  std::uint64_t ask = 0;
  std::uint64_t tryagain = 0;     ///< TRYAGAIN and CLUSTERDOWN retries
  std::uint64_t unreachable = 0;  ///< calls to a master that could not be connected to
};

class ClusterClient {
 public:
  /// @param url a redis+cluster:// URL (its seeds and credentials); a redis:// URL is used as
  ///            a single seed
  /// @param clock paces retries and reconnects (must outlive the client)
  ClusterClient(RedisUrl url, ClusterOptions options, Clock& clock);
  ClusterClient(const ClusterClient&) = delete;
  ClusterClient& operator=(const ClusterClient&) = delete;

  /// Reads the slot map now (from a known master, else a seed).
  /// @return usage when the server is not a cluster, io when no node answers
  Result<void> refresh();

  /// The current map, read first if there is none yet.
  Result<std::shared_ptr<const ClusterTopology>> topology();

  /// Runs `op` on a connection to the master serving `slot`, following MOVED/ASK and
  /// retrying TRYAGAIN/CLUSTERDOWN (see the file comment). `op` must be safe to repeat after
  /// a redirection or TRYAGAIN error (the command did not run), which is true of any single
  /// command or script call. Other errors return at once.
  Result<void> run(int slot, const std::function<Result<void>(Connection&)>& op);
  /// run() on the slot of `key`.
  Result<void> run_for_key(std::string_view key,
                           const std::function<Result<void>(Connection&)>& op);

  /// A connection to one node (pooled), for per-node work (SCAN, INFO, a routed batch).
  Result<ConnectionPool::Lease> lease(const ClusterNode& node);

  // --- Building blocks for callers that route batches themselves (cluster_limiter.h). ---

  /// Counts a redirection and acts on it: MOVED patches the slot (and re-reads the map when
  /// due); READONLY and CLUSTERDOWN re-read the map when due.
  void note(const ClusterError& e);
  /// A master could not be reached: re-read the map when due. @return true when the map changed
  bool note_unreachable();
  /// Waits the next retry pause of `backoff` if `waited` + it stays within the budget.
  /// @return false when the budget is spent (nothing waited)
  bool retry_pause(Backoff& backoff, Nanos& waited);
  Backoff retry_backoff() const { return Backoff(options_.retry, 0xc105); }

  ClusterStats stats() const;
  const RedisUrl& url() const { return url_; }
  const ClusterOptions& options() const { return options_; }

 private:
  ConnectionPool& pool_for(const ClusterNode& node);
  /// Re-reads the map unless it was read less than min_refresh_interval ago.
  /// @return true when the map changed
  bool refresh_if_due();
  Result<bool> read_map();

  RedisUrl url_;
  ClusterOptions options_;
  Clock& clock_;

  mutable std::mutex mu_;  // guards the fields below
  std::shared_ptr<const ClusterTopology> topology_;
  std::map<std::string, std::unique_ptr<ConnectionPool>> pools_;  ///< by node address
  ClusterStats stats_;
  Nanos last_refresh_{0};
  bool refreshed_once_ = false;

  std::mutex refresh_mu_;    // one map read at a time
  bool slots_only_ = false;  // guarded by refresh_mu_: the servers have no CLUSTER SHARDS
};

/// A TRYAGAIN/CLUSTERDOWN/READONLY error still seen when the retry budget ran out, as an
/// outage (kind io: the failure policy applies), with the time spent retrying.
RedisError cluster_unavailable(RedisError e, Nanos waited);

}  // namespace limitscope::redis
