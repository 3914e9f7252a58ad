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
// by key. Pressure is computed once per key, not per comparison; keys already in key order
// (one server's tracked keys are) are sorted stably by pressure alone, without comparing keys.
void sort_by_pressure(std::vector<KeyReading>& keys) {
  std::vector<std::pair<double, std::size_t>> order(keys.size());
  bool key_ordered = true;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto p = keys[i].pressure();
    order[i] = {p ? *p : -1.0, i};  // pressure is >= 0 when known
    if (i > 0 && key_ordered && keys[i].key < keys[i - 1].key) key_ordered = false;
  }
  if (key_ordered) {
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  } else {
    std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first > b.first;
      return keys[a.second].key < keys[b.second].key;
    });
  }
  // Put each reading in its place by following the permutation's cycles: no second vector
  // of readings (at 100,000 keys, megabytes fetched fresh from the OS at every refresh).
  std::vector<bool> placed(keys.size(), false);
  for (std::size_t start = 0; start < keys.size(); ++start) {
    if (placed[start]) continue;
    KeyReading held = std::move(keys[start]);
    std::size_t at = start;
    while (true) {
      placed[at] = true;
      const std::size_t from = order[at].second;
      if (from == start) break;
      keys[at] = std::move(keys[from]);
      at = from;
    }
    keys[at] = std::move(held);
  }
}

RedisProbe::RedisProbe(std::vector<LimiterProfile> profiles, ProbeOptions options)
    : profiles_(std::move(profiles)), options_(std::move(options)) {
  options_.scan_count = std::max<std::size_t>(options_.scan_count, 1);
  options_.max_tracked = std::max<std::size_t>(options_.max_tracked, 1);
  if (options_.adaptive_scan) budget_.emplace(*options_.adaptive_scan);
}

// One SCAN call from the cursor. @return true when it finished a full pass.
redis::Result<bool> RedisProbe::scan_once(redis::Connection& c, std::size_t count, ProbeSnapshot& snap) {
  auto reply = c.command({"SCAN", cursor_, "MATCH", options_.match, "COUNT", std::to_string(count)});
  if (!reply) return reply.error();
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
    if (tracked_.count(k.str)) continue;
    Tracked t;
    t.profile = static_cast<std::size_t>(p - profiles_.data());
    if (p->kind == ProfileKind::limitscope) {
      t.own = parse_own_key(k.str);
      if (t.own && options_.pressure_index) rules_.insert(t.own->config_key);
    }
    tracked_.emplace(k.str, std::move(t));
  }
  cursor_ = reply->elements[0].str;
  if (cursor_ != "0") return false;
  pass_done_once_ = true;
  ++passes_;
  unmatched_last_pass_ = unmatched_this_pass_;
  unmatched_this_pass_ = 0;
  pass_started_ = false;
  return true;
}

redis::Result<std::size_t> RedisProbe::discover(redis::Connection& c, std::size_t budget,
                                                ProbeSnapshot& snap) {
  std::size_t calls = 0;
  while (calls < budget) {
    auto done = scan_once(c, options_.scan_count, snap);
    if (!done) return done.error();
    ++calls;
    if (*done && budget == SIZE_MAX) break;  // probe_all: one full pass
  }
  return calls;
}

// SCAN calls of at most scan_count each until the budget's COUNT units are spent or a pass
// ends (the next refresh starts the next pass: a key added meanwhile is found then).
redis::Result<std::size_t> RedisProbe::discover_adaptive(redis::Connection& c, ProbeSnapshot& snap) {
  const Clock& clock = options_.clock != nullptr ? *options_.clock : SteadyClock::instance();
  const std::size_t budget = budget_->keys();
  snap.scan_budget = budget;
  std::size_t asked = 0;
  std::size_t calls = 0;
  const Nanos t0 = clock.now();
  while (asked < budget) {
    const std::size_t count = std::min(options_.scan_count, budget - asked);
    auto done = scan_once(c, count, snap);
    if (!done) return done.error();
    asked += count;
    ++calls;
    if (*done) break;
  }
  budget_->observe(clock.now() - t0, asked);
  return calls;
}

// The keys listed by the pressure index of the rule whose config key is `config_key` (its
// reply `v`), tracked from now on: they are read in this refresh like any found by SCAN.
void RedisProbe::merge_index(const std::string& config_key, const std::optional<redis::RuleConfig>& config,
                             const redis::Value& v, ProbeSnapshot& snap) {
  if (!config || !v.is_array()) return;  // no config: nothing reads its keys; an error reply: no index
  snap.index_entries += v.elements.size();
  for (const auto& label : v.elements) {
    for (std::string& key : state_keys_for_label(config_key, *config, label.str)) {
      if (tracked_.count(key) > 0) continue;
      const LimiterProfile* p = match_profile(profiles_, key);
      if (p == nullptr || p->kind != ProfileKind::limitscope) continue;  // outside what the operator follows
      Tracked t;
      t.profile = static_cast<std::size_t>(p - profiles_.data());
      t.own = parse_own_key(key);
      tracked_.emplace(std::move(key), std::move(t));
      ++snap.from_index;
    }
  }
}

redis::Result<ProbeSnapshot> RedisProbe::refresh(redis::Connection& c) {
  return run(c, options_.scan_calls_per_refresh);
}

redis::Result<ProbeSnapshot> RedisProbe::probe_all(redis::Connection& c) {
  return run(c, SIZE_MAX);
}

