#include "core/probe/cluster_probe.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string_view>
#include <thread>

#include "core/probe/own_schema.h"
#include "core/redis/cluster_topology.h"
#include "core/redis/key_schema.h"

namespace limitscope::probe {

namespace {

/// One master's part of a refresh, run on its own thread.
struct NodeRun {
  const redis::ClusterNode* master = nullptr;
  RedisProbe* probe = nullptr;
  redis::Result<ProbeSnapshot> snap = ProbeSnapshot{};
};

void probe_node(redis::ClusterClient& cluster, NodeRun& run, bool full_pass) {
  auto conn = cluster.lease(*run.master);
  if (!conn) {
    run.snap = conn.error();
    return;
  }
  (*conn)->set_asking(true);
  run.snap = full_pass ? run.probe->probe_all(**conn) : run.probe->refresh(**conn);
  (*conn)->set_asking(false);
}  // the lease goes back before a map read, which may need this node's connection

/// sort_by_pressure's order: whether `a` comes before `b` (ranks given, computed once).
bool before(std::int64_t rank_a, const KeyReading& a, std::int64_t rank_b, const KeyReading& b) {
  if (rank_a != rank_b) return rank_a > rank_b;
  if (a.pressure_rose_us != b.pressure_rose_us) return a.pressure_rose_us > b.pressure_rose_us;
  return a.key < b.key;
}

/// Moves the readings of `lists`, each in sort_by_pressure's order (as a master's probe hands
/// them out), into `out` in that order: a merge, one comparison of heads per reading.
void merge_by_pressure(std::vector<std::vector<KeyReading>*>& lists, std::vector<KeyReading>& out) {
  std::size_t total = 0;
  for (const auto* l : lists) total += l->size();
  out.clear();
  out.reserve(total);
  std::vector<std::size_t> at(lists.size(), 0);
  std::vector<std::int64_t> rank(lists.size(), 0);
  for (std::size_t i = 0; i < lists.size(); ++i)
    if (!lists[i]->empty()) rank[i] = pressure_rank(lists[i]->front());
  while (out.size() < total) {
    std::size_t best = lists.size();
    for (std::size_t i = 0; i < lists.size(); ++i) {
      if (at[i] == lists[i]->size()) continue;
      if (best == lists.size() ||
          before(rank[i], (*lists[i])[at[i]], rank[best], (*lists[best])[at[best]]))
        best = i;
    }
    out.push_back(std::move((*lists[best])[at[best]]));
    if (++at[best] < lists[best]->size()) rank[best] = pressure_rank((*lists[best])[at[best]]);
  }
}

}  // namespace

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

void ClusterProbe::recycle(std::vector<KeyReading> readings) {
  give_back(readings);
  readings.clear();
  merged_ = std::move(readings);
}

void ClusterProbe::give_back(std::span<KeyReading> readings) {
  // Counted first, so each reading (a dozen strings) moves once into a list of its size, not
  // again at each growth of a vector; the last master looked up is tried first.
  std::vector<RedisProbe*> probes;
  std::vector<std::string_view> addresses;
  for (const auto& [address, probe] : per_node_) {
    probes.push_back(probe.get());
    addresses.push_back(address);
  }
  std::vector<std::size_t> node_of(readings.size(), probes.size());
  std::vector<std::size_t> count(probes.size(), 0);
  std::size_t last = 0;
  for (std::size_t i = 0; i < readings.size(); ++i) {
    const std::string& node = readings[i].node;
    if (last >= addresses.size() || addresses[last] != node) {
      last = static_cast<std::size_t>(std::find(addresses.begin(), addresses.end(), node) -
                                      addresses.begin());
    }
    if (last == addresses.size()) continue;  // a master gone since (failover)
    node_of[i] = last;
    ++count[last];
  }
  std::vector<std::vector<KeyReading>> spare(probes.size());
  for (std::size_t n = 0; n < probes.size(); ++n) spare[n].reserve(count[n]);
  for (std::size_t i = 0; i < readings.size(); ++i)
    if (node_of[i] < probes.size()) spare[node_of[i]].push_back(std::move(readings[i]));
  for (std::size_t n = 0; n < probes.size(); ++n)
    if (!spare[n].empty()) probes[n]->recycle(std::move(spare[n]));
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
  const std::size_t masters = (*topo)->masters().size();
  std::optional<ScanBudgetOptions> share;
  if (options_.adaptive_scan) share = ScanBudget::split(*options_.adaptive_scan, masters);
  for (const redis::ClusterNode& m : (*topo)->masters()) {
    auto it = per_node_.find(m.address());
    if (it != per_node_.end()) {
      current[m.address()] = std::move(it->second);
      if (share) current[m.address()]->reshape_scan(*share);  // the same share: no change
      continue;
    }
    ProbeOptions o = options_;
    o.node = m.address();
    o.adaptive_scan = share;
    current[m.address()] = std::make_unique<RedisProbe>(profiles_, std::move(o));
  }
  per_node_ = std::move(current);

  // Every master at once: one thread per master but the first, which runs on this one.
  std::vector<NodeRun> runs;
  for (const redis::ClusterNode& m : (*topo)->masters())
    runs.push_back({&m, per_node_[m.address()].get(), ProbeSnapshot{}});
  {
    std::vector<std::jthread> workers;
    for (std::size_t i = 1; i < runs.size(); ++i)
      workers.emplace_back(probe_node, std::ref(cluster), std::ref(runs[i]), full_pass);
    if (!runs.empty()) probe_node(cluster, runs.front(), full_pass);
  }  // joined

  ProbeSnapshot all;
  all.discovery_complete = true;
  std::set<std::string> examples;
  std::optional<redis::RedisError> last_error;
  std::vector<std::vector<KeyReading>*> lists;
  for (NodeRun& run : runs) {
    const redis::ClusterNode& m = *run.master;
    const std::string address = m.address();
    RedisProbe& probe = *run.probe;
    redis::Result<ProbeSnapshot>& snap = run.snap;
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
    all.server_time_us = std::max(all.server_time_us, snap->server_time_us);
    all.unmatched += snap->unmatched;
    all.discovery_complete = all.discovery_complete && snap->discovery_complete;
    all.scanned += snap->scanned;
    all.scan_calls += snap->scan_calls;
    all.scan_budget += snap->scan_budget;
    all.discovery_cpu_ns += snap->discovery_cpu_ns;
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
    // The readings stay in the probe's order; the ones moving leave the list.
    std::size_t kept = 0;
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
      if (&snap->keys[kept] != &k) snap->keys[kept] = std::move(k);
      ++kept;
    }
    snap->keys.resize(kept);
    lists.push_back(&snap->keys);
    for (auto& e : snap->unmatched_examples) {
      if (examples.size() < 20) examples.insert(std::move(e));
    }
  }
  if (lists.empty()) {
    if (last_error) return *last_error;
    return redis::make_redis_error(redis::ErrorKind::io, "redis cluster: no master to probe");
  }
  all.keys = std::move(merged_);
  merged_ = {};
  merge_by_pressure(lists, all.keys);
  if (all.keys.size() > options_.max_tracked) {
    const auto over = std::span<KeyReading>(all.keys).subspan(options_.max_tracked);
    for (const KeyReading& k : over) per_node_[k.node]->forget(k.key);
    all.dropped += over.size();
    give_back(over);  // their memory serves the next refresh's readings
    all.keys.resize(options_.max_tracked);
  }
  all.unmatched_examples.assign(examples.begin(), examples.end());
  return all;
}

}  // namespace limitscope::probe
