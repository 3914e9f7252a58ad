#include "app/cli/bench_probe_cluster.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "app/cli/bench_probe_dashboard.h"
#include "app/cli/bench_probe_own.h"
#include "app/cli/json_output.h"
#include "app/options/args.h"
#include "core/redis/cluster_limiter.h"
#include "core/redis/server_info.h"
#include "process/local_cluster.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "bench-probe";

}  // namespace

int bench_probe_cluster(const ClusterProbeBench& b) {
  redis::LocalRedisCluster::Options co;
  co.dir = "/tmp/limitscope-bench-probe-cluster-" + std::to_string(getpid());
  auto cluster = redis::LocalRedisCluster::start(co);
  if (!cluster) return usage_error(kName, cluster.error());
  auto url = redis::parse_redis_url((*cluster)->url());
  if (!url) return usage_error(kName, url.error());
  redis::ClusterOptions opts;
  opts.connect = {std::chrono::seconds(2), std::chrono::seconds(30)};
  redis::ClusterClient client(*url, opts, SteadyClock::instance());
  auto topo = client.topology();
  if (!topo) return usage_error(kName, topo.error().message);
  const redis::KeySchema schema;

  // One rule per master ("bench-<n>"), and a connection to each master for seeding and CPU.
  std::vector<std::string> rules;
  std::vector<redis::Connection> masters;
  std::map<std::string, std::size_t> master_index;  // address → index in masters
  std::vector<std::size_t> rule_master;
  for (int n = 0; rules.size() < (*topo)->masters().size(); ++n) {
    const std::string rule = "bench-" + std::to_string(n);
    const redis::ClusterNode* m = (*topo)->master_of(redis::rule_slot(schema, rule));
    if (m == nullptr || master_index.count(m->address()) > 0) continue;
    redis::RedisUrl node;
    node.host = m->host;
    node.port = m->port;
    auto c = redis::Connection::open(node, opts.connect);
    if (!c) return usage_error(kName, c.error().message);
    master_index[m->address()] = masters.size();
    masters.push_back(std::move(*c));
    rules.push_back(rule);
    rule_master.push_back(masters.size() - 1);
    auto set = redis::set_config(client, schema, rule, redis::single_limit(own_bench_params()),
                                 redis::ChangeInfo{"bench-probe", "seed", std::nullopt});
    if (!set) return usage_error(kName, set.error().message);
  }
  // Key i belongs to rule i mod 3, so the keys spread evenly over the shards.
  auto rule_of = [&](long long i) {
    return static_cast<std::size_t>(i % static_cast<long long>(rules.size()));
  };
  const double now_us = static_cast<double>(SteadyClock::instance().wall().count() / 1000);
  std::vector<redis::CommandBatch> seed(masters.size());
  for (long long i = 0; i < b.keys; ++i) {
    const std::size_t r = rule_of(i);
    redis::CommandBatch& batch = seed[rule_master[r]];
    batch.add(own_seed_command(schema, rules[r], i, now_us));
    if (batch.size() == 10000 || i + 1 == b.keys) {
      for (std::size_t m = 0; m < masters.size(); ++m) {
        if (seed[m].size() == 0) continue;
        if (auto done = masters[m].pipeline(seed[m]); !done)
          return usage_error(kName, done.error().message);
        seed[m].clear();
      }
    }
  }

  redis::ClusterLimiter limiter(client, redis::RedisLimiter(schema));
  std::map<std::string, long long> index_of;  // state key → i, for the emptied keys
  DashboardRunOptions d;
  d.url = (*cluster)->url();
  d.match = schema.prefix() + "{bench-*}:s:free-*";
  d.keys = b.keys;
  d.seconds = b.seconds;
  d.emptied = b.emptied;
  d.seed = b.seed;
  d.pressure_index = b.pressure_index;
  d.key_name = [&](long long i) {
    std::string key = schema.state_key(rules[rule_of(i)], own_label(i));
    index_of[key] = i;
    return key;
  };
  d.empty = [&](const std::string& key) -> Status {
    const long long i = index_of.at(key);
    auto done = limiter.decide_batch(rules[rule_of(i)], own_drain_burst(own_label(i)), 64);
    if (!done) return make_error(done.error().message);
    for (const auto& r : *done) {
      if (!r) return make_error(r.error().message);
    }
    return {};
  };
  d.server_cpu = [&]() -> Expected<double> {
    double total = 0;
    for (auto& m : masters) {
      auto text = m.command({"INFO", "cpu"});
      if (!text) return make_error(text.error().message);
      auto info = redis::parse_server_info(text->str);
      if (!info) return make_error(info.error());
      total += info->cpu_seconds;
    }
    return total;
  };
  auto r = run_dashboard(masters.front(), d);
  if (!r) return usage_error(kName, r.error());
  nlohmann::json j{{"keys", b.keys},
                   {"schema", "own"},
                   {"cluster", true},
                   {"masters", masters.size()},
                   {"pressure_index", b.pressure_index},
                   {"dashboard", dashboard_json(*r, b.emptied)}};
  if (b.json) {
    std::cout << json_text(j, 2) << "\n";
    return 0;
  }
  std::printf("%lld keys on a %zu-master cluster (one rule per master)\n", b.keys, masters.size());
  print_dashboard(*r, b.emptied);
  return 0;
}

}  // namespace limitscope::cli
