#pragma once
// Finds limiter keys in a Redis and reads them at the server's time. Discovery is SCAN with
// MATCH/COUNT under a budget per refresh, resuming from its cursor (never KEYS, never one long
// blocking call): a fixed number of SCAN calls, or (adaptive_scan) a share of the refresh's
// time (core/probe/scan_budget.h), so a small keyspace is scanned whole at every refresh and a
// large one a slice at a time; each key gets the first matching profile, and keys matching
// none are only counted. Reading is one TIME, one pipeline of rule configs (own schema), then
// one pipeline of state reads for every tracked key. Beyond `max_tracked` keys, the ones under
// the most pressure (emptiest buckets, fullest windows) are kept. Own-schema rules keep a
// pressure index (docs/redis-schema.md): once SCAN has seen one key of a rule, each refresh
// reads the rule's index in the same round trip as TIME, so the keys decisions left nearly
// empty are tracked at once; SCAN remains for discovery and for foreign schemas.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/probe/key_reading.h"
#include "core/probe/limiter_profile.h"
#include "core/probe/own_schema.h"
#include "core/probe/scan_budget.h"
#include "core/redis/connection.h"

namespace limitscope::probe {

struct ProbeOptions {
  std::string match = "*";              ///< SCAN MATCH (narrows discovery server-side)
  std::size_t scan_count = 1000;        ///< SCAN COUNT
  std::size_t scan_calls_per_refresh = 10;  ///< discovery budget per refresh (fixed budget)
  /// Set: discovery's budget follows the time SCAN takes instead (scan_calls_per_refresh is
  /// then unused); a refresh stops scanning at the end of a full pass.
  std::optional<ScanBudgetOptions> adaptive_scan;
  /// Times the SCAN calls for adaptive_scan; null: the real clock.
  const Clock* clock = nullptr;
  std::size_t max_tracked = 10000;
  bool read_ttl = true;  ///< PTTL of every key (half the commands of a refresh)
  /// Read the pressure index of every own-schema rule seen ("<prefix>{R}:pressure", written by
  /// the limiter's decisions) at each refresh, and track the keys it lists: an emptied key is
  /// found at the next refresh, however far the SCAN pass is from it.
  bool pressure_index = true;
};

struct ProbeSnapshot {
  std::int64_t server_time_us = 0;
  std::vector<KeyReading> keys;     ///< tracked keys, most pressure first (errors last)
  std::size_t unmatched = 0;        ///< keys of the last full SCAN pass matching no profile
                                    ///< (of the current pass while the first one runs)
  bool discovery_complete = false;  ///< a full SCAN pass has finished
  std::size_t scanned = 0;          ///< keys SCAN returned during this refresh
  std::size_t scan_calls = 0;       ///< SCAN calls during this refresh
  std::size_t scan_budget = 0;      ///< adaptive_scan: the COUNT units this refresh could ask for
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

/// Highest pressure first, unknown pressure (errors) last, ties by key.
void sort_by_pressure(std::vector<KeyReading>& keys);

class RedisProbe {
 public:
  RedisProbe(std::vector<LimiterProfile> profiles, ProbeOptions options);

  /// One budgeted discovery step, then a read of every tracked key.
  redis::Result<ProbeSnapshot> refresh(redis::Connection& c);
  /// Discovery until a full SCAN pass is done (no budget), then a read: for the CLI.
  redis::Result<ProbeSnapshot> probe_all(redis::Connection& c);

  std::size_t tracked() const { return tracked_.size(); }
  /// Stops tracking `key` (a cluster node that no longer holds it); a later SCAN may find it.
  void forget(const std::string& key) { tracked_.erase(key); }
  /// Full SCAN passes completed so far: a key present before a pass began is found by it.
  std::uint64_t passes() const { return passes_; }

 private:
  redis::Result<ProbeSnapshot> run(redis::Connection& c, std::size_t scan_budget);
  redis::Result<std::size_t> discover(redis::Connection& c, std::size_t budget,
                                      ProbeSnapshot& snap);
  redis::Result<std::size_t> discover_adaptive(redis::Connection& c, ProbeSnapshot& snap);
  redis::Result<bool> scan_once(redis::Connection& c, std::size_t count, ProbeSnapshot& snap);
  void merge_index(const std::string& config_key, const std::optional<redis::RuleConfig>& config,
                   const redis::Value& v, ProbeSnapshot& snap);

  struct Tracked {
    std::size_t profile = 0;    ///< index in profiles_
    std::optional<OwnKey> own;  ///< own schema: the key's parts, parsed once when found
  };
  /// Where one key's replies are in a refresh's read pipeline, and what reads them.
  struct Plan {
    std::size_t first = 0;
    std::size_t count = 0;
    const LimitParams* own = nullptr;  ///< own schema: the limit's parameters
    std::string limit_name;            ///< own schema: a composite's limit the key belongs to
    int limit_index = -1;              ///< ... and its place among the rule's limits
    std::string error;                 ///< no read possible
  };

  std::vector<LimiterProfile> profiles_;
  ProbeOptions options_;
  std::optional<ScanBudget> budget_;             ///< adaptive_scan
  std::map<std::string, Tracked> tracked_;       ///< key → how to read it
  /// Own-schema rules seen (their config keys): whose pressure index each refresh reads.
  std::set<std::string> rules_;
  std::int64_t last_server_us_ = 0;              ///< TIME of the last refresh (0: none yet)
  redis::CommandBatch reads_;                    ///< reused: its buffer outlives a refresh
  std::vector<Plan> plans_;                      ///< reused likewise
  std::string cursor_ = "0";
  bool pass_started_ = false;
  bool pass_done_once_ = false;
  std::uint64_t passes_ = 0;
  std::size_t unmatched_this_pass_ = 0;
  std::size_t unmatched_last_pass_ = 0;
  std::map<std::string, std::string> unmatched_examples_;  ///< pattern → one key
};

}  // namespace limitscope::probe
