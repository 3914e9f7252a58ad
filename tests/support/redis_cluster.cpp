#include "support/redis_cluster.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/common/clock.h"
#include "support/process.h"

namespace limitscope::test {

namespace {

redis::RedisUrl node_url(int port) {
  redis::RedisUrl u;
  u.port = port;
  return u;
}

}  // namespace

std::unique_ptr<RedisCluster> RedisCluster::start(Options options) {
  static std::atomic<int> count{0};
  std::unique_ptr<RedisCluster> c(new RedisCluster());
  const int n = options.masters * (1 + options.replicas);
  const int id = count.fetch_add(1);
  for (int i = 0; i < n; ++i) {
    redis::LocalRedisServer::Options o;
    o.dir = temp_path("cluster" + std::to_string(id) + "_" + std::to_string(i));
    o.extra_args = {"--cluster-enabled",      "yes",
                    "--cluster-config-file",  "nodes.conf",
                    "--cluster-node-timeout", std::to_string(options.node_timeout_ms)};
    o.extra_args.insert(o.extra_args.end(), options.extra_args.begin(), options.extra_args.end());
    o.max_port = 55535;  // the cluster bus listens on port + 10000
    auto s = redis::LocalRedisServer::start(std::move(o));
    if (!s) throw std::runtime_error("cluster node " + std::to_string(i) + ": " + s.error());
    c->nodes_.push_back(std::move(s).value());
  }
  std::string args = "--cluster create";
  for (int p : c->ports()) args += " 127.0.0.1:" + std::to_string(p);
  args += " --cluster-replicas " + std::to_string(options.replicas) + " --cluster-yes";
  const ProcessResult r = run_process("redis-cli", args);
  if (r.exit_code != 0) {
    throw std::runtime_error("redis-cli " + args + " failed (" + std::to_string(r.exit_code) +
                             "):\n" + r.out + r.err);
  }
  const bool ready = wait_for([&] {
    if (!c->all_ok()) return false;
    // Every node must also know every other one and the full slot map.
    for (int p : c->ports()) {
      auto conn = redis::Connection::open(node_url(p));
      if (!conn) return false;
      auto nodes = conn->command({"CLUSTER", "NODES"});
      if (!nodes) return false;
      const auto lines =
          static_cast<std::size_t>(std::count(nodes->str.begin(), nodes->str.end(), '\n'));
      if (lines < c->size()) return false;
      // A replica must have synced with its master, or a failover could not promote it.
      auto info = conn->command({"INFO", "replication"});
      if (!info) return false;
      if (info->str.find("role:slave") != std::string::npos &&
          info->str.find("master_link_status:up") == std::string::npos) {
        return false;
      }
    }
    return true;
  });
  if (!ready) throw std::runtime_error("the cluster did not reach cluster_state:ok within 20 s");
  return c;
}

RedisCluster::~RedisCluster() = default;  // each LocalRedisServer kills its process

std::vector<int> RedisCluster::ports() const {
  std::vector<int> out;
  for (const auto& n : nodes_) out.push_back(n->port());
  return out;
}

std::string RedisCluster::url() const {
  std::string u = "redis+cluster://";
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    u += (i == 0 ? "" : ",") + std::string("127.0.0.1:") + std::to_string(nodes_[i]->port());
  }
  return u;
}

redis::Connection RedisCluster::connect(int port) const {
  auto c =
      redis::Connection::open(node_url(port), {std::chrono::seconds(2), std::chrono::seconds(5)});
  if (!c) throw std::runtime_error(c.error().message);
  return std::move(c).value();
}

bool RedisCluster::all_ok() const {
  for (const auto& n : nodes_) {
    if (n->pid() <= 0) continue;
    auto conn = redis::Connection::open(node_url(n->port()));
    if (!conn) return false;
    auto info = conn->command({"CLUSTER", "INFO"});
    if (!info || info->str.find("cluster_state:ok") == std::string::npos) return false;
  }
  return true;
}

namespace {
// The reply to `argv` of the first running node of `nodes` that answers; nullopt when none does.
std::optional<redis::Value> first_answer(
    const std::vector<std::unique_ptr<redis::LocalRedisServer>>& nodes,
    const std::vector<std::string>& argv) {
  for (const auto& n : nodes) {
    if (n->pid() <= 0) continue;
    auto conn = redis::Connection::open(node_url(n->port()));
    if (!conn) continue;
    auto reply = conn->command(argv);
    if (reply) return std::move(reply).value();
  }
  return std::nullopt;
}
}  // namespace

