#pragma once
// Finds limiter keys in a Redis and reads them at the server's time. Discovery is SCAN with
// MATCH/COUNT under a budget per refresh, resuming from its cursor (never KEYS, never one long
// blocking call): a fixed number of SCAN calls, or (adaptive_scan) a share of the refresh's
// time and of the dashboard's CPU (core/probe/scan_budget.h), so a small keyspace is scanned
// whole at every refresh and a large one a slice at a time; each key gets the first matching
// profile, and keys matching none are only counted. Reading is one pipeline holding TIME, the
// own rules' configs and every state read that needs neither (the rule's config as last read
// serves to plan it; a changed config has its keys read again), then, only where needed, a
// second pipeline of the reads that depend on the server's time or on a config not read
// before. What an unchanged refresh repeats (the keys' plans, readings and read commands) is
// kept from the last one, and a snapshot's readings handed back (recycle) are written over.
// Beyond `max_tracked` keys, the ones under the most pressure (emptiest buckets, fullest
// windows) are kept. Own-schema rules keep a pressure index (docs/redis-schema.md): once SCAN
// has seen one key of a rule, each refresh reads the rule's index in the same round trip as
// TIME, so the keys decisions left nearly empty are tracked at once; SCAN remains for discovery
// and for foreign schemas.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/common/cpu_clock.h"
#include "core/probe/key_reading.h"
#include "core/probe/limiter_profile.h"
#include "core/probe/own_schema.h"
#include "core/probe/scan_budget.h"
#include "core/redis/connection.h"

namespace limitscope::probe {

struct ProbeOptions {
  std::string match = "*";                  ///< SCAN MATCH (narrows discovery server-side)
  std::size_t scan_count = 1000;            ///< SCAN COUNT
  std::size_t scan_calls_per_refresh = 10;  ///< discovery budget per refresh (fixed budget)
  /// Set: discovery's budget follows the time SCAN takes instead (scan_calls_per_refresh is
  /// then unused); a refresh stops scanning at the end of a full pass.
  std::optional<ScanBudgetOptions> adaptive_scan;
  /// Times the SCAN calls for adaptive_scan; null: the real clock.
  const Clock* clock = nullptr;
  /// Measures discovery's CPU for adaptive_scan (on the thread that refreshes); null: the
  /// thread's real CPU clock.
  const CpuClock* cpu_clock = nullptr;
  std::size_t max_tracked = 10000;
  bool read_ttl = true;  ///< PTTL of every key (half the commands of a refresh)
  /// Read the pressure index of every own-schema rule seen ("<prefix>{R}:pressure", written by
  /// the limiter's decisions) at each refresh, and track the keys it lists: an emptied key is
  /// found at the next refresh, however far the SCAN pass is from it.
  bool pressure_index = true;
  /// The name every reading carries in KeyReading::node: empty on one server; ClusterProbe
  /// gives each master's probe that master's address.
  std::string node;
};

struct ProbeSnapshot {
  std::int64_t server_time_us = 0;
  std::vector<KeyReading> keys;     ///< tracked keys, most pressure first (errors last)
  std::size_t unmatched = 0;        ///< keys of the last full SCAN pass matching no profile
                                    ///< (of the current pass while the first one runs)
  bool discovery_complete = false;  ///< a full SCAN pass has finished
  std::size_t scanned = 0;          ///< keys SCAN returned during this refresh
  std::size_t scan_calls = 0;       ///< SCAN calls during this refresh
  std::size_t scan_budget = 0;  ///< adaptive_scan: the COUNT units this refresh could ask for (a
                                ///< cluster: summed over its masters)
  /// adaptive_scan: the dashboard's CPU this refresh's discovery took (its SCAN replies, and
  /// its share of the reads: those of the keys it found), nanoseconds (a cluster: summed)
  std::int64_t discovery_cpu_ns = 0;
  std::size_t read_commands = 0;    ///< commands of the read pipelines
  std::size_t index_reads = 0;      ///< pressure indexes read (one per own-schema rule seen)
  std::size_t index_entries = 0;    ///< keys they listed
  std::size_t from_index = 0;       ///< ... of which not tracked before (found without SCAN)
  std::size_t dropped = 0;          ///< tracked keys let go for the cap (this refresh)
  std::vector<std::string> errors;  ///< per-rule problems (missing or invalid config)
  /// Unmatched keys seen so far, one per key pattern (pattern_for), at most 20: what
  /// profile detection looks at.
  std::vector<std::string> unmatched_examples;
  /// Redis Cluster: keys left out of this refresh because their slot was migrating (their
  /// read was redirected); the new owner's scan finds them.
  std::size_t moving = 0;
  /// Redis Cluster: those keys, by name.
  std::vector<std::string> moving_keys;
  /// Redis Cluster: the masters ("host:port") that could not be probed this refresh; their
  /// keys are missing from `keys`.
  std::vector<std::string> failed_nodes;
};

/// Highest pressure first (compared to a thousandth: closer pressures are equal), unknown
/// pressure (errors) last; among equal pressures the latest to rise first
/// (KeyReading::pressure_rose_us), then by key.
void sort_by_pressure(std::vector<KeyReading>& keys);
/// The order sort_by_pressure gives, as the rank of a pressure: higher first, -1 unknown.
std::int64_t pressure_rank(const KeyReading& r);

class RedisProbe {
 public:
  RedisProbe(std::vector<LimiterProfile> profiles, ProbeOptions options);

