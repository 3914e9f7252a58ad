#include "core/redis/cluster_topology.h"

#include <algorithm>
#include <charconv>

namespace limitscope::redis {

namespace {

std::optional<int> to_int(std::string_view s, int lo, int hi) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || v < lo || v > hi)
    return std::nullopt;
  return v;
}

std::optional<int> int_of(const Value& v, int lo, int hi) {
  const auto i = v.as_integer();
  if (!i || *i < lo || *i > hi) return std::nullopt;
  return static_cast<int>(*i);
}

// [host, port, id?, metadata?] of one node in a CLUSTER SLOTS range.
std::optional<ClusterNode> node_of(const Value& v, const std::string& asked_host) {
  if (!v.is_array() || v.elements.size() < 2 || !v.elements[0].is_string()) return std::nullopt;
  const auto port = int_of(v.elements[1], 1, 65535);
  if (!port) return std::nullopt;
  ClusterNode n;
  n.host = v.elements[0].str;
  if (n.host.empty() || n.host == "?") n.host = asked_host;
  n.port = *port;
  if (v.elements.size() > 2 && v.elements[2].is_string()) n.id = v.elements[2].str;
  return n;
}

// "host:port" with an IPv6 host (no brackets in MOVED replies) split at the last colon.
std::optional<ClusterNode> endpoint_of(std::string_view text, std::string_view default_host) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto port = to_int(text.substr(colon + 1), 1, 65535);
  if (!port) return std::nullopt;
  ClusterNode n;
  std::string_view host = text.substr(0, colon);
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  n.host = host.empty() || host == "?" ? std::string(default_host) : std::string(host);
  n.port = *port;
  return n;
}

// Where `code` starts an error reply inside `text`: at 0, or after ": " (a wrapped message).
std::optional<std::size_t> find_code(std::string_view text, std::string_view code) {
  if (text.starts_with(code)) return 0;
  std::size_t from = 0;
  for (;;) {
    const auto at = text.find(code, from);
    if (at == std::string_view::npos) return std::nullopt;
    if (at >= 2 && text.substr(at - 2, 2) == ": ") return at;
    from = at + 1;
  }
}

}  // namespace

std::string ClusterNode::address() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Expected<ClusterTopology> ClusterTopology::from_slots_reply(const Value& reply,
                                                            const std::string& asked_host) {
  if (reply.is_error()) return make_error("CLUSTER SLOTS: " + reply.str);
  if (!reply.is_array()) return make_error("CLUSTER SLOTS answered " + reply.describe());
  ClusterTopology t;
  for (std::size_t i = 0; i < reply.elements.size(); ++i) {
    const Value& r = reply.elements[i];
    const std::string where = "CLUSTER SLOTS entry " + std::to_string(i + 1);
    if (!r.is_array() || r.elements.size() < 3) return make_error(where + ": " + r.describe());
    const auto first = int_of(r.elements[0], 0, kClusterSlotCount - 1);
    const auto last = int_of(r.elements[1], 0, kClusterSlotCount - 1);
    if (!first || !last || *first > *last) {
      return make_error(where + ": slot range is not within 0..16383: " + r.describe());
    }
    SlotRange range;
    range.first = *first;
    range.last = *last;
    const auto master = node_of(r.elements[2], asked_host);
    if (!master) return make_error(where + ": master is not [host, port, ...]: " + r.describe());
    range.master = *master;
    for (std::size_t k = 3; k < r.elements.size(); ++k) {
      if (auto replica = node_of(r.elements[k], asked_host)) range.replicas.push_back(*replica);
    }
    t.ranges_.push_back(std::move(range));
  }
  if (t.ranges_.empty()) {
    return make_error("CLUSTER SLOTS: no slot is assigned (has the cluster been created?)");
  }
  t.index();
  return t;
}

namespace {

// The value of `name` in a RESP2 flat map [name, value, name, value, ...], or nullptr.
const Value* field(const Value& map, std::string_view name) {
  if (!map.is_array()) return nullptr;
  for (std::size_t i = 0; i + 1 < map.elements.size(); i += 2) {
    if (map.elements[i].is_string() && map.elements[i].str == name) return &map.elements[i + 1];
  }
  return nullptr;
}

std::string text_field(const Value& map, std::string_view name) {
  const Value* v = field(map, name);
  return v != nullptr && v->is_string() ? v->str : std::string();
}

}  // namespace

