#include "core/probe/redis_probe.h"

#include <algorithm>
#include <set>

#include "core/probe/own_schema.h"
#include "core/probe/profile_detect.h"

namespace limitscope::probe {

namespace {

redis::Result<std::int64_t> server_time_us(const redis::Value& v) {
  if (auto t = v.as_time_us()) return *t;
  return redis::make_redis_error(redis::ErrorKind::protocol, "TIME answered " + v.describe());
}

}  // namespace

// Highest pressure first; unknown pressure (no capacity, errors) after every known one; ties
// by key. Pressure is computed once per key, not per comparison.
void sort_by_pressure(std::vector<KeyReading>& keys) {
  std::vector<std::pair<double, std::size_t>> order(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto p = keys[i].pressure();
    order[i] = {p ? *p : -1.0, i};  // pressure is >= 0 when known
  }
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return keys[a.second].key < keys[b.second].key;
  });
  std::vector<KeyReading> sorted;
  sorted.reserve(keys.size());
  for (const auto& [p, i] : order) sorted.push_back(std::move(keys[i]));
  keys = std::move(sorted);
}

RedisProbe::RedisProbe(std::vector<LimiterProfile> profiles, ProbeOptions options)
    : profiles_(std::move(profiles)), options_(std::move(options)) {
  options_.scan_count = std::max<std::size_t>(options_.scan_count, 1);
  options_.max_tracked = std::max<std::size_t>(options_.max_tracked, 1);
}

redis::Result<std::size_t> RedisProbe::discover(redis::Connection& c, std::size_t budget,
                                                ProbeSnapshot& snap) {
  std::size_t calls = 0;
  while (calls < budget) {
    auto reply = c.command({"SCAN", cursor_, "MATCH", options_.match, "COUNT",
                            std::to_string(options_.scan_count)});
    if (!reply) return reply.error();
    ++calls;
    if (!reply->is_array() || reply->elements.size() != 2 || !reply->elements[1].is_array()) {
      return redis::make_redis_error(redis::ErrorKind::protocol, "SCAN answered " + reply->describe());
    }
    pass_started_ = true;
    for (const auto& k : reply->elements[1].elements) {
      ++snap.scanned;
      const LimiterProfile* p = match_profile(profiles_, k.str);
      if (p == nullptr) {
        ++unmatched_this_pass_;
        if (unmatched_examples_.size() < 20) unmatched_examples_.emplace(pattern_for(k.str), k.str);
        continue;
      }
      tracked_.emplace(k.str, static_cast<std::size_t>(p - profiles_.data()));
    }
    cursor_ = reply->elements[0].str;
    if (cursor_ == "0") {
      pass_done_once_ = true;
      ++passes_;
      unmatched_last_pass_ = unmatched_this_pass_;
      unmatched_this_pass_ = 0;
      pass_started_ = false;
      if (budget == SIZE_MAX) break;  // probe_all: one full pass
    }
  }
  return calls;
}

redis::Result<ProbeSnapshot> RedisProbe::refresh(redis::Connection& c) {
  return run(c, options_.scan_calls_per_refresh);
}

redis::Result<ProbeSnapshot> RedisProbe::probe_all(redis::Connection& c) {
  return run(c, SIZE_MAX);
}

