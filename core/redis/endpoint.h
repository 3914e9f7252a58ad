#pragma once
// One Redis endpoint: a single server (a pool of connections) or a Redis Cluster (a cluster
// client with a pool per master), chosen once, from the URL. Whatever talks to Redis goes
// through it, so "one server or a cluster" is decided here and nowhere else. It offers
//   - a call on the connection serving a key (on a cluster: redirections followed, TRYAGAIN
//     and CLUSTERDOWN retried within the retry budget);
//   - a call on a rule's shard (every key of a rule carries the hash tag {rule});
//   - a call on each master (one server: the server itself), a master that fails named;
//   - the server's TIME;
//   - the limiter's decision backend over it.
// Reconnect backoff and cluster retries run on the clock it is given (never a process-wide
// one). Thread-safe, as its pool and cluster client are.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/clock.h"
#include "core/redis/backoff.h"
#include "core/redis/cluster_client.h"
#include "core/redis/connection.h"
#include "core/redis/pool.h"
#include "core/redis/redis_url.h"

namespace limitscope::redis {

class DecisionBackend;
class KeySchema;
class RedisLimiter;

struct EndpointOptions {
  std::size_t connections = 1;  ///< connections open at once: to the server, or per master
  ConnectOptions connect;
  BackoffOptions reconnect;  ///< pause between failed connects (per node on a cluster)
  /// Cluster only: TRYAGAIN/CLUSTERDOWN/unreachable-master retries stop after this long and
  /// the last error goes to the caller (ClusterOptions' 1 s when unset).
  std::optional<Nanos> retry_budget;

  /// `connections` with these timeouts, the rest by default.
  static EndpointOptions with(const ConnectOptions& connect, std::size_t connections = 1) {
    EndpointOptions o;
    o.connections = connections;
    o.connect = connect;
    return o;
  }
};

/// The outcome of a call on one master.
struct NodeResult {
  std::string node;  ///< its address, host:port (or the socket path of a unix:// server)
  Result<void> result;
};

class Endpoint {
 public:
  using Op = std::function<Result<void>(Connection&)>;
  using NodeOp = std::function<Result<void>(Connection&, const std::string& node)>;

  /// @param clock paces reconnects and cluster retries (must outlive the endpoint)
  Endpoint(RedisUrl url, EndpointOptions options, Clock& clock);
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  ~Endpoint();

  bool is_cluster() const { return cluster_ != nullptr; }
  const RedisUrl& url() const { return url_; }
  /// The URL with the password hidden, for messages.
  std::string peer() const { return url_.redacted(); }

  /// Runs `op` on a connection to the server holding `key`. On a cluster `op` may run again
  /// after a redirection (it did not run there), so it must be safe to repeat then, as any
  /// single command or script call is. Errors from `op` return as they are.
  Result<void> run_for_key(std::string_view key, const Op& op);
  /// run_for_key() on the shard of `rule` under `schema`.
  Result<void> run_for_rule(const KeySchema& schema, std::string_view rule, const Op& op);

  /// The same, for `f` (a function of a Connection returning Result<T>).
  template <class T, class F>
  Result<T> on_key(std::string_view key, F&& f) {
    return collect<T>([&](const Op& op) { return run_for_key(key, op); }, f);
  }
  template <class T, class F>
  Result<T> on_rule(const KeySchema& schema, std::string_view rule, F&& f) {
    return collect<T>([&](const Op& op) { return run_for_rule(schema, rule, op); }, f);
  }

  /// The masters, by address (one server: its own), in address order.
  /// @return an error when a cluster's slot map cannot be read
  Result<std::vector<std::string>> masters();
  /// Slots some master serves: 16384 on one server and on a fully covered cluster (0 when a
  /// cluster's map cannot be read).
  int covered_slots();
  /// Runs `op` on every master in turn (one server: once). A master that cannot be reached,
  /// or whose `op` fails, has an error "node ADDRESS: why" in its result, and the others
  /// still run; a connection failure makes a cluster re-read its map (a replica may have
  /// been promoted). The connection is returned before the next master is asked.
  /// @return one result per master, or an error when the masters cannot be known
  Result<std::vector<NodeResult>> on_each_master(const NodeOp& op);

  using KeysOp = std::function<Result<void>(Connection&, const std::string& node,
                                            const std::vector<std::string>& keys)>;
  /// Runs `op` once on each master holding some of `keys`, with those keys in the order
  /// given (one server: once, with all of them), in address order; results as
  /// on_each_master(). Keys whose slot no master serves are left out and added to
  /// `unserved`. For batched reads of keys on many shards (a pipeline per master).
  Result<std::vector<NodeResult>> on_masters_of(const std::vector<std::string>& keys,
                                                const KeysOp& op,
                                                std::vector<std::string>& unserved);
  /// A per-key error text that `node` answered inside a batch: a redirection (MOVED, ASK,
  /// TRYAGAIN, CLUSTERDOWN) is counted and MOVED patches the slot map.
  /// Call it after the call has returned its connection: a map read may need that node's.
  /// @return true when it was one (a key on the move, not a failure of the key)
  bool note_redirect(std::string_view error, const std::string& node);

  /// TIME (µs since the epoch) of the server holding `key`.
  Result<std::int64_t> server_time_us(std::string_view key);

  /// The limiter's decisions over this endpoint (pipelined per master on a cluster).
  std::unique_ptr<DecisionBackend> decisions(RedisLimiter limiter);

  /// The layer under it, for code built on one of the two (a batch router, a probe that keeps
  /// a cursor per master); exactly one of them is set.
  ConnectionPool* pool() { return pool_.get(); }
  ClusterClient* cluster() { return cluster_.get(); }

 private:
  template <class T, class Run, class F>
  static Result<T> collect(Run&& run, F& f) {
    std::optional<Result<T>> out;
    auto ran = run([&](Connection& c) -> Result<void> {
      Result<T> r = f(c);
      if (!r.ok()) return r.error();  // a redirection: the cluster follows it and calls again
      out.emplace(std::move(r));
      return {};
    });
    if (!ran.ok()) return ran.error();
    return std::move(*out);
  }

  /// `op` on a lease of `node` (a cluster master), its error named; a connection failure
  /// makes the cluster re-read its map.
  NodeResult on_master(const ClusterNode& node, const NodeOp& op);
  /// `op` on a lease of the one server, its error named.
  NodeResult on_server(const NodeOp& op);

  RedisUrl url_;
  std::unique_ptr<ConnectionPool> pool_;    // one server
  std::unique_ptr<ClusterClient> cluster_;  // a Redis Cluster
};

/// The address of a single server's URL as a master's is written: host:port ([v6]:port), or
/// the socket path.
std::string server_address(const RedisUrl& url);

}  // namespace limitscope::redis
