#pragma once
// RedisProbe on a Redis Cluster: one RedisProbe per master, so every master is scanned with its
// own cursor and its own SCAN budget, and every key is read on the master that holds it (a
// rule's config and states share one slot, so one node answers for a whole rule). Each reading
// names its node. Reads go with ASKING, so a node importing a slot still answers for the keys
// it already holds; a read redirected by a slot migration (MOVED/ASK) leaves the key out of
// that refresh (counted in `moving`) instead of failing it, and the node that answered stops
// tracking the key, which the new owner's scan finds; a MOVED reply there patches the client's
// slot map at once. A master that cannot be reached is an
// error line, not a failed refresh, as long as one master answers.
//
// Discovery's budget (adaptive_scan) is one share of a refresh for the whole cluster (its time
// and its CPU), split evenly between the masters: scanned at once, each on its own thread (whose
// CPU its probe measures), they would otherwise take n shares of the dashboard's CPU, so its
// discovery work would grow with the masters.
//
// The masters are probed at once, one thread per master for the refresh (each master's probe
// is its own state, each on its own pooled connection): a refresh takes as long as the slowest
// master, not the sum of them, and a master that does not answer holds back only its own
// reads (until its connection's command timeout), not the others'. Their readings, each
// master's already in pressure order, are merged, not sorted again; the readings a snapshot
// hands back (recycle) go back to the masters they came from, to be written over.

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/probe/redis_probe.h"
#include "core/redis/cluster_client.h"

namespace limitscope::probe {

class ClusterProbe {
 public:
  ClusterProbe(std::vector<LimiterProfile> profiles, ProbeOptions options);

  /// One budgeted discovery step on every master, then a read of every tracked key.
  redis::Result<ProbeSnapshot> refresh(redis::ClusterClient& cluster);
  /// A full SCAN pass on every master, then a read: for the CLI.
  redis::Result<ProbeSnapshot> probe_all(redis::ClusterClient& cluster);

  /// Hands back a snapshot's readings once read: each master's probe writes its next
  /// readings into those it gave (RedisProbe::recycle).
  void recycle(std::vector<KeyReading> readings);

  /// Keys tracked over all masters.
  std::size_t tracked() const;
  /// Full SCAN passes the probe of master `address` has completed (0 for a master not probed
  /// yet): a key that was on it before pass n began is found once passes() reaches n.
  std::uint64_t passes(const std::string& address) const;

 private:
  redis::Result<ProbeSnapshot> run(redis::ClusterClient& cluster, bool full_pass);
  /// Moves `readings` to the spare readings of the masters they name.
  void give_back(std::span<KeyReading> readings);

  std::vector<LimiterProfile> profiles_;
  ProbeOptions options_;
  std::map<std::string, std::unique_ptr<RedisProbe>> per_node_;  ///< by node address
  std::vector<KeyReading> merged_;  ///< the last snapshot's vector, handed back (recycle)
};

}  // namespace limitscope::probe
