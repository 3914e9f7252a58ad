#include "core/probe/key_inspect.h"

#include <algorithm>
#include <set>

#include "core/redis/key_schema.h"

namespace limitscope::probe {
namespace {

ProbeOptions probe_options(const KeyBrowserOptions& o) {
  ProbeOptions p;
  p.match = o.match.empty() ? "*" : o.match;
  p.scan_count = o.scan_count;
  p.scan_calls_per_refresh = o.scan_calls_per_refresh;
  p.max_tracked = o.max_keys;
  p.read_ttl = true;  // the browser shows TTLs
  return p;
}

std::optional<std::int64_t> integer_of(const redis::Value& v) {
  if (v.type != redis::Value::Type::integer) return std::nullopt;
  return v.integer;
}

}  // namespace

KeyBrowser::KeyBrowser(std::vector<LimiterProfile> profiles, KeyBrowserOptions options)
    : profiles_(profiles),
      options_(std::move(options)),
      probe_(std::move(profiles), probe_options(options_)) {}

redis::Result<KeyListing> KeyBrowser::refresh(redis::Connection& c) {
  auto snap = probe_.refresh(c);
  if (!snap) return snap.error();
  return finish(std::move(*snap),
                [&](const std::vector<std::string>& batch)
                    -> redis::Result<std::vector<std::optional<redis::Value>>> {
                  std::vector<std::vector<std::string>> cmds;
                  cmds.reserve(batch.size());
                  for (const std::string& k : batch)
                    cmds.push_back({"MEMORY", "USAGE", k, "SAMPLES", "5"});
                  auto replies = c.pipeline(cmds);
                  if (!replies) return replies.error();
                  return std::vector<std::optional<redis::Value>>(
                      std::make_move_iterator(replies->begin()),
                      std::make_move_iterator(replies->end()));
                });
}

redis::Result<KeyListing> KeyBrowser::refresh(redis::ClusterClient& cluster) {
  if (!cluster_probe_)
    cluster_probe_ = std::make_unique<ClusterProbe>(profiles_, probe_options(options_));
  auto snap = cluster_probe_->refresh(cluster);
  if (!snap) return snap.error();
  return finish(
      std::move(*snap),
      [&](const std::vector<std::string>& batch)
          -> redis::Result<std::vector<std::optional<redis::Value>>> {
        std::vector<std::optional<redis::Value>> out(batch.size());
        auto topo = cluster.topology();
        if (!topo) return out;  // nothing asked: the samples taken before stay
        // Each master samples the keys of its slots, in one pipeline.
        std::map<std::string, std::pair<redis::ClusterNode, std::vector<std::size_t>>> by_node;
        for (std::size_t i = 0; i < batch.size(); ++i) {
          const redis::ClusterNode* m = (*topo)->master_of(redis::cluster_slot(batch[i]));
          if (m == nullptr) continue;
          auto& part = by_node[m->address()];
          part.first = *m;
          part.second.push_back(i);
        }
        for (const auto& [address, part] : by_node) {
          auto lease = cluster.lease(part.first);
          if (!lease) continue;  // the probe already named the master that does not answer
          std::vector<std::vector<std::string>> cmds;
          for (std::size_t i : part.second)
            cmds.push_back({"MEMORY", "USAGE", batch[i], "SAMPLES", "5"});
          auto replies = (*lease)->pipeline(cmds);
          if (!replies) continue;
          for (std::size_t j = 0; j < part.second.size(); ++j) {
            redis::Value& v = (*replies)[j];
            // A key whose slot is moving is sampled on its new master another time.
            if (v.is_error() && redis::parse_cluster_error(v.str, part.first.host)) continue;
            out[part.second[j]] = std::move(v);
          }
        }
        return out;
      });
}

redis::Result<KeyListing> KeyBrowser::finish(ProbeSnapshot snap, const MemorySampler& sample) {
  KeyListing out;
  out.server_time_us = snap.server_time_us;
  out.unmatched = snap.unmatched;
  out.discovery_complete = snap.discovery_complete;
  out.scan_calls = snap.scan_calls;
  out.errors = std::move(snap.errors);
  out.keys.reserve(snap.keys.size());
  for (KeyReading& r : snap.keys) out.keys.push_back({std::move(r), std::nullopt});
  std::sort(out.keys.begin(), out.keys.end(),
            [](const BrowsedKey& a, const BrowsedKey& b) { return a.reading.key < b.reading.key; });

  // Forget samples of keys no longer listed, so the cache stays as small as the list.
  std::set<std::string> listed;
  for (const BrowsedKey& k : out.keys) listed.insert(k.reading.key);
  std::erase_if(memory_, [&](const auto& kv) { return listed.count(kv.first) == 0; });

  // The next keys after the last one sampled, wrapping around: every key gets a fresh sample
  // once per (keys / samples_per_refresh) refreshes.
  std::vector<std::string> batch;
  const std::size_t n = std::min(options_.memory_samples_per_refresh, out.keys.size());
  if (n > 0) {
    auto it = std::upper_bound(
        out.keys.begin(), out.keys.end(), memory_after_,
        [](const std::string& k, const BrowsedKey& b) { return k < b.reading.key; });
    while (batch.size() < n) {
      if (it == out.keys.end()) it = out.keys.begin();
      batch.push_back(it->reading.key);
      ++it;
    }
  }
  if (!batch.empty()) {
    auto replies = sample(batch);
    if (!replies) return replies.error();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!(*replies)[i]) continue;  // not asked: keep the last sample
      const redis::Value& v = *(*replies)[i];
      if (v.is_error()) {
        // MEMORY renamed or refused by an ACL: say so once, keep listing.
        out.errors.push_back("MEMORY USAGE: " + v.str);
        break;
      }
      if (const auto bytes = integer_of(v)) {
        memory_[batch[i]] = *bytes;
      } else {
        memory_.erase(batch[i]);  // nil: the key is gone since the read
      }
    }
    out.memory_sampled = batch.size();
    memory_after_ = batch.back();
  }
  for (BrowsedKey& k : out.keys) {
    const auto m = memory_.find(k.reading.key);
    if (m != memory_.end()) k.memory_bytes = m->second;
  }
  return out;
}

