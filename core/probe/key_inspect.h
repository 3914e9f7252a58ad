#pragma once
// The key browser's reads: a list of limiter keys with what each says (profile, kind, level or
// occupancy, TTL) and a sampled memory usage, and, for one key, its raw contents. Discovery is
// RedisProbe's budgeted SCAN (never KEYS); MEMORY USAGE runs for at most a set number of keys
// per refresh, round robin, so a large keyspace is sampled over several refreshes instead of
// in one long burst. Raw reads are bounded too (HSCAN with a COUNT, GETRANGE, the head of a
// sorted set): a million-member zset costs what twenty members cost.
//
// On a Redis Cluster the browser lists every master's keys (ClusterProbe: each master its own
// SCAN cursor and budget, each key read and sampled on its master, each reading naming its
// node), and a raw read goes to the master owning the key's slot, following redirections.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/probe/cluster_probe.h"
#include "core/probe/redis_probe.h"
#include "core/redis/cluster_client.h"
#include "core/redis/endpoint.h"

namespace limitscope::probe {

struct KeyBrowserOptions {
  std::string match = "*";                      ///< SCAN MATCH
  std::size_t scan_count = 500;                 ///< SCAN COUNT
  std::size_t scan_calls_per_refresh = 20;      ///< discovery budget per refresh
  std::size_t max_keys = 5000;                  ///< keys listed (most pressure kept beyond it)
  std::size_t memory_samples_per_refresh = 50;  ///< MEMORY USAGE calls per refresh
};

struct BrowsedKey {
  KeyReading reading;
  std::optional<std::int64_t> memory_bytes;  ///< MEMORY USAGE … SAMPLES 5, when sampled yet
};

struct KeyListing {
  std::int64_t server_time_us = 0;
  std::vector<BrowsedKey> keys;     ///< sorted by key name
  std::size_t unmatched = 0;        ///< keys matching no profile (see ProbeSnapshot)
  bool discovery_complete = false;  ///< a full SCAN pass has finished
  std::size_t scan_calls = 0;       ///< this refresh
  std::size_t memory_sampled = 0;   ///< MEMORY USAGE calls this refresh
  std::vector<std::string> errors;  ///< per-rule problems from the probe
};

/// One browser over one connection's keyspace; refresh() again to discover more and re-read.
class KeyBrowser {
 public:
  KeyBrowser(std::vector<LimiterProfile> profiles, KeyBrowserOptions options);

  /// One budgeted SCAN step, a read of every listed key, then MEMORY USAGE for the next
  /// `memory_samples_per_refresh` keys (by name, wrapping around).
  redis::Result<KeyListing> refresh(redis::Connection& c);
  /// The same over every master of a Redis Cluster. A master that cannot be reached is an
  /// error line while another answers; its keys' memory samples are kept.
  redis::Result<KeyListing> refresh(redis::ClusterClient& cluster);
  /// One of the two, as the endpoint is (a server that cannot be reached: the pool's error).
  redis::Result<KeyListing> refresh(redis::Endpoint& endpoint);

  const std::vector<LimiterProfile>& profiles() const { return profiles_; }
  const KeyBrowserOptions& options() const { return options_; }

 private:
  std::vector<LimiterProfile> profiles_;
  KeyBrowserOptions options_;
  /// MEMORY USAGE of each key of a batch: one reply per key, in order (nullopt: not asked).
  using MemorySampler = std::function<redis::Result<std::vector<std::optional<redis::Value>>>(
      const std::vector<std::string>&)>;
  redis::Result<KeyListing> finish(ProbeSnapshot snap, const MemorySampler& sample);

  RedisProbe probe_;
  std::unique_ptr<ClusterProbe> cluster_probe_;  ///< made at the first cluster refresh
  std::map<std::string, std::int64_t> memory_;   ///< key → bytes, from earlier samples
  std::string memory_after_;                     ///< the last key sampled (round robin)
};

struct RawKeyLimits {
  std::size_t max_fields = 200;        ///< hash fields (HSCAN COUNT)
  std::size_t zset_head = 20;          ///< sorted-set members from the lowest score
  std::size_t max_value_bytes = 4096;  ///< string bytes (GETRANGE)
};

struct RawKey {
  std::string key;
  std::string type;      ///< TYPE: hash, string, zset, list, set, stream, ... ("none": gone)
  bool missing = false;  ///< the key does not exist (expired or deleted)
  std::optional<std::int64_t> ttl_ms;        ///< nullopt: no TTL
  std::optional<std::int64_t> memory_bytes;  ///< MEMORY USAGE … SAMPLES 5
  /// hash: field → value; string: {"value", text}; zset: member → score, lowest scores first
  /// then the newest ("(newest) member"); list/set/stream: nothing (only `total`).
  std::vector<std::pair<std::string, std::string>> fields;
  std::size_t total = 0;   ///< HLEN / STRLEN / ZCARD / LLEN / SCARD / XLEN
  bool truncated = false;  ///< fewer fields shown than the key holds
  /// Non-empty when the key cannot be what its profile reads ("wrong type: profile gw-free
  /// (token_bucket_hash) reads a hash, the key holds a string").
  std::string problem;
  std::string node;  ///< Redis Cluster: the master it was read on ("host:port"); else empty
};

/// The Redis type a profile kind reads ("" for the own schema: hash or string by algorithm).
std::string_view expected_redis_type(ProfileKind kind);

/// Reads `key`'s raw contents in two round trips (TYPE, PTTL and MEMORY USAGE; then the
/// type's bounded read). @param profile the profile it matched, to check the type against
/// (nullptr: no check). Errors: the connection's (io, timeout, auth, ...); a key that vanished
/// is a RawKey with missing set, not an error.
redis::Result<RawKey> inspect_key(redis::Connection& c, const std::string& key,
                                  const LimiterProfile* profile, const RawKeyLimits& limits = {});
/// The same on the master of a Redis Cluster owning `key`'s slot (MOVED/ASK followed).
redis::Result<RawKey> inspect_key(redis::ClusterClient& cluster, const std::string& key,
                                  const LimiterProfile* profile, const RawKeyLimits& limits = {});
/// One of the two, as the endpoint is.
redis::Result<RawKey> inspect_key(redis::Endpoint& endpoint, const std::string& key,
                                  const LimiterProfile* profile, const RawKeyLimits& limits = {});

}  // namespace limitscope::probe