std::vector<ClusterNodeLine> RedisCluster::nodes() const {
  const auto text = first_answer(nodes_, {"CLUSTER", "NODES"});
  if (!text) return {};
  std::vector<ClusterNodeLine> out;
  std::istringstream lines(text->str);
  std::string line;
  while (std::getline(lines, line)) {
    // <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slot> ...
    std::istringstream f(line);
    std::vector<std::string> w;
    for (std::string s; f >> s;) w.push_back(s);
    if (w.size() < 8) continue;
    ClusterNodeLine l;
    l.id = w[0];
    l.port = std::stoi(w[1].substr(w[1].rfind(':') + 1, w[1].find('@') - w[1].rfind(':') - 1));
    l.master = w[2].find("master") != std::string::npos;
    l.failed = (',' + w[2] + ',').find(",fail,") != std::string::npos;
    l.master_id = w[3] == "-" ? "" : w[3];
    for (std::size_t i = 8; i < w.size(); ++i) {
      if (w[i].starts_with("[")) continue;  // a slot being migrated
      const auto dash = w[i].find('-');
      l.slots += dash == std::string::npos
                     ? 1
                     : std::stoi(w[i].substr(dash + 1)) - std::stoi(w[i].substr(0, dash)) + 1;
    }
    out.push_back(l);
  }
  return out;
}

int RedisCluster::master_port_of_slot(int slot) const {
  const auto slots = first_answer(nodes_, {"CLUSTER", "SLOTS"});
  if (!slots) return 0;
  for (const auto& r : slots->elements) {
    if (r.elements.size() < 3) continue;
    if (slot >= r.elements[0].integer && slot <= r.elements[1].integer) {
      return static_cast<int>(r.elements[2].elements[1].integer);
    }
  }
  return 0;
}

std::string RedisCluster::node_id(int port) const {
  auto c = connect(port);
  auto id = c.command({"CLUSTER", "MYID"});
  if (!id) throw std::runtime_error(id.error().message);
  return id->str;
}

int RedisCluster::replica_of(int master_port) const {
  const auto lines = nodes();
  std::string master_id;
  for (const auto& n : lines) {
    if (n.port == master_port) master_id = n.id;
  }
  for (const auto& n : lines) {
    if (!master_id.empty() && n.master_id == master_id) return n.port;
  }
  return 0;
}

void RedisCluster::kill(int port) {
  for (auto& n : nodes_) {
    if (n->port() == port) n->kill();
  }
}

void RedisCluster::pause(int port) {
  for (auto& n : nodes_) {
    if (n->port() == port) n->pause();
  }
}

void RedisCluster::resume(int port) {
  for (auto& n : nodes_) {
    if (n->port() == port) n->resume();
  }
}

pid_t RedisCluster::pid(int port) const {
  for (const auto& n : nodes_) {
    if (n->port() == port) return n->pid();
  }
  return -1;
}

void RedisCluster::migrate_slot(int slot, int to_port, int keys_per_step,
                                const std::function<void()>& between_steps) {
  const int from_port = master_port_of_slot(slot);
  if (from_port == 0 || from_port == to_port) throw std::runtime_error("migrate_slot: bad source");
  auto from = connect(from_port);
  auto to = connect(to_port);
  const std::string s = std::to_string(slot);
  auto check = [](const redis::Result<redis::Value>& r, const char* what) {
    if (!r) throw std::runtime_error(std::string(what) + ": " + r.error().message);
  };
  // The documented order: importing on the target first, then migrating on the source.
  check(to.command({"CLUSTER", "SETSLOT", s, "IMPORTING", node_id(from_port)}),
        "SETSLOT IMPORTING");
  check(from.command({"CLUSTER", "SETSLOT", s, "MIGRATING", node_id(to_port)}),
        "SETSLOT MIGRATING");
  for (;;) {
    auto keys = from.command({"CLUSTER", "GETKEYSINSLOT", s, std::to_string(keys_per_step)});
    check(keys, "GETKEYSINSLOT");
    if (keys->elements.empty()) break;
    std::vector<std::string> argv{"MIGRATE", "127.0.0.1", std::to_string(to_port), "", "0",
                                  "5000",    "KEYS"};
    for (const auto& k : keys->elements) argv.push_back(k.str);
    check(from.command(argv), "MIGRATE");
    if (between_steps) between_steps();
  }
  const std::string to_id = node_id(to_port);
  check(to.command({"CLUSTER", "SETSLOT", s, "NODE", to_id}), "SETSLOT NODE (target)");
  check(from.command({"CLUSTER", "SETSLOT", s, "NODE", to_id}), "SETSLOT NODE (source)");
  // Tell the other masters too, so none answers with the old owner meanwhile.
  for (const auto& n : nodes()) {
    if (!n.master || n.port == from_port || n.port == to_port || n.failed) continue;
    auto other = connect(n.port);
    check(other.command({"CLUSTER", "SETSLOT", s, "NODE", to_id}), "SETSLOT NODE (other)");
  }
}

bool RedisCluster::wait_for(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  SteadyClock& clock = SteadyClock::instance();
  CancelToken never;
  const Nanos deadline = clock.now() + timeout;
  Nanos pause = std::chrono::milliseconds(5);
  while (clock.now() < deadline) {
    if (done()) return true;
    clock.wait_until(clock.now() + pause, never);
    pause = std::min<Nanos>(pause * 2, std::chrono::milliseconds(100));
  }
  return done();
}

}  // namespace limitscope::test