std::string_view expected_redis_type(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::token_bucket_hash:
      return "hash";
    case ProfileKind::sliding_window_zset:
      return "zset";
    case ProfileKind::gcra_tat:
    case ProfileKind::counter_ttl:
    case ProfileKind::fixed_window_counter:
      return "string";
    case ProfileKind::limitscope:
      return "";
  }
  return "";
}

redis::Result<RawKey> inspect_key(redis::ClusterClient& cluster, const std::string& key,
                                  const LimiterProfile* profile, const RawKeyLimits& limits) {
  std::optional<RawKey> out;
  auto ran = cluster.run_for_key(key, [&](redis::Connection& c) -> redis::Result<void> {
    auto r = inspect_key(c, key, profile, limits);
    if (!r) return r.error();  // a redirection (TYPE answered MOVED/ASK): run() follows it
    out = std::move(r).value();
    return {};
  });
  if (!ran.ok()) return ran.error();
  if (auto topo = cluster.topology()) {
    if (const redis::ClusterNode* m = (*topo)->master_of(redis::cluster_slot(key)))
      out->node = m->address();
  }
  return std::move(*out);
}

redis::Result<KeyListing> KeyBrowser::refresh(redis::Endpoint& endpoint) {
  if (redis::ClusterClient* cluster = endpoint.cluster()) return refresh(*cluster);
  auto lease = endpoint.pool()->acquire();
  if (!lease) return lease.error();
  return refresh(**lease);
}

redis::Result<RawKey> inspect_key(redis::Endpoint& endpoint, const std::string& key,
                                  const LimiterProfile* profile, const RawKeyLimits& limits) {
  if (redis::ClusterClient* cluster = endpoint.cluster())
    return inspect_key(*cluster, key, profile, limits);
  return endpoint.on_key<RawKey>(
      key, [&](redis::Connection& c) { return inspect_key(c, key, profile, limits); });
}

