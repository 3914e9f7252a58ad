#include "core/probe/redis_probe.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>

#include "core/probe/own_schema.h"
#include "core/probe/profile_detect.h"

namespace limitscope::probe {

namespace {

redis::Result<std::int64_t> server_time_us(const redis::Value& v) {
  if (auto t = v.as_time_us()) return *t;
  return redis::make_redis_error(redis::ErrorKind::protocol, "TIME answered " + v.describe());
}

// A stamp no reading has had: identities are compared across probes (a cluster's readings
// go back to the master that made them, but a reading may outlive a master's probe).
std::uint64_t next_identity() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

// To a thousandth, the key table's precision (0.1% of a capacity or limit): keys that look
// equally empty there are ordered by when they got there, not by a few thousandths of a token
// (the buckets of one rule emptied at different moments, or of rules seeded apart, differ so).
std::int64_t pressure_rank(const KeyReading& r) {
  const auto p = r.pressure();
  return p ? std::llround(*p * 1e3) : -1;  // pressure is >= 0 when known
}

// Highest pressure first; unknown pressure (no capacity, errors) after every known one; among
// equal pressures the one that rose last first, then by key. The rank is computed once per
// key, not per comparison, and the readings are moved into place along the permutation's
// cycles (no second vector of readings).
void sort_by_pressure(std::vector<KeyReading>& keys) {
  struct Order {
    std::int64_t rank, rose;
    std::size_t at;
  };
  std::vector<Order> order(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    order[i] = {pressure_rank(keys[i]), keys[i].pressure_rose_us, i};
  std::sort(order.begin(), order.end(), [&](const Order& a, const Order& b) {
    if (a.rank != b.rank) return a.rank > b.rank;
    if (a.rose != b.rose) return a.rose > b.rose;
    return keys[a.at].key < keys[b.at].key;
  });
  std::vector<bool> placed(keys.size(), false);
  for (std::size_t start = 0; start < keys.size(); ++start) {
    if (placed[start]) continue;
    KeyReading held = std::move(keys[start]);
    std::size_t at = start;
    while (true) {
      placed[at] = true;
      const std::size_t from = order[at].at;
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
    ++found_;
    slots_valid_ = false;  // read from the next refresh on, in key order
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
  const CpuClock& cpu = cpu_clock();
  const std::size_t budget = budget_->keys();
  snap.scan_budget = budget;
  std::size_t asked = 0;
  std::size_t calls = 0;
  const Nanos cpu0 = cpu.thread_cpu();
  const Nanos t0 = clock.now();
  while (asked < budget) {
    const std::size_t count = std::min(options_.scan_count, budget - asked);
    auto done = scan_once(c, count, snap);
    if (!done) return done.error();
    asked += count;
    ++calls;
    if (*done) break;
  }
  discovery_.wall = clock.now() - t0;
  discovery_.cpu_after = cpu.thread_cpu();
  discovery_.cpu = discovery_.cpu_after - cpu0;
  discovery_.asked = asked;
  return calls;
}

const CpuClock& RedisProbe::cpu_clock() const {
  return options_.cpu_clock != nullptr ? *options_.cpu_clock : ThreadCpuClock::instance();
}

void RedisProbe::observe_discovery(std::size_t read, ProbeSnapshot& snap) {
  if (!budget_ || discovery_.asked == 0) return;
  const CpuClock& cpu = cpu_clock();
  const Nanos rest = std::max(cpu.thread_cpu() - discovery_.cpu_after, Nanos{0});
  Nanos cost = std::max(discovery_.cpu, Nanos{0});
  if (read > 0 && found_ > 0) {
    const double found = static_cast<double>(std::min(found_, read));
    cost += Nanos{static_cast<Nanos::rep>(static_cast<double>(rest.count()) * found /
                                          static_cast<double>(read))};
  }
  snap.discovery_cpu_ns = cost.count();
  budget_->observe(ScanCost{discovery_.wall, cost}, discovery_.asked);
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
      slots_.emplace_back().entry = &*tracked_.emplace(std::move(key), std::move(t)).first;
      slots_valid_ = false;  // planned after TIME this time; in key order from the next
      ++snap.from_index;
    }
  }
}

void RedisProbe::forget(const std::string& key) {
  erase_tracked(key);
}

void RedisProbe::reshape_scan(const ScanBudgetOptions& options) {
  if (budget_) budget_->reshape(options);
}

void RedisProbe::erase_tracked(const std::string& key) {
  if (tracked_.erase(key) > 0) slots_valid_ = false;
}

void RedisProbe::recycle(std::vector<KeyReading> readings) {
  if (spare_.empty()) {
    spare_ = std::move(readings);
    return;
  }
  spare_.insert(spare_.end(), std::make_move_iterator(readings.begin()),
                std::make_move_iterator(readings.end()));
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
    plan.first = key_reads_.size();
    plan.count = read_commands(key_reads_, p, e.first, 0, options_.read_ttl);
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
  plan_own(e, early_cache_, plan, key_reads_, 0);
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
                                               std::int64_t now_us, ProbeSnapshot& snap) {
  std::set<std::string> changed;
  const std::size_t cached = cache_.size();
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
    if (fresh.reply_error.empty() && fresh.fields.empty() && with_keys_.count(ck) == 0) {
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
  // Plans point into the cache: a rule changed, or forgotten, has its keys planned again.
  if (!changed.empty() || cache_.size() != cached) slots_valid_ = false;
  return changed;
}

void RedisProbe::identify(Slot& s) const {
  const LimiterProfile& p = profiles_[s.entry->second.profile];
  KeyReading& r = s.reading;
  r.key = s.entry->first;
  r.profile = p.name;
  r.kind = p.kind;
  if (s.plan.own != nullptr) {
    r.algorithm = to_string(s.plan.own->algorithm);
  } else {
    r.algorithm.clear();
  }
  if (s.plan.parameters != nullptr) {
    r.parameters = *s.plan.parameters;
  } else {
    r.parameters.clear();
  }
  r.limit_name = s.plan.limit_name;
  r.limit_index = s.plan.limit_index;
  r.node = options_.node;
  r.clear_figures();
  r.error = s.plan.error;
  r.identity = next_identity();
}

// The slots in key order (a rule's keys are consecutive: its name is compared, not looked up,
// per key), each reading assigned into the memory of the one that was in its place.
void RedisProbe::plan_slots() {
  slots_.resize(tracked_.size());
  key_reads_.clear();
  key_reads_.reserve(tracked_.size() * (options_.read_ttl ? 2 : 1), tracked_.size() * 64);
  with_keys_.clear();
  early_rule_ = nullptr;
  early_cache_ = nullptr;
  const std::string* last_rule = nullptr;
  std::size_t k = 0;
  for (Entry& entry : tracked_) {
    Slot& s = slots_[k++];
    s.entry = &entry;
    s.plan = Plan{};
    s.vanished = false;
    plan_early(entry, s.plan);
    identify(s);
    if (entry.second.rule == nullptr || entry.second.rule == last_rule) continue;
    with_keys_.insert(*entry.second.rule);
    last_rule = entry.second.rule;
  }
  slots_valid_ = true;
}

void RedisProbe::evaluate_slot(Slot& s, std::span<const redis::Value> replies,
                               std::int64_t now_us) {
  KeyReading& r = s.reading;
  if (!s.plan.error.empty()) {
    r.clear_figures();
    r.error = s.plan.error;
  } else if (s.plan.own != nullptr) {
    own_evaluate_into(r, *s.plan.own, replies, now_us);
  } else {
    evaluate_into(r, profiles_[s.entry->second.profile], replies, now_us);
  }
  // Recency orders only keys below a tenth of their capacity (the index's threshold): among
  // the rest, ties stay by key, so the keys kept at the cap do not rotate with each new find.
  constexpr std::int64_t kRecentFrom = 900;
  Tracked& t = s.entry->second;
  const std::int64_t rank = pressure_rank(r);
  if (rank < kRecentFrom) {
    t.rose_us = 0;
  } else if (rank > t.rank) {
    t.rose_us = now_us;  // first read there, or under more pressure than before
  }
  t.rank = rank;
  r.pressure_rose_us = t.rose_us;
}

// Most pressure first (sort_by_pressure's order), sorted as (rank, slot) pairs and copied
// into the readings handed back by the last snapshot's reader: strings assigned into memory
// they own, no reading moved or allocated per key.
void RedisProbe::hand_out(ProbeSnapshot& snap, bool key_ordered) {
  order_.clear();
  order_.reserve(slots_.size());
  for (std::size_t k = 0; k < slots_.size(); ++k)  // the rank evaluate_slot() stored
    if (!slots_[k].vanished) order_.emplace_back(slots_[k].entry->second.rank, k);
  auto higher = [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    const KeyReading& x = slots_[a.second].reading;
    const KeyReading& y = slots_[b.second].reading;
    if (x.pressure_rose_us != y.pressure_rose_us) return x.pressure_rose_us > y.pressure_rose_us;
    return !key_ordered && x.key < y.key;
  };
  if (key_ordered) {
    std::stable_sort(order_.begin(), order_.end(), higher);
  } else {
    std::sort(order_.begin(), order_.end(), higher);
  }
  const std::size_t shown = std::min(order_.size(), options_.max_tracked);
  snap.keys = std::move(spare_);
  spare_ = {};
  snap.keys.resize(shown);
  for (std::size_t i = 0; i < shown; ++i) snap.keys[i].assign(slots_[order_[i].second].reading);
  if (order_.size() > shown) {
    for (std::size_t i = shown; i < order_.size(); ++i)
      erase_tracked(slots_[order_[i].second].entry->first);
    snap.dropped = order_.size() - shown;
  }
}

redis::Result<ProbeSnapshot> RedisProbe::run(redis::Connection& c, std::size_t scan_budget) {
  ProbeSnapshot snap;
  discovery_ = DiscoveryCost{};
  found_ = 0;
  auto calls = budget_ && scan_budget != SIZE_MAX ? discover_adaptive(c, snap)
                                                  : discover(c, scan_budget, snap);
  if (!calls) return calls.error();
  snap.scan_calls = *calls;
  if (!slots_valid_) plan_slots();
  // The rules to read: those with tracked keys and those whose index is read.
  std::set<std::string> read_rules = with_keys_;
  read_rules.insert(rules_.begin(), rules_.end());

  // First round trip: TIME, each rule's config and stamp, the pressure indexes, and every read
  // that needs neither (the slots' early reads, encoded when they were planned).
  reads_.clear();
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
  const std::size_t base = reads_.size();  // where the slots' early replies start
  reads_.append(key_reads_);
  auto early = c.pipeline(reads_);
  if (!early) return early.error();
  const std::vector<redis::Value>& replies = *early;
  auto now = server_time_us(replies[0]);
  if (!now) return now.error();
  snap.server_time_us = *now;
  last_server_us_ = *now;
  const std::size_t planned = slots_.size();
  const std::set<std::string> changed =
      update_rules(std::span<const redis::Value>(replies).subspan(1), read_rules, *now, snap);
  for (std::size_t x = 0; x < indexed.size(); ++x) {
    const auto it = cache_.find(indexed[x]);
    merge_index(indexed[x], it != cache_.end() && it->second.config ? &*it->second.config : nullptr,
                replies[1 + 2 * read_rules.size() + x], snap);
  }

  // After TIME: what could not be read early, and the early reads of rules that changed.
  late_.clear();
  const std::string* last_rule = nullptr;
  const RuleCache* rule = nullptr;
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    Slot& s = slots_[k];
    const Entry& e = *s.entry;
    Plan& plan = s.plan;
    const LimiterProfile& p = profiles_[e.second.profile];
    if (p.kind != ProfileKind::limitscope) {
      if (plan.batch == 0) continue;
      plan.batch = 1;
      plan.first = late_.size();
      plan.count = read_commands(late_, p, e.first, *now, options_.read_ttl);
      if (k >= planned) identify(s);
      continue;
    }
    const std::string* ck = e.second.rule;
    if (k < planned && plan.batch == 0 && (changed.empty() || changed.count(*ck) == 0)) continue;
    if (ck != nullptr && ck != last_rule) {
      const auto it = cache_.find(*ck);
      rule = it != cache_.end() ? &it->second : nullptr;
      last_rule = ck;
    }
    plan = Plan{};
    plan.batch = 1;
    plan_own(e, ck != nullptr ? rule : nullptr, plan, late_, *now);
    identify(s);
  }
  snap.read_commands = reads_.size() + late_.size();
  std::vector<redis::Value> late_replies;
  if (!late_.empty()) {
    auto r = c.pipeline(late_);
    if (!r) return r.error();
    late_replies = std::move(r).value();
  }

  for (Slot& s : slots_) {
    const Plan& plan = s.plan;
    const std::vector<redis::Value>& from_batch = plan.batch == 0 ? replies : late_replies;
    const std::size_t first = plan.batch == 0 ? base + plan.first : plan.first;
    evaluate_slot(s, std::span<const redis::Value>(from_batch.data() + first, plan.count), *now);
    if (!s.reading.missing) continue;
    s.vanished = true;  // expired or deleted since discovery: stop tracking it
    erase_tracked(s.entry->first);
  }
  // Slots are in key order, unless an index added keys after them this refresh.
  const std::size_t read = slots_.size();
  hand_out(snap, snap.from_index == 0);
  for (const auto& [pattern, key] : unmatched_examples_) snap.unmatched_examples.push_back(key);
  snap.discovery_complete = pass_done_once_;
  snap.unmatched = pass_done_once_ ? unmatched_last_pass_ : unmatched_this_pass_;
  observe_discovery(read, snap);
  return snap;
}

}  // namespace limitscope::probe
