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
  sort_by_pressure(keys, std::nullopt);
}

// `known_key_ordered`: whether the readings are in key order, when the caller knows (a
// refresh reads its tracked keys in key order): no key comparisons to find out.
void sort_by_pressure(std::vector<KeyReading>& keys, std::optional<bool> known_key_ordered) {
  std::vector<std::pair<double, std::size_t>> order(keys.size());
  bool key_ordered = known_key_ordered.value_or(true);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto p = keys[i].pressure();
    order[i] = {p ? *p : -1.0, i};  // pressure is >= 0 when known
    if (!known_key_ordered && i > 0 && key_ordered && keys[i].key < keys[i - 1].key)
      key_ordered = false;
  }
  if (key_ordered) {
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
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

RedisProbe::Tracked RedisProbe::make_tracked(const LimiterProfile& p, const std::string& key) {
  Tracked t;
  t.profile = static_cast<std::size_t>(&p - profiles_.data());
  if (p.kind != ProfileKind::limitscope) return t;
  t.own = parse_own_key(key);
  if (t.own) t.rule = &*rule_names_.insert(t.own->config_key).first;
  return t;
}

// One SCAN call from the cursor. @return true when it finished a full pass.
redis::Result<bool> RedisProbe::scan_once(redis::Connection& c, std::size_t count,
                                          ProbeSnapshot& snap) {
  auto reply =
      c.command({"SCAN", cursor_, "MATCH", options_.match, "COUNT", std::to_string(count)});
  if (!reply) return reply.error();
  if (!reply->is_array() || reply->elements.size() != 2 || !reply->elements[1].is_array()) {
    return redis::make_redis_error(redis::ErrorKind::protocol,
                                   "SCAN answered " + reply->describe());
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
    Tracked t = make_tracked(*p, k.str);
    if (t.own && options_.pressure_index) rules_.insert(t.own->config_key);
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
redis::Result<std::size_t> RedisProbe::discover_adaptive(redis::Connection& c,
                                                         ProbeSnapshot& snap) {
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
void RedisProbe::merge_index(const std::string& config_key, const redis::RuleConfig* config,
                             const redis::Value& v, ProbeSnapshot& snap) {
  if (!config || !v.is_array())
    return;  // no config: nothing reads its keys; an error reply: no index
  snap.index_entries += v.elements.size();
  for (const auto& label : v.elements) {
    for (std::string& key : state_keys_for_label(config_key, *config, label.str)) {
      if (tracked_.count(key) > 0) continue;
      const LimiterProfile* p = match_profile(profiles_, key);
      if (p == nullptr || p->kind != ProfileKind::limitscope)
        continue;  // outside what the operator follows
      Tracked t = make_tracked(*p, key);
      keys_.push_back(&*tracked_.emplace(std::move(key), std::move(t)).first);
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

// Own-schema keys of rules read before, and foreign keys whose reads do not depend on the
// server's time, are read in the first round trip, with TIME and the configs; the rest (keys
// of rules not read yet, windows counted up to TIME, keys whose rule changed) after it.
void RedisProbe::plan_early(const Entry& e, Plan& plan) {
  const Tracked& t = e.second;
  const LimiterProfile& p = profiles_[t.profile];
  if (p.kind == ProfileKind::sliding_window_zset) return;  // counted up to TIME: after it
  if (p.kind != ProfileKind::limitscope) {
    plan.batch = 0;
    plan.first = reads_.size();
    plan.count = read_commands(reads_, p, e.first, 0, options_.read_ttl);
    return;
  }
  if (!t.own) return;
  if (t.rule != early_rule_) {  // a rule's keys are consecutive: one lookup per rule
    const auto it = cache_.find(*t.rule);
    early_cache_ = it != cache_.end() ? &it->second : nullptr;
    early_rule_ = t.rule;
  }
  if (early_cache_ == nullptr || !early_cache_->config) return;
  const redis::NamedLimit* limit = limit_for(*early_cache_->config, t.own->rest);
  if (limit == nullptr || limit->params.algorithm == Algorithm::sliding_log) return;
  plan.batch = 0;
  plan_own(e, early_cache_, plan, reads_, 0);
}

void RedisProbe::plan_own(const Entry& e, const RuleCache* rule, Plan& plan,
                          redis::CommandBatch& batch, std::int64_t now_us) const {
  const Tracked& t = e.second;
  plan.first = batch.size();
  if (!t.own || rule == nullptr || !rule->config) {
    plan.error =
        t.own ? "rule " + t.own->rule + " has no readable config" : "not a limitscope state key";
    return;
  }
  const redis::RuleConfig& config = *rule->config;
  const redis::NamedLimit* limit = limit_for(config, t.own->rest);
  if (limit == nullptr) {
    plan.error = "belongs to no limit of rule " + t.own->rule;
    return;
  }
  const auto index = static_cast<std::size_t>(limit - config.limits.data());
  plan.own = &limit->params;
  plan.parameters = &rule->described[index];
  if (config.composite()) {
    plan.limit_name = limit->name;
    plan.limit_index = static_cast<int>(index);
  }
  plan.count =
      own_read_commands(batch, limit->params, e.first, now_us, options_.read_ttl, rule->legacy);
}

std::set<std::string> RedisProbe::update_rules(std::span<const redis::Value> replies,
                                               const std::set<std::string>& read_rules,
                                               const std::set<std::string>& with_keys,
                                               std::int64_t now_us, ProbeSnapshot& snap) {
  std::set<std::string> changed;
  std::size_t i = 0;
  for (const auto& ck : read_rules) {
    const redis::Value& v = replies[i];
    RuleCache fresh;
    fresh.legacy = legacy_states_possible(replies[i + 1], now_us);
    i += 2;
    if (v.is_error()) {
      fresh.reply_error = v.str;
    } else {
      for (std::size_t f = 0; f + 1 < v.elements.size(); f += 2) {
        fresh.fields.emplace(v.elements[f].str, v.elements[f + 1].str);
      }
    }
    if (fresh.reply_error.empty() && fresh.fields.empty() && with_keys.count(ck) == 0) {
      // A rule seen before and deleted since, none of its keys left: forget it.
      rules_.erase(ck);
      cache_.erase(ck);
      continue;
    }
    auto [it, added] = cache_.try_emplace(ck);
    RuleCache& rule = it->second;
    if (added || rule.fields != fresh.fields || rule.reply_error != fresh.reply_error ||
        rule.legacy != fresh.legacy) {
      changed.insert(ck);
      if (!fresh.reply_error.empty()) {
        fresh.error = fresh.reply_error;
      } else if (fresh.fields.empty()) {
        fresh.error = "no config (its state keys cannot be read)";
      } else if (auto parsed = redis::parse_config_fields(fresh.fields)) {
        fresh.config = std::move(parsed).value();
        for (const auto& l : fresh.config->limits) fresh.described.push_back(l.params.describe());
      } else {
        fresh.error = parsed.error();
      }
      rule = std::move(fresh);
    }
    if (!rule.error.empty()) snap.errors.push_back(ck + ": " + rule.error);
  }
  // Rules no longer read (no key tracked, no index) leave the cache.
  std::erase_if(cache_, [&](const auto& entry) { return read_rules.count(entry.first) == 0; });
  return changed;
}

redis::Result<ProbeSnapshot> RedisProbe::run(redis::Connection& c, std::size_t scan_budget) {
  ProbeSnapshot snap;
  auto calls = budget_ && scan_budget != SIZE_MAX ? discover_adaptive(c, snap)
                                                  : discover(c, scan_budget, snap);
  if (!calls) return calls.error();
  snap.scan_calls = *calls;

  // The rules to read: those with tracked keys (consecutive in key order, so a rule's name is
  // compared, not looked up, per key) and those whose index is read.
  std::set<std::string> with_keys;
  keys_.clear();
  keys_.reserve(tracked_.size());
  const std::string* last_rule = nullptr;
  for (const auto& entry : tracked_) {
    keys_.push_back(&entry);
    if (entry.second.rule == nullptr || entry.second.rule == last_rule) continue;
    with_keys.insert(*entry.second.rule);
    last_rule = entry.second.rule;
  }
  std::set<std::string> read_rules = with_keys;
  read_rules.insert(rules_.begin(), rules_.end());

  // First round trip: TIME, each rule's config and stamp, the pressure indexes, and every read
  // that needs neither (plan_early). The batches and plans keep their memory across refreshes.
  reads_.clear();
  reads_.reserve(keys_.size() * (options_.read_ttl ? 2 : 1) + 1 + 3 * read_rules.size(),
                 keys_.size() * 64);
  reads_.add({"TIME"});
  for (const auto& ck : read_rules) {
    reads_.add({"HGETALL", ck});
    reads_.add({"GET", stamp_key_for_config(ck)});  // whether old hash states may remain
  }
  // Entries full again before the last refresh's time are stale: the writer drops them later.
  const std::string from = last_server_us_ > 0 ? "(" + std::to_string(last_server_us_) : "-inf";
  const std::string limit = std::to_string(options_.max_tracked);
  const std::vector<std::string> indexed(rules_.begin(), rules_.end());
  for (const auto& ck : indexed)
    reads_.add({"ZRANGEBYSCORE", pressure_key_for_config(ck), from, "+inf", "LIMIT", "0", limit});
  snap.index_reads = indexed.size();
  plans_.assign(keys_.size(), Plan{});
  early_rule_ = nullptr;
  early_cache_ = nullptr;
  for (std::size_t k = 0; k < keys_.size(); ++k) plan_early(*keys_[k], plans_[k]);
  auto early = c.pipeline(reads_);
  if (!early) return early.error();
  const std::vector<redis::Value>& replies = *early;
  auto now = server_time_us(replies[0]);
  if (!now) return now.error();
  snap.server_time_us = *now;
  last_server_us_ = *now;
  const std::set<std::string> changed = update_rules(
      std::span<const redis::Value>(replies).subspan(1), read_rules, with_keys, *now, snap);
  for (std::size_t x = 0; x < indexed.size(); ++x) {
    const auto it = cache_.find(indexed[x]);
    merge_index(indexed[x], it != cache_.end() && it->second.config ? &*it->second.config : nullptr,
                replies[1 + 2 * read_rules.size() + x], snap);
  }
  plans_.resize(keys_.size());

  // After TIME: what could not be read early, and the early reads of rules that changed.
  late_.clear();
  last_rule = nullptr;
  const RuleCache* rule = nullptr;
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    const Entry& e = *keys_[k];
    Plan& plan = plans_[k];
    const LimiterProfile& p = profiles_[e.second.profile];
    if (p.kind != ProfileKind::limitscope) {
      if (plan.batch == 0) continue;
      plan.batch = 1;
      plan.first = late_.size();
      plan.count = read_commands(late_, p, e.first, *now, options_.read_ttl);
      continue;
    }
    const std::string* ck = e.second.rule;
    if (plan.batch == 0 && (changed.empty() || changed.count(*ck) == 0)) continue;
    if (ck != nullptr && ck != last_rule) {
      const auto it = cache_.find(*ck);
      rule = it != cache_.end() ? &it->second : nullptr;
      last_rule = ck;
    }
    plan = Plan{};
    plan.batch = 1;
    plan_own(e, ck != nullptr ? rule : nullptr, plan, late_, *now);
  }
  snap.read_commands = reads_.size() + late_.size();
  std::vector<redis::Value> late_replies;
  if (!late_.empty()) {
    auto r = c.pipeline(late_);
    if (!r) return r.error();
    late_replies = std::move(r).value();
  }

  snap.keys.reserve(keys_.size());
  std::vector<std::string> vanished;
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    const std::string& key = keys_[k]->first;
    const LimiterProfile& p = profiles_[keys_[k]->second.profile];
    Plan& plan = plans_[k];
    if (!plan.error.empty()) {
      KeyReading& reading = snap.keys.emplace_back();
      reading.key = key;
      reading.profile = p.name;
      reading.kind = p.kind;
      reading.error = std::move(plan.error);
      continue;
    }
    const std::vector<redis::Value>& from_batch = plan.batch == 0 ? replies : late_replies;
    const std::span<const redis::Value> mine(from_batch.data() + plan.first, plan.count);
    KeyReading& reading = snap.keys.emplace_back(
        plan.own != nullptr ? own_evaluate(p.name, key, *plan.own, mine, *now, plan.parameters)
                            : evaluate(p, key, mine, *now));
    if (reading.missing) {
      vanished.push_back(key);  // expired or deleted since discovery: stop tracking it
      snap.keys.pop_back();
      continue;
    }
    reading.limit_name = std::move(plan.limit_name);
    reading.limit_index = plan.limit_index;
  }
  for (const auto& k : vanished) tracked_.erase(k);

  // Tracked keys are read in key order; the ones an index added this refresh come after them.
  sort_by_pressure(snap.keys, snap.from_index == 0);
  if (snap.keys.size() > options_.max_tracked) {
    for (std::size_t k = options_.max_tracked; k < snap.keys.size(); ++k)
      tracked_.erase(snap.keys[k].key);
    snap.dropped = snap.keys.size() - options_.max_tracked;
    snap.keys.resize(options_.max_tracked);
  }
  for (const auto& [pattern, key] : unmatched_examples_) snap.unmatched_examples.push_back(key);
  snap.discovery_complete = pass_done_once_;
  snap.unmatched = pass_done_once_ ? unmatched_last_pass_ : unmatched_this_pass_;
  return snap;
}

}  // namespace limitscope::probe
