#pragma once
// Shared by the cluster tests: a cluster client and limiter on a test cluster, and rule names
// chosen so that their slots land on every master.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/common/clock.h"
#include "core/redis/cluster_client.h"
#include "core/redis/cluster_limiter.h"
#include "core/redis/redis_url.h"
#include "support/limit_params_builders.h"
#include "support/redis_cluster.h"

namespace limitscope::test {

inline redis::RedisUrl cluster_url(const RedisCluster& c) {
  auto u = redis::parse_redis_url(c.url());
  if (!u) throw std::runtime_error(u.error());
  return *u;
}

inline redis::ClusterOptions cluster_options(std::size_t connections = 1) {
  redis::ClusterOptions o;
  o.connections_per_node = connections;
  o.connect.command_timeout = std::chrono::seconds(5);
  o.connect.connect_timeout = std::chrono::seconds(1);
  // The default pool backoff grows to 5 s; tests that kill nodes want quicker reconnects.
  o.reconnect.max = std::chrono::milliseconds(200);
  return o;
}

/// What most cluster tests start with: a test cluster, the default key schema, a client on the
/// cluster (on the real clock) and the limiter deciding through that client.
struct ClusterRig {
  explicit ClusterRig(RedisCluster::Options options = {})
      : cluster(RedisCluster::start(std::move(options))) {}

  std::unique_ptr<RedisCluster> cluster;
  redis::KeySchema schema;
  redis::ClusterClient client{cluster_url(*cluster), cluster_options(), SteadyClock::instance()};
  redis::ClusterLimiter limiter{client, redis::RedisLimiter(schema)};
};

/// `per_master` rule names ("<stem>-<n>") for each master of `cluster`, master port → names.
inline std::map<int, std::vector<std::string>> rules_per_master(const RedisCluster& cluster,
                                                                const redis::KeySchema& schema,
                                                                const std::string& stem,
                                                                std::size_t per_master) {
  std::map<int, std::vector<std::string>> out;
  std::map<int, int> slot_owner;
  for (int n = 0; n < 100000; ++n) {
    const std::string rule = stem + "-" + std::to_string(n);
    const int port = cluster.master_port_of_slot(redis::rule_slot(schema, rule));
    auto& v = out[port];
    if (v.size() < per_master) v.push_back(rule);
    bool done = out.size() >= 3;
    for (const auto& [p, names] : out) done = done && names.size() >= per_master;
    if (done) return out;
  }
  throw std::runtime_error("no rule names found for every master");
}

}  // namespace limitscope::test