redis::Result<RawKey> inspect_key(redis::Connection& c, const std::string& key,
                                  const LimiterProfile* profile, const RawKeyLimits& limits) {
  RawKey raw;
  raw.key = key;
  auto head = c.pipeline({{"TYPE", key}, {"PTTL", key}, {"MEMORY", "USAGE", key, "SAMPLES", "5"}});
  if (!head) return head.error();
  const auto& h = *head;
  if (h[0].is_error())
    return redis::make_redis_error(redis::ErrorKind::reply, "TYPE " + key + ": " + h[0].str);
  raw.type = h[0].str;
  if (raw.type == "none") {
    raw.missing = true;
    raw.problem = "the key no longer exists (expired or deleted since it was listed)";
    return raw;
  }
  if (const auto pttl = integer_of(h[1]); pttl && *pttl >= 0) raw.ttl_ms = *pttl;
  raw.memory_bytes = integer_of(h[2]);

  const std::string max_fields = std::to_string(limits.max_fields);
  std::vector<std::vector<std::string>> cmds;
  if (raw.type == "hash") {
    // HSCAN with a COUNT is bounded where HGETALL is not (a small hash comes back whole).
    cmds = {{"HLEN", key}, {"HSCAN", key, "0", "COUNT", max_fields}};
  } else if (raw.type == "string") {
    cmds = {
        {"STRLEN", key},
        {"GETRANGE", key, "0", std::to_string(static_cast<long long>(limits.max_value_bytes) - 1)}};
  } else if (raw.type == "zset") {
    cmds = {{"ZCARD", key},
            {"ZRANGE", key, "0", std::to_string(static_cast<long long>(limits.zset_head) - 1),
             "WITHSCORES"},
            {"ZRANGE", key, "-1", "-1", "WITHSCORES"}};
  } else if (raw.type == "list") {
    cmds = {{"LLEN", key}};
  } else if (raw.type == "set") {
    cmds = {{"SCARD", key}};
  } else if (raw.type == "stream") {
    cmds = {{"XLEN", key}};
  }
  if (!cmds.empty()) {
    auto r = c.pipeline(cmds);
    if (!r) return r.error();
    for (const redis::Value& v : *r) {
      if (v.is_error()) {
        raw.problem = v.str.starts_with("WRONGTYPE")
                          ? "the key changed type while it was read; refresh"
                          : "reading it failed: " + v.str;
        return raw;
      }
    }
    const auto& v = *r;
    raw.total = static_cast<std::size_t>(std::max<std::int64_t>(0, integer_of(v[0]).value_or(0)));
    if (raw.total == 0) {
      // Gone between TYPE and the read (an empty hash, zset or list does not exist in Redis).
      if (raw.type != "string") {
        raw.missing = true;
        raw.problem = "the key no longer exists (expired or deleted while it was read)";
        return raw;
      }
    }
    if (raw.type == "hash" && v[1].is_array() && v[1].elements.size() == 2) {
      const auto& items = v[1].elements[1].elements;
      for (std::size_t i = 0; i + 1 < items.size() && raw.fields.size() < limits.max_fields;
           i += 2) {
        raw.fields.emplace_back(items[i].str, items[i + 1].str);
      }
      std::sort(raw.fields.begin(), raw.fields.end());
    } else if (raw.type == "string") {
      raw.fields.emplace_back("value", v[1].str);
    } else if (raw.type == "zset") {
      const auto& items = v[1].elements;
      for (std::size_t i = 0; i + 1 < items.size(); i += 2)
        raw.fields.emplace_back(items[i].str, items[i + 1].str);
      if (raw.total > raw.fields.size() && v[2].elements.size() == 2) {
        raw.fields.emplace_back("(newest) " + v[2].elements[0].str, v[2].elements[1].str);
      }
    }
    raw.truncated = raw.type == "string" ? raw.total > limits.max_value_bytes
                                         : raw.total > raw.fields.size() || raw.type == "list" ||
                                               raw.type == "set" || raw.type == "stream";
  }
  if (profile != nullptr) {
    const std::string_view want = expected_redis_type(profile->kind);
    const bool own_ok = want.empty() && (raw.type == "hash" || raw.type == "string");
    if (!own_ok && raw.type != want) {
      raw.problem = "wrong type: profile " + profile->name + " (" +
                    std::string(to_string(profile->kind)) + ") reads " +
                    (want.empty() ? std::string("a hash or a string") : "a " + std::string(want)) +
                    ", the key holds a " + raw.type;
    }
  }
  return raw;
}

}  // namespace limitscope::probe
