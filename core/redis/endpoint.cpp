#include "core/redis/endpoint.h"

#include <map>

#include "core/redis/cluster_limiter.h"
#include "core/redis/decision_backend.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_limiter.h"

namespace limitscope::redis {
namespace {

PoolOptions pool_options(const EndpointOptions& o) {
  PoolOptions po;
  po.size = std::max<std::size_t>(o.connections, 1);
  po.connect = o.connect;
  po.backoff = o.reconnect;
  return po;
}

ClusterOptions cluster_options(const EndpointOptions& o) {
  ClusterOptions co;
  co.connections_per_node = std::max<std::size_t>(o.connections, 1);
  co.connect = o.connect;
  co.reconnect = o.reconnect;
  if (o.retry_budget) co.retry_budget = *o.retry_budget;
  return co;
}

RedisError on_node(const std::string& node, RedisError e) {
  e.message = "node " + node + ": " + e.message;
  return e;
}

}  // namespace

std::string server_address(const RedisUrl& url) {
  if (!url.unix_path.empty()) return url.unix_path;
  return ClusterNode{url.host, url.port, {}}.address();
}

Endpoint::Endpoint(RedisUrl url, EndpointOptions options, Clock& clock) : url_(std::move(url)) {
  if (url_.cluster()) {
    cluster_ = std::make_unique<ClusterClient>(url_, cluster_options(options), clock);
  } else {
    pool_ = std::make_unique<ConnectionPool>(url_, pool_options(options), clock);
  }
}

Endpoint::~Endpoint() = default;

Result<void> Endpoint::run_for_key(std::string_view key, const Op& op) {
  if (cluster_) return cluster_->run_for_key(key, op);
  auto lease = pool_->acquire();
  if (!lease) return lease.error();
  return op(**lease);
}

Result<void> Endpoint::run_for_rule(const KeySchema& schema, std::string_view rule, const Op& op) {
  if (cluster_) return cluster_->run(rule_slot(schema, rule), op);
  auto lease = pool_->acquire();
  if (!lease) return lease.error();
  return op(**lease);
}

Result<std::vector<std::string>> Endpoint::masters() {
  if (!cluster_) return std::vector<std::string>{server_address(url_)};
  auto topo = cluster_->topology();
  if (!topo) return topo.error();
  std::vector<std::string> out;
  for (const ClusterNode& m : (*topo)->masters()) out.push_back(m.address());
  return out;
}

int Endpoint::covered_slots() {
  if (!cluster_) return kClusterSlotCount;
  auto topo = cluster_->topology();
  return topo ? (*topo)->covered_slots() : 0;
}

NodeResult Endpoint::on_server(const NodeOp& op) {
  const std::string node = server_address(url_);
  Result<void> r;
  {
    auto lease = pool_->acquire();
    r = lease ? op(**lease, node) : Result<void>(lease.error());
  }
  return {node, r.ok() ? r : Result<void>(on_node(node, r.error()))};
}

NodeResult Endpoint::on_master(const ClusterNode& m, const NodeOp& op) {
  const std::string node = m.address();
  Result<void> r;
  {
    auto lease = cluster_->lease(m);
    r = lease ? op(**lease, node) : Result<void>(lease.error());
  }  // the lease goes back before a map read, which may need this node's connection
  if (!r.ok() && r.error().breaks_connection()) cluster_->note_unreachable();
  return {node, r.ok() ? r : Result<void>(on_node(node, r.error()))};
}

Result<std::vector<NodeResult>> Endpoint::on_each_master(const NodeOp& op) {
  if (!cluster_) return std::vector<NodeResult>{on_server(op)};
  auto topo = cluster_->topology();
  if (!topo) return topo.error();
  std::vector<NodeResult> out;
  for (const ClusterNode& m : (*topo)->masters()) out.push_back(on_master(m, op));
  return out;
}

Result<std::vector<NodeResult>> Endpoint::on_masters_of(const std::vector<std::string>& keys,
                                                        const KeysOp& op,
                                                        std::vector<std::string>& unserved) {
  if (!cluster_) {
    return std::vector<NodeResult>{
        on_server([&](Connection& c, const std::string& node) { return op(c, node, keys); })};
  }
  auto topo = cluster_->topology();
  if (!topo) return topo.error();
  std::map<std::string, std::pair<ClusterNode, std::vector<std::string>>> by_node;
  for (const std::string& key : keys) {
    const ClusterNode* owner = (*topo)->master_of(cluster_slot(key));
    if (owner == nullptr) {
      unserved.push_back(key);
      continue;
    }
    auto& part = by_node[owner->address()];
    part.first = *owner;
    part.second.push_back(key);
  }
  std::vector<NodeResult> out;
  for (const auto& [address, part] : by_node) {
    out.push_back(on_master(part.first, [&](Connection& c, const std::string& node) {
      return op(c, node, part.second);
    }));
  }
  return out;
}

bool Endpoint::note_redirect(std::string_view error, const std::string& node) {
  if (!cluster_) return false;
  std::string host = node.substr(0, node.rfind(':'));
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  const auto ce = parse_cluster_error(error, host);
  if (!ce) return false;
  cluster_->note(*ce);
  return true;
}

Result<std::int64_t> Endpoint::server_time_us(std::string_view key) {
  return on_key<std::int64_t>(key, [](Connection& c) { return read_server_time_us(c); });
}

std::unique_ptr<DecisionBackend> Endpoint::decisions(RedisLimiter limiter) {
  if (cluster_) return std::make_unique<ClusterLimiter>(*cluster_, std::move(limiter));
  return std::make_unique<PooledDecisions>(*pool_, std::move(limiter));
}

}  // namespace limitscope::redis
