#include "core/redis/endpoint.h"

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

Result<Unit> Endpoint::run_for_key(std::string_view key, const Op& op) {
  if (cluster_) return cluster_->run_for_key(key, op);
  auto lease = pool_->acquire();
  if (!lease) return lease.error();
  return op(**lease);
}

Result<Unit> Endpoint::run_for_rule(const KeySchema& schema, std::string_view rule, const Op& op) {
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

Result<std::vector<NodeResult>> Endpoint::on_each_master(const NodeOp& op) {
  std::vector<NodeResult> out;
  if (!cluster_) {
    const std::string node = server_address(url_);
    Result<Unit> r = Unit{};
    {
      auto lease = pool_->acquire();
      r = lease ? op(**lease, node) : Result<Unit>(lease.error());
    }
    out.push_back({node, r ? r : Result<Unit>(on_node(node, r.error()))});
    return out;
  }
  auto topo = cluster_->topology();
  if (!topo) return topo.error();
  for (const ClusterNode& m : (*topo)->masters()) {
    const std::string node = m.address();
    Result<Unit> r = Unit{};
    {
      auto lease = cluster_->lease(m);
      r = lease ? op(**lease, node) : Result<Unit>(lease.error());
    }  // the lease goes back before a map read, which may need this node's connection
    if (!r && r.error().breaks_connection()) cluster_->note_unreachable();
    out.push_back({node, r ? r : Result<Unit>(on_node(node, r.error()))});
  }
  return out;
}

Result<std::int64_t> Endpoint::server_time_us(std::string_view key) {
  return on_key<std::int64_t>(key, [](Connection& c) { return read_server_time_us(c); });
}

std::unique_ptr<DecisionBackend> Endpoint::decisions(RedisLimiter limiter) {
  if (cluster_) return std::make_unique<ClusterLimiter>(*cluster_, std::move(limiter));
  return std::make_unique<PooledDecisions>(*pool_, std::move(limiter));
}

}  // namespace limitscope::redis
