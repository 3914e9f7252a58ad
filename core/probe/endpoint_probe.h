#pragma once
// The probe for a redis::Endpoint: RedisProbe on one server, ClusterProbe on a cluster (a
// cursor and a SCAN budget per master, each key read on its master). The one place that picks
// between the two; callers hold an EndpointProbe and an Endpoint and never ask which it is.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/probe/cluster_probe.h"
#include "core/probe/redis_probe.h"
#include "core/redis/endpoint.h"

namespace limitscope::probe {

class EndpointProbe {
 public:
  EndpointProbe(std::vector<LimiterProfile> profiles, ProbeOptions options);

  /// One budgeted discovery step, then a read of every tracked key (RedisProbe::refresh,
  /// ClusterProbe::refresh). A server that cannot be reached fails it with the pool's error.
  redis::Result<ProbeSnapshot> refresh(redis::Endpoint& endpoint);
  /// A full SCAN pass (on every master), then a read: for the CLI.
  redis::Result<ProbeSnapshot> probe_all(redis::Endpoint& endpoint);

  /// Hands back a snapshot's readings once read (RedisProbe::recycle, ClusterProbe::recycle:
  /// to the probe that made them).
  void recycle(std::vector<KeyReading> readings);

  /// Full SCAN passes completed on `node` (a cluster master's address; on one server any
  /// name gives the server's passes).
  std::uint64_t passes(const std::string& node) const;

 private:
  redis::Result<ProbeSnapshot> run(redis::Endpoint& endpoint, bool full_pass);

  RedisProbe server_;        // one server
  ClusterProbe cluster_;     // a cluster
  bool on_cluster_ = false;  // the last run was on a cluster
};

}  // namespace limitscope::probe