  /// One budgeted discovery step, then a read of every tracked key.
  redis::Result<ProbeSnapshot> refresh(redis::Connection& c);
  /// Discovery until a full SCAN pass is done (no budget), then a read: for the CLI.
  redis::Result<ProbeSnapshot> probe_all(redis::Connection& c);

  std::size_t tracked() const { return tracked_.size(); }
  /// Stops tracking `key` (a cluster node that no longer holds it); a later SCAN may find it.
  void forget(const std::string& key);
  /// Discovery's new time share and bounds (adaptive_scan; nothing without it).
  void reshape_scan(const ScanBudgetOptions& options);
  /// Hands back a snapshot's readings once read: the next refresh writes its readings into
  /// them (assigning strings into memory they already own) instead of allocating new ones.
  /// Readings handed back twice before a refresh (a cluster's trimmed ones, then the
  /// snapshot's) are all kept.
  void recycle(std::vector<KeyReading> readings);
  /// Full SCAN passes completed so far: a key present before a pass began is found by it.
  std::uint64_t passes() const { return passes_; }

 private:
  redis::Result<ProbeSnapshot> run(redis::Connection& c, std::size_t scan_budget);
  redis::Result<std::size_t> discover(redis::Connection& c, std::size_t budget,
                                      ProbeSnapshot& snap);
  redis::Result<std::size_t> discover_adaptive(redis::Connection& c, ProbeSnapshot& snap);
  /// Tells the budget what this refresh's discovery cost (adaptive_scan): the SCAN calls' wall
  /// time and CPU, and the CPU of the rest of the refresh in the share of the keys it read that
  /// SCAN found in it (tracking, planning, reading, decoding and ranking them).
  void observe_discovery(std::size_t read, ProbeSnapshot& snap);
  const CpuClock& cpu_clock() const;  ///< options_.cpu_clock, or the thread's real one
  redis::Result<bool> scan_once(redis::Connection& c, std::size_t count, ProbeSnapshot& snap);

