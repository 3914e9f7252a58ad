#include "core/probe/cluster_probe.h"

#include <set>

#include "core/probe/own_schema.h"
#include "core/redis/cluster_topology.h"
#include "core/redis/key_schema.h"

namespace limitscope::probe {

ClusterProbe::ClusterProbe(std::vector<LimiterProfile> profiles, ProbeOptions options)
    : profiles_(std::move(profiles)), options_(std::move(options)) {
  options_.max_tracked = std::max<std::size_t>(options_.max_tracked, 1);
}

std::size_t ClusterProbe::tracked() const {
  std::size_t n = 0;
  for (const auto& [node, p] : per_node_) n += p->tracked();
  return n;
}

std::uint64_t ClusterProbe::passes(const std::string& address) const {
  const auto it = per_node_.find(address);
  return it != per_node_.end() ? it->second->passes() : 0;
}

redis::Result<ProbeSnapshot> ClusterProbe::refresh(redis::ClusterClient& cluster) {
  return run(cluster, false);
}

redis::Result<ProbeSnapshot> ClusterProbe::probe_all(redis::ClusterClient& cluster) {
  return run(cluster, true);
}

redis::Result<ProbeSnapshot> ClusterProbe::run(redis::ClusterClient& cluster, bool full_pass) {
  auto topo = cluster.topology();
  if (!topo) return topo.error();
  // Masters that stopped being masters (failover) take their probe state with them.
  std::map<std::string, std::unique_ptr<RedisProbe>> current;
  for (const redis::ClusterNode& m : (*topo)->masters()) {
    auto it = per_node_.find(m.address());
    current[m.address()] = it != per_node_.end()
                               ? std::move(it->second)
                               : std::make_unique<RedisProbe>(profiles_, options_);
  }
  per_node_ = std::move(current);

  ProbeSnapshot all;
  all.discovery_complete = true;
  std::set<std::string> examples;
  std::optional<redis::RedisError> last_error;
  std::size_t answered = 0;
  for (const redis::ClusterNode& m : (*topo)->masters()) {
    const std::string address = m.address();
    RedisProbe& probe = *per_node_[address];
    redis::Result<ProbeSnapshot> snap = ProbeSnapshot{};
    {
      auto conn = cluster.lease(m);
      if (!conn) {
        snap = conn.error();
      } else {
        (*conn)->set_asking(true);
        snap = full_pass ? probe.probe_all(**conn) : probe.refresh(**conn);
        (*conn)->set_asking(false);
      }
    }  // the lease goes back before a map read, which may need this node's connection
    if (!snap) {
      all.errors.push_back("node " + address + ": " + snap.error().message);
      all.failed_nodes.push_back(address);
      all.discovery_complete = false;
      last_error = snap.error();
      if (snap.error().breaks_connection()) {
        cluster.note_unreachable();
      }
      continue;
    }
    ++answered;
    all.server_time_us = std::max(all.server_time_us, snap->server_time_us);
    all.unmatched += snap->unmatched;
    all.discovery_complete = all.discovery_complete && snap->discovery_complete;
    all.scanned += snap->scanned;
    all.scan_calls += snap->scan_calls;
    all.read_commands += snap->read_commands;
    all.index_reads += snap->index_reads;  // each rule's pressure index is on its own master
    all.index_entries += snap->index_entries;
    all.from_index += snap->from_index;
    all.dropped += snap->dropped;
    // A slot this node does not serve (yet) is one it is importing: what it reads there may
    // be half moved (a rule's states before its config), so errors there mean "moving".
    auto served_here = [&](const std::string& key) {
      const redis::ClusterNode* owner = (*topo)->master_of(redis::cluster_slot(key));
      return owner != nullptr && *owner == m;
    };
    // A rule whose config read was redirected, or half moved, is moving.
    std::set<std::string> moved_configs;
    for (const std::string& e : snap->errors) {
      const std::string config_key = e.substr(0, e.find(": "));
      if (redis::parse_cluster_error(e, m.host) || !served_here(config_key)) {
        moved_configs.insert(config_key);
        continue;
      }
      all.errors.push_back("node " + address + ": " + e);
    }
    for (KeyReading& k : snap->keys) {
      const auto redirect =
          k.error.empty() ? std::nullopt : redis::parse_cluster_error(k.error, m.host);
      const bool redirected = redirect.has_value();
      // MOVED: the slot has a new owner for good; the map learns it now, not at the next
      // routed call (the probe itself stops asking this node for the key).
      if (redirect && redirect->kind == redis::ClusterErrorKind::moved) cluster.note(*redirect);
      bool moving = redirected || (!k.error.empty() && !served_here(k.key));
      if (!moving && !k.error.empty() && !moved_configs.empty()) {
        const auto own = parse_own_key(k.key);
        moving = own && moved_configs.count(own->config_key) > 0;
      }
      if (moving) {
        // Redirected: the key has left this node. Otherwise it is arriving: keep tracking it.
        if (redirected) probe.forget(k.key);
        ++all.moving;
        all.moving_keys.push_back(k.key);
        continue;
      }
      k.node = address;
      all.keys.push_back(std::move(k));
    }
    for (auto& e : snap->unmatched_examples) {
      if (examples.size() < 20) examples.insert(std::move(e));
    }
  }
  if (answered == 0) {
    if (last_error) return *last_error;
    return redis::make_redis_error(redis::ErrorKind::io, "redis cluster: no master to probe");
  }
  sort_by_pressure(all.keys);
  if (all.keys.size() > options_.max_tracked) {
    for (std::size_t k = options_.max_tracked; k < all.keys.size(); ++k) {
      per_node_[all.keys[k].node]->forget(all.keys[k].key);
    }
    all.dropped += all.keys.size() - options_.max_tracked;
    all.keys.resize(options_.max_tracked);
  }
  all.unmatched_examples.assign(examples.begin(), examples.end());
  return all;
}

}  // namespace limitscope::probe
