#include "app/cli/bench_redis_cluster.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/cli/json_output.h"
#include "app/options/args.h"
#include "core/limiter/limit_params.h"
#include "core/redis/cluster_limiter.h"
#include "core/redis/server_info.h"
#include "process/local_cluster.h"
#include "process/local_server.h"

namespace limitscope::cli {

namespace {

constexpr int kRulesPerMaster = 4;

struct Figures {
  long long decisions = 0;
  long long errors = 0;
  double seconds = 0;
  redis::ServerInfo server;  // summed over the target's servers

  double per_second() const { return seconds > 0 ? static_cast<double>(decisions) / seconds : 0; }
  double per_cpu_second() const {
    return server.cpu_seconds > 0 ? static_cast<double>(decisions) / server.cpu_seconds : 0;
  }
  double server_us_per_decision() const {
    // FCALL of the function library, or EVALSHA where Functions are missing.
    std::uint64_t usec = 0;
    for (const char* command : {"fcall", "evalsha"}) {
      if (auto it = server.commands.find(command); it != server.commands.end())
        usec += it->second.usec;
    }
    return decisions == 0 ? 0 : static_cast<double>(usec) / static_cast<double>(decisions);
  }
  nlohmann::json json() const {
    return {{"decisions", decisions},
            {"errors", errors},
            {"seconds", seconds},
            {"decisions_per_s", per_second()},
            {"server_cpu_s", server.cpu_seconds},
            {"decisions_per_server_cpu_s", per_cpu_second()},
            {"server_us_per_decision", server_us_per_decision()}};
  }
};

// INFO of every server of a target, summed.
Expected<redis::ServerInfo> info_sum(const std::vector<int>& ports) {
  redis::ServerInfo sum;
  for (int port : ports) {
    redis::RedisUrl u;
    u.port = port;
    auto c = redis::Connection::open(u, {std::chrono::seconds(2), std::chrono::seconds(10)});
    if (!c) return make_error(c.error().message);
    auto text = c->command({"INFO", "everything"});
    if (!text) return make_error(text.error().message);
    auto info = redis::parse_server_info(text->str);
    if (!info) return make_error(info.error());
    sum.cpu_seconds += info->cpu_seconds;
    for (const auto& [name, s] : info->commands) {
      sum.commands[name].calls += s.calls;
      sum.commands[name].usec += s.usec;
    }
  }
  return sum;
}

// One round trip of client `client`, iteration `i`: `requests` decisions of one rule.
using Trip = std::function<Expected<std::vector<bool>>(
    long long client, const std::string& rule, const std::vector<redis::DecideRequest>& requests)>;

Expected<Figures> run_phase(const ClusterBenchSettings& s, const std::vector<int>& ports,
                            const std::vector<std::string>& rules, long long per_call,
                            const Trip& trip) {
  auto before = info_sum(ports);
  if (!before) return make_error(before.error());
  SteadyClock& clock = SteadyClock::instance();
  const Nanos start = clock.now();
  const Nanos stop = start + s.duration;
  std::atomic<long long> decisions{0}, errors{0};
  std::vector<std::thread> threads;
  for (long long c = 0; c < s.clients; ++c) {
    threads.emplace_back([&, c] {
      long long made = 0, failed = 0;
      std::vector<redis::DecideRequest> requests(static_cast<std::size_t>(s.pipeline * per_call));
      for (long long i = 0; clock.now() < stop; ++i) {
        // Each round trip decides for one rule (one shard); clients walk the rules in turn.
        const std::string& rule =
            rules[static_cast<std::size_t>((c + i) % static_cast<long long>(rules.size()))];
        for (std::size_t j = 0; j < requests.size(); ++j) {
          requests[j].key =
              "k" + std::to_string((c * 7919 + i * 31 + static_cast<long long>(j)) % s.keys);
        }
        auto got = trip(c, rule, requests);
        if (!got) {
          failed += static_cast<long long>(requests.size());
          continue;
        }
        for (bool ok : *got) ok ? ++made : ++failed;
      }
      decisions += made;
      errors += failed;
    });
  }
  for (auto& t : threads) t.join();
  Figures f;
  f.seconds = static_cast<double>((clock.now() - start).count()) / 1e9;
  auto after = info_sum(ports);
  if (!after) return make_error(after.error());
  f.server = redis::difference(*after, *before);
  f.decisions = decisions;
  f.errors = errors;
  return f;
}

std::vector<bool> outcome(
    const redis::Result<std::vector<redis::Result<redis::RedisDecision>>>& r) {
  std::vector<bool> out;
  if (!r) return out;
  for (const auto& d : *r) out.push_back(d.ok());
  return out;
}

}  // namespace

int bench_redis_cluster(const ClusterBenchSettings& s) {
  const std::string dir = "/tmp/limitscope-bench-cluster-" + std::to_string(getpid());
  redis::LocalRedisServer::Options so;
  so.dir = dir + "-single";
  auto single = redis::LocalRedisServer::start(so);
  if (!single) return usage_error("bench-redis", single.error());
  redis::LocalRedisCluster::Options co;
  co.dir = dir;
  auto cluster = redis::LocalRedisCluster::start(co);
  if (!cluster) return usage_error("bench-redis", cluster.error());
  auto url = redis::parse_redis_url((*cluster)->url());
  if (!url) return usage_error("bench-redis", url.error());
  redis::ClusterOptions opts;
  opts.connections_per_node = static_cast<std::size_t>(s.clients);
  opts.connect = {std::chrono::seconds(2), std::chrono::seconds(5)};
  redis::ClusterClient client(*url, opts, SteadyClock::instance());
  auto topo = client.topology();
  if (!topo) return usage_error("bench-redis", topo.error().message);
  std::vector<int> cluster_ports;
  for (const auto& n : (*cluster)->nodes()) cluster_ports.push_back(n->port());
  const std::vector<int> single_ports{(*single)->port()};

  // kRulesPerMaster rules on each master, so every shard gets its share of the load.
  auto pick_rules = [&](const std::string& stem) {
    std::map<std::string, int> per_master;
    std::vector<std::string> rules;
    for (int n = 0;
         rules.size() < static_cast<std::size_t>(kRulesPerMaster) * (*topo)->masters().size();
         ++n) {
      const std::string rule = stem + std::to_string(n);
      const auto* m = (*topo)->master_of(redis::rule_slot(s.schema, rule));
      if (m != nullptr && per_master[m->address()]++ < kRulesPerMaster) rules.push_back(rule);
    }
    return rules;
  };
  redis::RedisUrl single_url;
  single_url.port = (*single)->port();
  auto admin =
      redis::Connection::open(single_url, {std::chrono::seconds(2), std::chrono::seconds(10)});
  if (!admin) return usage_error("bench-redis", admin.error().message);
  struct Plan {
    std::string name;
    std::string algorithm;
    long long per_call;
    std::vector<std::string> rules;
  };
  std::vector<Plan> plans{{"token_bucket", "token-bucket", 1, pick_rules("bench-ctb-")},
                          {"gcra_batch", "gcra", s.per_call, pick_rules("bench-cgcra-")}};
  for (const Plan& p : plans) {
    for (const std::string& rule : p.rules) {
      // 100 tokens refilled at 1000/s per key: a realistic mix of admits and refusals.
      LimitParams lp;
      lp.algorithm = *parse_algorithm(p.algorithm);
      lp.capacity = 100;
      lp.refill = Rate{1000, std::chrono::seconds(1)};
      const redis::ChangeInfo who{"bench-redis", "", std::nullopt};
      auto a = redis::set_config(*admin, s.schema, rule, redis::single_limit(lp), who);
      auto b = redis::set_config(client, s.schema, rule, redis::single_limit(lp), who);
      if (!a || !b) return usage_error("bench-redis", (!a ? a.error() : b.error()).message);
    }
  }

  std::vector<redis::Connection> conns;
  for (long long c = 0; c < s.clients; ++c) {
    auto conn =
        redis::Connection::open(single_url, {std::chrono::seconds(2), std::chrono::seconds(5)});
    if (!conn) return usage_error("bench-redis", conn.error().message);
    conns.push_back(std::move(conn).value());
  }
  const redis::RedisLimiter limiter(s.schema);
  redis::ClusterLimiter cluster_limiter(client, redis::RedisLimiter(s.schema));

  nlohmann::json j;
  j["masters"] = cluster_ports.size();
  j["clients"] = s.clients;
  j["pipeline"] = s.pipeline;
  j["keys"] = s.keys;
  j["duration_s"] = static_cast<double>(s.duration.count()) / 1e9;
  long long errors = 0;
  std::vector<std::tuple<std::string, Figures, Figures>> rows;
  for (const Plan& p : plans) {
    const auto per_call = static_cast<std::size_t>(p.per_call);
    std::cerr << "bench-redis: " << p.name << " on one server ...\n";
    auto one =
        run_phase(s, single_ports, p.rules, p.per_call,
                  [&](long long c, const std::string& rule,
                      const std::vector<redis::DecideRequest>& r) -> Expected<std::vector<bool>> {
                    return outcome(limiter.decide_batch(conns[static_cast<std::size_t>(c)], rule, r,
                                                        per_call));
                  });
    if (!one) return usage_error("bench-redis", one.error());
    std::cerr << "bench-redis: " << p.name << " on the cluster ...\n";
    auto many =
        run_phase(s, cluster_ports, p.rules, p.per_call,
                  [&](long long, const std::string& rule,
                      const std::vector<redis::DecideRequest>& r) -> Expected<std::vector<bool>> {
                    return outcome(cluster_limiter.decide_batch(rule, r, per_call));
                  });
    if (!many) return usage_error("bench-redis", many.error());
    errors += one->errors + many->errors;
    const double ratio =
        one->per_cpu_second() > 0 ? many->per_cpu_second() / one->per_cpu_second() : 0;
    j["phases"][p.name] = {{"single", one->json()},
                           {"cluster", many->json()},
                           {"cluster_vs_single_decisions_per_server_cpu_s", ratio},
                           {"within_20_percent", ratio >= 0.8}};
    rows.emplace_back(p.name, *one, *many);
  }
  if (s.json) {
    std::cout << json_text(j, 2) << "\n";
  } else {
    std::printf("%-14s %-8s %14s %12s %18s %14s\n", "phase", "target", "decisions/s",
                "server CPU s", "decisions/CPU-s", "server us/dec");
    for (const auto& [name, one, many] : rows) {
      for (const auto& [target, f] : {std::pair<const char*, const Figures&>{"single", one},
                                      std::pair<const char*, const Figures&>{"cluster", many}}) {
        std::printf("%-14s %-8s %14.0f %12.2f %18.0f %14.2f\n", name.c_str(), target,
                    f.per_second(), f.server.cpu_seconds, f.per_cpu_second(),
                    f.server_us_per_decision());
      }
      const double ratio =
          one.per_cpu_second() > 0 ? many.per_cpu_second() / one.per_cpu_second() : 0;
      std::printf("%-14s cluster / single decisions per server-CPU-second: %.2f (target >= 0.80)\n",
                  name.c_str(), ratio);
    }
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace limitscope::cli