  struct Tracked {
    std::size_t profile = 0;            ///< index in profiles_
    std::optional<OwnKey> own;          ///< own schema: the key's parts, parsed once when found
    const std::string* rule = nullptr;  ///< ... its config key, interned (rule_names_)
    std::int64_t rank = -2;             ///< pressure_rank() last read (-2: never read)
    std::int64_t rose_us = 0;           ///< server time of the refresh it last rose at
  };
  Tracked make_tracked(const LimiterProfile& p, const std::string& key);
  using Entry = std::pair<const std::string, Tracked>;
  /// An own-schema rule as last read: its config, parsed only when its fields change.
  struct RuleCache {
    std::map<std::string, std::string> fields;  ///< HGETALL's answer
    std::string reply_error;                    ///< HGETALL answered an error instead
    std::optional<redis::RuleConfig> config;    ///< parsed; nullopt: none or invalid
    std::string error;                          ///< why there is none (snap.errors)
    bool legacy = true;                         ///< old hash states may remain (its stamp)
    std::vector<std::string> described;         ///< each limit's LimitParams::describe()
  };
  /// Where one key's replies are in a refresh's read pipelines, and what reads them.
  struct Plan {
    int batch = -1;  ///< 0: read with TIME (first round trip); 1: after it; -1: not planned
    std::size_t first = 0;
    std::size_t count = 0;
    const LimitParams* own = nullptr;         ///< own schema: the limit's parameters
    const std::string* parameters = nullptr;  ///< ... described
    std::string limit_name;  ///< own schema: a composite's limit the key belongs to
    int limit_index = -1;    ///< ... and its place among the rule's limits
    std::string error;       ///< no read possible
  };
  /// One tracked key as a refresh reads it. The list of slots, their plans, readings and the
  /// early reads' RESP bytes are kept across refreshes and made again only when the tracked
  /// keys or a rule's config change: a refresh of unchanged keys encodes nothing, allocates
  /// nothing per key and writes only each reading's figures.
  struct Slot {
    Entry* entry = nullptr;
    Plan plan;
    KeyReading reading;  ///< identity set when planned; figures at every refresh
    bool vanished = false;
  };
  /// Tracks the keys listed by the index reply `v` of the rule `config_key` (`config`: null
  /// when it has none) and adds them to slots_, to be read in this refresh.
  void merge_index(const std::string& config_key, const redis::RuleConfig* config,
                   const redis::Value& v, ProbeSnapshot& snap);
  /// Reads the configs, stamps and indexes from the first round trip's replies into cache_.
  /// @return the rules whose cache changed (keys read from the old one are read again)
  std::set<std::string> update_rules(std::span<const redis::Value> replies,
                                     const std::set<std::string>& read_rules, std::int64_t now_us,
                                     ProbeSnapshot& snap);
  /// Adds the reads of own-schema key `e` under `rule` to `batch`, or says why there are none.
  void plan_own(const Entry& e, const RuleCache* rule, Plan& plan, redis::CommandBatch& batch,
                std::int64_t now_us) const;
  /// Adds the reads of `e` to key_reads_ when they need no fresh server time and no config
  /// read this refresh (early: batch 0); otherwise leaves the plan for after TIME.
  void plan_early(const Entry& e, Plan& plan);
  /// Sets what a reading of `s` says whoever reads it (key, profile, algorithm, limit).
  void identify(Slot& s) const;
  /// Makes slots_, their early plans and key_reads_ again from tracked_ (in key order).
  void plan_slots();
  /// Reads slot `s`'s figures from its replies, and whether its pressure rose.
  void evaluate_slot(Slot& s, std::span<const redis::Value> replies, std::int64_t now_us);
  /// The readings, most pressure first, at most max_tracked (the rest are let go).
  void hand_out(ProbeSnapshot& snap, bool key_ordered);
  void erase_tracked(const std::string& key);

  std::vector<LimiterProfile> profiles_;
  ProbeOptions options_;
  std::optional<ScanBudget> budget_;  ///< adaptive_scan
  /// What this refresh's discovery cost so far (adaptive_scan), for observe_discovery.
  struct DiscoveryCost {
    std::size_t asked = 0;  ///< COUNT units asked (0: no adaptive discovery this refresh)
    Nanos wall{0};          ///< the SCAN calls' wall time
    Nanos cpu{0};           ///< ... their CPU (replies decoded, keys matched and tracked)
    Nanos cpu_after{0};     ///< the CPU clock when they ended
  };
  DiscoveryCost discovery_;
  std::size_t found_ = 0;                   ///< keys SCAN tracked for the first time this refresh
  std::map<std::string, Tracked> tracked_;  ///< key → how to read it
  /// Own-schema rules seen (their config keys): whose pressure index each refresh reads.
  std::set<std::string> rules_;
  std::map<std::string, RuleCache> cache_;  ///< config key → the rule as last read
  /// Config keys of the own-schema keys ever tracked, one string each: a key's rule is
  /// compared by address.
  std::set<std::string> rule_names_;
  const std::string* early_rule_ = nullptr;  ///< plan_early's last rule ...
  const RuleCache* early_cache_ = nullptr;   ///< ... and its cache entry
  std::int64_t last_server_us_ = 0;          ///< TIME of the last refresh (0: none yet)
  std::vector<Slot> slots_;                  ///< the tracked keys as read (key order)
  bool slots_valid_ = false;                 ///< slots_ and key_reads_ match tracked_ and cache_
  std::set<std::string> with_keys_;          ///< rules with tracked keys (with slots_)
  redis::CommandBatch key_reads_;            ///< the slots' early reads (with slots_)
  redis::CommandBatch reads_;                ///< first round trip (reused)
  redis::CommandBatch late_;                 ///< reads after TIME (reused likewise)
  std::vector<std::pair<std::int64_t, std::size_t>> order_;  ///< hand_out's sort (reused)
  std::vector<KeyReading> spare_;  ///< readings handed back (recycle), written next refresh
  std::string cursor_ = "0";
  bool pass_started_ = false;
  bool pass_done_once_ = false;
  std::uint64_t passes_ = 0;
  std::size_t unmatched_this_pass_ = 0;
  std::size_t unmatched_last_pass_ = 0;
  std::map<std::string, std::string> unmatched_examples_;  ///< pattern → one key
};

}  // namespace limitscope::probe
