#include "core/redis/cluster_client.h"

#include <algorithm>

#include "core/redis/key_schema.h"

namespace limitscope::redis {

namespace {

bool same_slots(const ClusterTopology& a, const ClusterTopology& b) {
  for (int s = 0; s < kClusterSlotCount; ++s) {
    const ClusterNode* x = a.master_of(s);
    const ClusterNode* y = b.master_of(s);
    if ((x == nullptr) != (y == nullptr) || (x != nullptr && !(*x == *y))) return false;
  }
  return true;
}

}  // namespace

RedisError cluster_unavailable(RedisError e, Nanos waited) {
  // The cluster could not serve the slot in time: an outage for the failure policy (io), not
  // an error reply about the caller's data.
  e.kind = ErrorKind::io;
  e.message +=
      " (still so after retrying for " +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()) +
      " ms)";
  return e;
}

ClusterClient::ClusterClient(RedisUrl url, ClusterOptions options, Clock& clock)
    : url_(std::move(url)), options_(options), clock_(clock) {
  if (url_.cluster_seeds.empty()) url_.cluster_seeds.push_back(ClusterSeed{url_.host, url_.port});
  if (options_.connections_per_node == 0) options_.connections_per_node = 1;
}

ConnectionPool& ClusterClient::pool_for(const ClusterNode& node) {
  std::lock_guard lock(mu_);
  auto& pool = pools_[node.address()];
  if (!pool) {
    PoolOptions po;
    po.size = options_.connections_per_node;
    po.connect = options_.connect;
    po.backoff = options_.reconnect;
    pool = std::make_unique<ConnectionPool>(url_.node(node.host, node.port), po, clock_);
  }
  return *pool;
}

Result<ConnectionPool::Lease> ClusterClient::lease(const ClusterNode& node) {
  return pool_for(node).acquire();
}

Result<bool> ClusterClient::read_map() {
  // Known masters first (their view is the freshest after a failover), then the seeds.
  std::vector<ClusterNode> candidates;
  {
    std::lock_guard lock(mu_);
    if (topology_) candidates = topology_->masters();
  }
  for (const ClusterSeed& s : url_.cluster_seeds) {
    ClusterNode n{s.host, s.port, ""};
    if (std::find(candidates.begin(), candidates.end(), n) == candidates.end())
      candidates.push_back(n);
  }
  std::string errors;
  for (const ClusterNode& node : candidates) {
    auto conn = lease(node);
    if (!conn) {
      errors += (errors.empty() ? "" : "; ") + conn.error().message;
      continue;
    }
    // CLUSTER SHARDS first (Redis 7+): the map with each node's health. A server that does not
    // know it (an "unknown subcommand" error), or a user whose ACL does not allow it (NOPERM),
    // gets CLUSTER SLOTS from then on.
    bool shards = !slots_only_;
    auto reply = (*conn)->command({"CLUSTER", shards ? "SHARDS" : "SLOTS"});
    if (shards && !reply &&
        ((reply.error().kind == ErrorKind::reply &&
          reply.error().message.find("nknown subcommand") != std::string::npos) ||
         (reply.error().kind == ErrorKind::auth &&
          reply.error().message.find("NOPERM") != std::string::npos))) {
      slots_only_ = true;
      shards = false;
      reply = (*conn)->command({"CLUSTER", "SLOTS"});
    }
    if (!reply) {
      if (reply.error().message.find("cluster support disabled") != std::string::npos) {
        return make_redis_error(ErrorKind::usage,
                                "redis " + node.address() +
                                    " is not a cluster node (cluster support disabled): use a "
                                    "redis:// URL for a single server");
      }
      errors += (errors.empty() ? "" : "; ") + reply.error().message;
      continue;
    }
    auto parsed = shards ? ClusterTopology::from_shards_reply(*reply, node.host)
                         : ClusterTopology::from_slots_reply(*reply, node.host);
    if (!parsed) {
      errors += (errors.empty() ? "" : "; ") + node.address() + ": " + parsed.error();
      continue;
    }
    auto fresh = std::make_shared<const ClusterTopology>(std::move(parsed).value());
    std::lock_guard lock(mu_);
    const bool changed = !topology_ || !same_slots(*topology_, *fresh);
    topology_ = std::move(fresh);
    ++stats_.refreshes;
    last_refresh_ = clock_.now();
    refreshed_once_ = true;
    return changed;
  }
  {
    std::lock_guard lock(mu_);
    last_refresh_ = clock_.now();
    refreshed_once_ = true;
  }
  return make_redis_error(ErrorKind::io, "redis cluster " + url_.redacted() +
                                             ": no node answered for the slot map: " + errors);
}

Result<void> ClusterClient::refresh() {
  std::lock_guard serial(refresh_mu_);
  auto r = read_map();
  if (!r) return r.error();
  return {};
}