redis::Result<ProbeSnapshot> RedisProbe::run(redis::Connection& c, std::size_t scan_budget) {
  ProbeSnapshot snap;
  auto calls = budget_ && scan_budget != SIZE_MAX ? discover_adaptive(c, snap) : discover(c, scan_budget, snap);
  if (!calls) return calls.error();
  snap.scan_calls = *calls;

  // TIME, the configs of every own-schema rule and the pressure indexes of the rules seen, in
  // one round trip.
  std::map<std::string, std::optional<redis::RuleConfig>> configs;  // config key → config
  std::set<std::string> with_keys;  // rules with tracked keys
  for (const auto& entry : tracked_) {
    if (entry.second.own) with_keys.insert(entry.second.own->config_key);
  }
  for (const auto& ck : with_keys) configs.emplace(ck, std::nullopt);
  for (const auto& ck : rules_) configs.emplace(ck, std::nullopt);
  std::vector<std::vector<std::string>> first{{"TIME"}};
  for (const auto& [ck, unused] : configs) {
    first.push_back({"HGETALL", ck});
    first.push_back({"GET", stamp_key_for_config(ck)});  // whether old hash states may remain
  }
  // Entries full again before the last refresh's time are stale: the writer drops them later.
  const std::string from = last_server_us_ > 0 ? "(" + std::to_string(last_server_us_) : "-inf";
  for (const auto& ck : rules_) {
    first.push_back({"ZRANGEBYSCORE", pressure_key_for_config(ck), from, "+inf", "LIMIT", "0",
                     std::to_string(options_.max_tracked)});
  }
  snap.index_reads = rules_.size();
  auto head = c.pipeline(first);
  if (!head) return head.error();
  auto now = server_time_us((*head)[0]);
  if (!now) return now.error();
  snap.server_time_us = *now;
  last_server_us_ = *now;
  std::size_t i = 1;
  std::vector<std::string> gone;
  std::set<std::string> legacy;  // rules whose token-bucket states may be old hashes
  for (auto& [ck, cfg] : configs) {
    const redis::Value& v = (*head)[i];
    if (legacy_states_possible((*head)[i + 1], *now)) legacy.insert(ck);
    i += 2;
    if (v.is_error()) {
      snap.errors.push_back(ck + ": " + v.str);
      continue;
    }
    std::map<std::string, std::string> fields;
    for (std::size_t f = 0; f + 1 < v.elements.size(); f += 2) {
      fields[v.elements[f].str] = v.elements[f + 1].str;
    }
    if (fields.empty()) {
      // A rule seen before and deleted since, none of its keys left: forget it.
      if (with_keys.count(ck) == 0) {
        gone.push_back(ck);
        continue;
      }
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
  for (const auto& ck : rules_) merge_index(ck, configs[ck], (*head)[i++], snap);
  for (const auto& ck : gone) rules_.erase(ck);

  std::vector<const std::pair<const std::string, Tracked>*> keys;
  keys.reserve(tracked_.size());
  for (const auto& entry : tracked_) keys.push_back(&entry);

  // Every state read in one pipeline; remember where each key's replies start. The batch and
  // the plans keep their memory from one refresh to the next.
  redis::CommandBatch& reads = reads_;
  reads.clear();
  reads.reserve(keys.size() * (options_.read_ttl ? 2 : 1), keys.size() * 64);
  plans_.assign(keys.size(), Plan{});
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::string& key = keys[k]->first;
    const Tracked& t = keys[k]->second;
    const LimiterProfile& p = profiles_[t.profile];
    Plan& plan = plans_[k];
    plan.first = reads.size();
    if (p.kind == ProfileKind::limitscope) {
      const auto it = t.own ? configs.find(t.own->config_key) : configs.end();
      if (it == configs.end() || !it->second) {
        plan.error = t.own ? "rule " + t.own->rule + " has no readable config" : "not a limitscope state key";
        continue;
      }
      const redis::NamedLimit* limit = limit_for(*it->second, t.own->rest);
      if (limit == nullptr) {
        plan.error = "belongs to no limit of rule " + t.own->rule;
        continue;
      }
      plan.own = &limit->params;
      if (it->second->composite()) {
        plan.limit_name = limit->name;
        plan.limit_index = static_cast<int>(limit - it->second->limits.data());
      }
      plan.count = own_read_commands(reads, limit->params, key, *now, options_.read_ttl,
                                     legacy.count(t.own->config_key) > 0);
    } else {
      plan.count = read_commands(reads, p, key, *now, options_.read_ttl);
    }
  }
  snap.read_commands = reads.size() + first.size();
  std::vector<redis::Value> replies;
  if (!reads.empty()) {
    auto r = c.pipeline(reads);
    if (!r) return r.error();
    replies = std::move(r).value();
  }

  snap.keys.reserve(keys.size());
  std::vector<std::string> vanished;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::string& key = keys[k]->first;
    const LimiterProfile& p = profiles_[keys[k]->second.profile];
    Plan& plan = plans_[k];
    KeyReading reading;
    if (!plan.error.empty()) {
      reading.key = key;
      reading.profile = p.name;
      reading.kind = p.kind;
      reading.error = std::move(plan.error);
    } else {
      const std::span<const redis::Value> mine(replies.data() + plan.first, plan.count);
      reading = plan.own != nullptr ? own_evaluate(p.name, key, *plan.own, mine, *now) : evaluate(p, key, mine, *now);
      reading.limit_name = std::move(plan.limit_name);
      reading.limit_index = plan.limit_index;
    }
    if (reading.missing) {
      vanished.push_back(key);  // expired or deleted since discovery: stop tracking it
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
