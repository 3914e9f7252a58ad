#pragma once
// What a Redis Cluster looks like to a client: which master serves each of the 16384 slots
// (from CLUSTER SHARDS, Redis 7+, or CLUSTER SLOTS before it), and what an error reply says about
// where to go instead (MOVED, ASK) or when to try again (TRYAGAIN, CLUSTERDOWN). Pure parsing, no
// I/O: core/redis/ cluster_client.h does the talking.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"
#include "core/redis/redis_value.h"

namespace limitscope::redis {

inline constexpr int kClusterSlotCount = 16384;

/// One node as the cluster announces it.
struct ClusterNode {
  std::string host;
  int port = 0;
  std::string id;  ///< node id (40 hex), when the reply carries it

  /// "host:port" ("[v6]:port"): the key the client keeps connections under.
  std::string address() const;
  bool operator==(const ClusterNode& o) const { return host == o.host && port == o.port; }
};

/// A range of slots [first, last] and the nodes serving it.
struct SlotRange {
  int first = 0;
  int last = 0;
  ClusterNode master;
  std::vector<ClusterNode> replicas;
};

class ClusterTopology {
 public:
  ClusterTopology() = default;

  /// Parses a CLUSTER SLOTS reply. An empty or "?" host means "the host you asked"
  /// (`asked_host`), as Redis 7 announces nodes with an unknown endpoint.
  /// @return the topology, or why the reply is unusable (error reply, no slots, bad shape)
  static Expected<ClusterTopology> from_slots_reply(const Value& reply,
                                                    const std::string& asked_host);
  /// Parses a CLUSTER SHARDS reply (Redis 7+; RESP2: each shard a flat [name, value, ...]
  /// list with "slots" as [first, last, first, last, ...] and "nodes" as flat maps). A
  /// node's host is its "endpoint", else its "ip", else `asked_host` (empty or "?": not known
  /// yet). A shard without slots is skipped; replicas whose health is not "online" are left
  /// out (the master stays, whatever its health: only a promotion replaces it).
  /// @return the topology, or why the reply is unusable
  static Expected<ClusterTopology> from_shards_reply(const Value& reply,
                                                     const std::string& asked_host);

  /// The master serving `slot` (0..16383), or nullptr when no master does.
  const ClusterNode* master_of(int slot) const;
  /// Every master serving at least one slot, in address order.
  const std::vector<ClusterNode>& masters() const { return masters_; }
  const std::vector<SlotRange>& ranges() const { return ranges_; }
  /// Slots served by some master (16384 when the cluster is fully covered).
  int covered_slots() const;

  /// This topology with `slot` served by `master` (what a MOVED reply says).
  ClusterTopology with_slot_owner(int slot, const ClusterNode& master) const;

 private:
  void index();

  std::vector<SlotRange> ranges_;
  std::vector<ClusterNode> masters_;
  std::vector<std::int16_t> owner_;  ///< slot → index into masters_, -1 when none
};

/// What a cluster error reply asks of the client.
enum class ClusterErrorKind {
  moved,        ///< the slot lives elsewhere for good: refresh the topology, retry there
  ask,          ///< the slot is migrating: retry once there, after ASKING
  tryagain,     ///< a multi-key call during a migration: retry shortly
  clusterdown,  ///< the cluster cannot serve now (a master failed): retry shortly
  readonly,     ///< the node is a replica now (failover): refresh the topology, retry
};
std::string_view to_string(ClusterErrorKind kind);

struct ClusterError {
  ClusterErrorKind kind = ClusterErrorKind::moved;
  int slot = -1;     ///< MOVED/ASK
  ClusterNode node;  ///< MOVED/ASK: where to go
};

/// Classifies an error reply ("MOVED 3999 127.0.0.1:6381", "ASK ...", "TRYAGAIN ...",
/// "CLUSTERDOWN ...", "READONLY ..."), raw or at the end of a RedisError message
/// ("redis ...: EVALSHA: MOVED ..."). An empty MOVED/ASK host means `default_host` (the node
/// that answered).
/// @return nullopt for any other text, including a malformed MOVED/ASK
std::optional<ClusterError> parse_cluster_error(std::string_view text,
                                                std::string_view default_host);

}  // namespace limitscope::redis