redis::Result<ProbeSnapshot> RedisProbe::run(redis::Connection& c, std::size_t scan_budget) {
  ProbeSnapshot snap;
  auto calls = discover(c, scan_budget, snap);
  if (!calls) return calls.error();
  snap.scan_calls = *calls;

  // TIME and the configs of every own-schema rule in one round trip.
  std::vector<std::string> keys;
  std::vector<std::size_t> profile_of;
  keys.reserve(tracked_.size());
  profile_of.reserve(tracked_.size());
  std::map<std::string, std::optional<redis::RuleConfig>> configs;  // config key → config
  for (const auto& [key, idx] : tracked_) {
    keys.push_back(key);
    profile_of.push_back(idx);
    if (profiles_[idx].kind == ProfileKind::limitscope) {
      if (auto own = parse_own_key(key)) configs.emplace(own->config_key, std::nullopt);
    }
  }
  std::vector<std::vector<std::string>> first{{"TIME"}};
  for (const auto& [ck, unused] : configs) first.push_back({"HGETALL", ck});
  auto head = c.pipeline(first);
  if (!head) return head.error();
  auto now = server_time_us((*head)[0]);
  if (!now) return now.error();
  snap.server_time_us = *now;
  std::size_t i = 1;
  for (auto& [ck, cfg] : configs) {
    const redis::Value& v = (*head)[i++];
    if (v.is_error()) {
      snap.errors.push_back(ck + ": " + v.str);
      continue;
    }
    std::map<std::string, std::string> fields;
    for (std::size_t f = 0; f + 1 < v.elements.size(); f += 2) {
      fields[v.elements[f].str] = v.elements[f + 1].str;
    }
    if (fields.empty()) {
      snap.errors.push_back(ck + ": no config (its state keys cannot be read)");
      continue;
    }
    auto parsed = redis::parse_config_fields(fields);
    if (!parsed) {
      snap.errors.push_back(ck + ": " + parsed.error());
      continue;
    }
    cfg = std::move(parsed).value();
  }

  // Every state read in one pipeline; remember where each key's replies start.
  std::vector<std::vector<std::string>> reads;
  reads.reserve(keys.size() * 2);
  struct Plan {
    std::size_t first = 0;
    std::size_t count = 0;
    const LimitParams* own = nullptr;  // own schema: the limit's parameters
    std::string limit_name;            // own schema: a composite's limit the key belongs to
    int limit_index = -1;              // ... and its place among the rule's limits
    std::string error;                 // no read possible
  };
  std::vector<Plan> plans(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const LimiterProfile& p = profiles_[profile_of[k]];
    std::vector<std::vector<std::string>> cmds;
    if (p.kind == ProfileKind::limitscope) {
      const auto own = parse_own_key(keys[k]);
      const auto it = own ? configs.find(own->config_key) : configs.end();
      if (it == configs.end() || !it->second) {
        plans[k].error = own ? "rule " + own->rule + " has no readable config" : "not a limitscope state key";
        continue;
      }
      const redis::NamedLimit* limit = limit_for(*it->second, own->rest);
      if (limit == nullptr) {
        plans[k].error = "belongs to no limit of rule " + own->rule;
        continue;
      }
      plans[k].own = &limit->params;
      if (it->second->composite()) {
        plans[k].limit_name = limit->name;
        plans[k].limit_index = static_cast<int>(limit - it->second->limits.data());
      }
      cmds = own_read_commands(limit->params, keys[k], *now, options_.read_ttl);
    } else {
      cmds = read_commands(p, keys[k], *now, options_.read_ttl);
    }
    plans[k].first = reads.size();
    plans[k].count = cmds.size();
    for (auto& cmd : cmds) reads.push_back(std::move(cmd));
  }
  snap.read_commands = reads.size() + first.size();
  std::vector<redis::Value> replies;
  if (!reads.empty()) {
    auto r = c.pipeline(reads);
    if (!r) return r.error();
    replies = std::move(r).value();
  }

  snap.keys.reserve(keys.size());
  std::set<std::string> vanished;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const LimiterProfile& p = profiles_[profile_of[k]];
    KeyReading reading;
    if (!plans[k].error.empty()) {
      reading.key = keys[k];
      reading.profile = p.name;
      reading.kind = p.kind;
      reading.error = plans[k].error;
    } else {
      const std::span<const redis::Value> mine(replies.data() + plans[k].first, plans[k].count);
      reading = plans[k].own != nullptr ? own_evaluate(p.name, keys[k], *plans[k].own, mine, *now)
                                        : evaluate(p, keys[k], mine, *now);
      reading.limit_name = plans[k].limit_name;
      reading.limit_index = plans[k].limit_index;
    }
    if (reading.missing) {
      vanished.insert(keys[k]);  // expired or deleted since discovery: stop tracking it
      continue;
    }
    snap.keys.push_back(std::move(reading));
  }
  for (const auto& k : vanished) tracked_.erase(k);

  sort_by_pressure(snap.keys);
  if (snap.keys.size() > options_.max_tracked) {
    for (std::size_t k = options_.max_tracked; k < snap.keys.size(); ++k) tracked_.erase(snap.keys[k].key);
    snap.dropped = snap.keys.size() - options_.max_tracked;
    snap.keys.resize(options_.max_tracked);
  }
  for (const auto& [pattern, key] : unmatched_examples_) snap.unmatched_examples.push_back(key);
  snap.discovery_complete = pass_done_once_;
  snap.unmatched = pass_done_once_ ? unmatched_last_pass_ : unmatched_this_pass_;
  return snap;
}

}  // namespace limitscope::probe