Expected<ClusterTopology> ClusterTopology::from_shards_reply(const Value& reply,
                                                             const std::string& asked_host) {
  if (reply.is_error()) return make_error("CLUSTER SHARDS: " + reply.str);
  if (!reply.is_array()) return make_error("CLUSTER SHARDS answered " + reply.describe());
  ClusterTopology t;
  for (std::size_t i = 0; i < reply.elements.size(); ++i) {
    const Value& shard = reply.elements[i];
    const std::string where = "CLUSTER SHARDS shard " + std::to_string(i + 1);
    const Value* slots = field(shard, "slots");
    const Value* nodes = field(shard, "nodes");
    if (slots == nullptr || nodes == nullptr || !slots->is_array() || !nodes->is_array() ||
        slots->elements.size() % 2 != 0) {
      return make_error(where +
                        ": not {slots: [first, last, ...], nodes: [...]}: " + shard.describe());
    }
    if (slots->elements.empty()) continue;  // a master without slots (or being emptied)
    std::optional<ClusterNode> master;
    std::vector<ClusterNode> replicas;
    for (const Value& n : nodes->elements) {
      const auto port =
          field(n, "port") != nullptr ? int_of(*field(n, "port"), 1, 65535) : std::nullopt;
      if (!port) return make_error(where + ": a node without a port: " + n.describe());
      ClusterNode node;
      node.host = text_field(n, "endpoint");
      if (node.host.empty() || node.host == "?") node.host = text_field(n, "ip");
      if (node.host.empty() || node.host == "?") node.host = asked_host;
      node.port = *port;
      node.id = text_field(n, "id");
      const std::string role = text_field(n, "role");
      if (role == "master") {
        if (master) return make_error(where + ": two masters: " + shard.describe());
        master = std::move(node);
      } else if (text_field(n, "health") == "online") {
        replicas.push_back(std::move(node));
      }
    }
    if (!master) return make_error(where + ": slots but no master: " + shard.describe());
    for (std::size_t k = 0; k < slots->elements.size(); k += 2) {
      const auto first = int_of(slots->elements[k], 0, kClusterSlotCount - 1);
      const auto last = int_of(slots->elements[k + 1], 0, kClusterSlotCount - 1);
      if (!first || !last || *first > *last) {
        return make_error(where + ": slot range is not within 0..16383: " + slots->describe());
      }
      t.ranges_.push_back(SlotRange{*first, *last, *master, replicas});
    }
  }
  if (t.ranges_.empty()) {
    return make_error("CLUSTER SHARDS: no slot is assigned (has the cluster been created?)");
  }
  t.index();
  return t;
}

void ClusterTopology::index() {
  masters_.clear();
  for (const SlotRange& r : ranges_) {
    if (std::find(masters_.begin(), masters_.end(), r.master) == masters_.end()) {
      masters_.push_back(r.master);
    }
  }
  std::sort(masters_.begin(), masters_.end(),
            [](const ClusterNode& a, const ClusterNode& b) { return a.address() < b.address(); });
  owner_.assign(kClusterSlotCount, -1);
  for (const SlotRange& r : ranges_) {
    const auto m = std::find(masters_.begin(), masters_.end(), r.master) - masters_.begin();
    for (int s = r.first; s <= r.last; ++s)
      owner_[static_cast<std::size_t>(s)] = static_cast<std::int16_t>(m);
  }
}

const ClusterNode* ClusterTopology::master_of(int slot) const {
  if (slot < 0 || slot >= kClusterSlotCount || owner_.empty()) return nullptr;
  const int m = owner_[static_cast<std::size_t>(slot)];
  return m < 0 ? nullptr : &masters_[static_cast<std::size_t>(m)];
}

int ClusterTopology::covered_slots() const {
  return static_cast<int>(
      std::count_if(owner_.begin(), owner_.end(), [](std::int16_t m) { return m >= 0; }));
}

ClusterTopology ClusterTopology::with_slot_owner(int slot, const ClusterNode& master) const {
  ClusterTopology t;
  // Split the range holding `slot` so ranges_ stays the truth index() is rebuilt from.
  for (const SlotRange& r : ranges_) {
    if (slot < r.first || slot > r.last) {
      t.ranges_.push_back(r);
      continue;
    }
    if (r.first < slot) t.ranges_.push_back(SlotRange{r.first, slot - 1, r.master, r.replicas});
    if (slot < r.last) t.ranges_.push_back(SlotRange{slot + 1, r.last, r.master, r.replicas});
  }
  if (slot >= 0 && slot < kClusterSlotCount) t.ranges_.push_back(SlotRange{slot, slot, master, {}});
  t.index();
  return t;
}

std::string_view to_string(ClusterErrorKind kind) {
  switch (kind) {
    case ClusterErrorKind::moved:
      return "MOVED";
    case ClusterErrorKind::ask:
      return "ASK";
    case ClusterErrorKind::tryagain:
      return "TRYAGAIN";
    case ClusterErrorKind::clusterdown:
      return "CLUSTERDOWN";
    case ClusterErrorKind::readonly:
      return "READONLY";
  }
  return "?";
}

std::optional<ClusterError> parse_cluster_error(std::string_view text,
                                                std::string_view default_host) {
  for (ClusterErrorKind kind : {ClusterErrorKind::moved, ClusterErrorKind::ask}) {
    const std::string code = std::string(to_string(kind)) + " ";
    const auto at = find_code(text, code);
    if (!at) continue;
    // "MOVED <slot> <host>:<port>"
    std::string_view rest = text.substr(*at + code.size());
    const auto space = rest.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const auto slot = to_int(rest.substr(0, space), 0, kClusterSlotCount - 1);
    std::string_view endpoint = rest.substr(space + 1);
    endpoint = endpoint.substr(0, endpoint.find_first_of(" \r\n"));
    const auto node = endpoint_of(endpoint, default_host);
    if (!slot || !node) return std::nullopt;
    return ClusterError{kind, *slot, *node};
  }
  for (ClusterErrorKind kind :
       {ClusterErrorKind::tryagain, ClusterErrorKind::clusterdown, ClusterErrorKind::readonly}) {
    const std::string_view code = to_string(kind);
    const auto at = find_code(text, code);
    if (!at) continue;
    // The code is a whole word: "TRYAGAIN Multiple keys ...", not "TRYAGAINX".
    const std::size_t end = *at + code.size();
    if (end < text.size() && text[end] != ' ') continue;
    return ClusterError{kind, -1, {}};
  }
  return std::nullopt;
}

}  // namespace limitscope::redis
