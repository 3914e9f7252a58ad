#include "process/local_cluster.h"

#include <filesystem>

#include "core/common/clock.h"
#include "core/redis/cluster_topology.h"
#include "core/redis/connection.h"

namespace limitscope::redis {

namespace {

Result<Connection> connect(int port) {
  RedisUrl u;
  u.port = port;
  return Connection::open(u, {std::chrono::seconds(1), std::chrono::seconds(5)});
}

// Runs argv on the node at `port`. @return ok, or why not (the command and the node named)
Status must(int port, const std::vector<std::string>& argv) {
  auto c = connect(port);
  if (!c.ok()) return make_error(c.error().message);
  auto r = c->command(argv);
  if (!r.ok()) return make_error(argv[0] + " " + argv[1] + ": " + r.error().message);
  if (r->is_error()) {
    return make_error(argv[0] + " " + argv[1] + " on 127.0.0.1:" + std::to_string(port) + ": " +
                      r->str);
  }
  return {};
}

// Whether every node says cluster_state:ok and knows all `n` nodes. @return ok, or the first
// node that does not yet, and why
Status ready(const std::vector<std::unique_ptr<LocalRedisServer>>& nodes) {
  for (const auto& n : nodes) {
    const std::string node = "node 127.0.0.1:" + std::to_string(n->port());
    auto c = connect(n->port());
    if (!c.ok()) return make_error(node + ": " + c.error().message);
    auto info = c->command({"CLUSTER", "INFO"});
    if (!info.ok()) return make_error(node + ": CLUSTER INFO: " + info.error().message);
    if (info->str.find("cluster_state:ok") == std::string::npos)
      return make_error(node + " is not cluster_state:ok");
    if (info->str.find("cluster_known_nodes:" + std::to_string(nodes.size()) + "\r") ==
        std::string::npos) {
      return make_error(node + " does not know all " + std::to_string(nodes.size()) + " nodes");
    }
  }
  return {};
}

}  // namespace

Expected<std::unique_ptr<LocalRedisCluster>> LocalRedisCluster::start(Options options) {
  if (options.masters < 1) return make_error("local cluster: at least one master");
  std::unique_ptr<LocalRedisCluster> c(new LocalRedisCluster());
  c->dir_ = options.dir;
  for (int i = 0; i < options.masters; ++i) {
    LocalRedisServer::Options o;
    o.executable = options.executable;
    o.dir = options.dir + "/node" + std::to_string(i);
    o.extra_args = {"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"};
    o.max_port = 55535;  // the cluster bus listens on port + 10000
    auto s = LocalRedisServer::start(std::move(o));
    if (!s.ok()) return make_error("local cluster node " + std::to_string(i) + ": " + s.error());
    c->nodes_.push_back(std::move(s).value());
  }
  const int n = options.masters;
  for (int i = 0; i < n; ++i) {
    const int port = c->nodes_[static_cast<std::size_t>(i)]->port();
    const int first = kClusterSlotCount * i / n;
    const int last = kClusterSlotCount * (i + 1) / n - 1;
    // Distinct epochs, so the nodes need not settle a collision after they meet.
    for (const auto& argv : std::vector<std::vector<std::string>>{
             {"CLUSTER", "SET-CONFIG-EPOCH", std::to_string(i + 1)},
             {"CLUSTER", "ADDSLOTSRANGE", std::to_string(first), std::to_string(last)}}) {
      if (Status r = must(port, argv); !r.ok()) return make_error("local cluster: " + r.error());
    }
  }
  for (int i = 1; i < n; ++i) {
    Status r = must(c->nodes_[0]->port(),
                    {"CLUSTER", "MEET", "127.0.0.1",
                     std::to_string(c->nodes_[static_cast<std::size_t>(i)]->port())});
    if (!r.ok()) return make_error("local cluster: " + r.error());
  }
  SteadyClock& clock = SteadyClock::instance();
  CancelToken never;
  const Nanos deadline = clock.now() + std::chrono::seconds(20);
  Nanos pause = std::chrono::milliseconds(5);
  for (Status r = ready(c->nodes_); !r.ok(); r = ready(c->nodes_)) {
    if (clock.now() >= deadline)
      return make_error("local cluster: not ready within 20 s: " + r.error());
    clock.wait_until(clock.now() + pause, never);
    pause = std::min<Nanos>(pause * 2, std::chrono::milliseconds(100));
  }
  return c;
}

LocalRedisCluster::~LocalRedisCluster() {
  nodes_.clear();  // each node stops and removes its own directory
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string LocalRedisCluster::url() const {
  std::string u = "redis+cluster://";
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    u += (i == 0 ? "" : ",") + std::string("127.0.0.1:") + std::to_string(nodes_[i]->port());
  }
  return u;
}

}  // namespace limitscope::redis