bool ClusterClient::refresh_if_due() {
  std::lock_guard serial(refresh_mu_);
  {
    std::lock_guard lock(mu_);
    if (refreshed_once_ && clock_.now() - last_refresh_ < options_.min_refresh_interval)
      return false;
  }
  auto r = read_map();
  return r && *r;
}

Result<std::shared_ptr<const ClusterTopology>> ClusterClient::topology() {
  {
    std::lock_guard lock(mu_);
    if (topology_) return topology_;
  }
  std::lock_guard serial(refresh_mu_);
  {
    std::lock_guard lock(mu_);
    if (topology_) return topology_;  // another thread read it meanwhile
  }
  auto r = read_map();
  if (!r) return r.error();
  std::lock_guard lock(mu_);
  return topology_;
}

void ClusterClient::note(const ClusterError& e) {
  {
    std::lock_guard lock(mu_);
    switch (e.kind) {
      case ClusterErrorKind::moved:
        ++stats_.moved;
        break;
      case ClusterErrorKind::ask:
        ++stats_.ask;
        return;  // a one-shot detour: the map stays
      default:
        ++stats_.tryagain;
        break;
    }
  }
  if (e.kind == ClusterErrorKind::tryagain) return;
  refresh_if_due();
  if (e.kind == ClusterErrorKind::moved) {
    // The node that answered knows best: whatever the map read says, send the slot there.
    std::lock_guard lock(mu_);
    const ClusterNode* now_at = topology_ ? topology_->master_of(e.slot) : nullptr;
    if (topology_ && (now_at == nullptr || !(*now_at == e.node))) {
      topology_ =
          std::make_shared<const ClusterTopology>(topology_->with_slot_owner(e.slot, e.node));
    }
  }
}

bool ClusterClient::note_unreachable() {
  {
    std::lock_guard lock(mu_);
    ++stats_.unreachable;
  }
  return refresh_if_due();
}

bool ClusterClient::retry_pause(Backoff& backoff, Nanos& waited) {
  const Nanos delay = backoff.next_delay();
  if (waited + delay > options_.retry_budget) return false;
  CancelToken never;
  clock_.wait_until(clock_.now() + delay, never);
  waited += delay;
  return true;
}

Result<void> ClusterClient::run(int slot, const std::function<Result<void>(Connection&)>& op) {
  Backoff backoff = retry_backoff();
  Nanos waited{0};
  int hops = 0;
  std::optional<ClusterNode> ask_node;
  for (;;) {
    ClusterNode target;
    if (ask_node) {
      target = *ask_node;
    } else {
      auto topo = topology();
      if (!topo) return topo.error();
      const ClusterNode* m = (*topo)->master_of(slot);
      if (m == nullptr) {
        // No master serves the slot: a failover is under way, or the cluster is incomplete.
        if (refresh_if_due() || retry_pause(backoff, waited)) continue;
        return make_redis_error(ErrorKind::io, "redis cluster " + url_.redacted() + ": slot " +
                                                   std::to_string(slot) +
                                                   " is served by no master");
      }
      target = *m;
    }
    Result<void> r;
    {
      auto conn = lease(target);
      if (!conn) {
        // Unreachable: a replica may have been promoted. Retry at once if the map moved the
        // slot; otherwise the caller's failure policy decides (no waiting on a dead node).
        if (!ask_node && note_unreachable()) {
          auto topo = topology();
          const ClusterNode* now_at = topo ? (*topo)->master_of(slot) : nullptr;
          if (now_at != nullptr && !(*now_at == target)) continue;
        }
        return conn.error();
      }
      (*conn)->set_asking(ask_node.has_value());
      r = op(**conn);
      (*conn)->set_asking(false);
    }  // the lease goes back before any map read, which may need this node's connection
    if (r.ok()) return r;
    const auto ce = parse_cluster_error(r.error().message, target.host);
    if (!ce) {
      if (r.error().breaks_connection()) note_unreachable();
      return r;
    }
    ask_node.reset();
    note(*ce);
    if (ce->kind == ClusterErrorKind::moved || ce->kind == ClusterErrorKind::ask) {
      if (++hops > options_.max_redirects) {
        return make_redis_error(ErrorKind::io, "redis cluster: slot " + std::to_string(slot) +
                                                   ": more than " +
                                                   std::to_string(options_.max_redirects) +
                                                   " redirections, the last: " + r.error().message);
      }
      if (ce->kind == ClusterErrorKind::ask) ask_node = ce->node;
      continue;
    }
    if (!retry_pause(backoff, waited)) return cluster_unavailable(r.error(), waited);
  }
}

Result<void> ClusterClient::run_for_key(std::string_view key,
                                        const std::function<Result<void>(Connection&)>& op) {
  return run(cluster_slot(key), op);
}

ClusterStats ClusterClient::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace limitscope::redis
