#pragma once
// What one limiter key says at the server's time: the bucket level (tokens now, capacity, fill)
// or the window occupancy (count, limit, occupancy), its TTL, or why it could not be read.
// The commands to read a key and the arithmetic on their replies are separate from any
// connection, so they are tested on exact values without a server.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/probe/limiter_profile.h"
#include "core/redis/command_batch.h"
#include "core/redis/redis_value.h"

namespace limitscope::probe {

struct KeyReading {
  std::string key;
  std::string profile;
  ProfileKind kind = ProfileKind::token_bucket_hash;
  std::string algorithm;   ///< our own schema: the rule's algorithm ("token-bucket");
                           ///< empty for foreign schemas (the profile says what it is)
  std::string limit_name;  ///< our own schema: the composite limit the key belongs to
                           ///< ("requests", "llm_tokens"); empty otherwise
  std::string parameters;  ///< our own schema: the rule's limit as configured
                           ///< (LimitParams::describe(): "token-bucket capacity=60
                           ///< refill=1/s"); empty for foreign schemas
  int limit_index = -1;    ///< its place among the rule's limits (the order of a logged
                           ///< decision's costs); -1 when not a composite's
  // Bucket kinds (token_bucket_hash, gcra_tat, limitscope buckets):
  std::optional<double> level;  ///< tokens available now (projected at server time)
  std::optional<double> capacity;
  std::optional<double> fill;  ///< level / capacity, in [0, 1]
  // Window kinds (sliding_window_zset, counter_ttl, fixed_window_counter, limitscope windows):
  std::optional<double> count;  ///< cost used in the current window
  std::optional<double> limit;
  std::optional<double> occupancy;     ///< count / limit (may exceed 1 if the writer over-admits)
  std::optional<std::int64_t> ttl_ms;  ///< nullopt: no TTL; PTTL of the key
  std::string error;                   ///< non-empty: the key could not be read (and why)
  bool missing = false;                ///< the key vanished between discovery and the read
  std::string node;                    ///< Redis Cluster: the master holding the key ("host:port");
                                       ///< empty for a single server
  /// Server time (µs) of the refresh at which the key's pressure last rose (or it was first
  /// read), while below a tenth of its capacity: among keys under equal pressure the one that
  /// got there last is listed first, so a key just emptied is not hidden behind keys emptied
  /// long ago. 0: not known, or not that empty.
  std::int64_t pressure_rose_us = 0;
  /// Which identity (key, profile, kind, algorithm, limit, parameters, node) the reading was
  /// last written with, stamped by the probe that wrote it (0: none): a probe writing a
  /// reading handed back to it writes only the figures when the stamp is its slot's.
  std::uint64_t identity = 0;

  /// How full the limiter is, 0 = idle, 1 = exhausted: 1 − fill for buckets, occupancy for
  /// windows; nullopt when unknown (no capacity in the profile, or an error). The "most
  /// interesting" keys are the ones with the highest pressure.
  std::optional<double> pressure() const;
  /// Clears what a read finds (levels, window, TTL, error, missing), keeping the key's
  /// identity (key, profile, kind, algorithm, limit, parameters, node).
  void clear_figures();
  /// Copies what a read finds (clear_figures()'s fields, pressure_rose_us) from `from`, and
  /// its identity only when `identity` differs: a reading written again with the same key
  /// assigns no strings.
  void assign(const KeyReading& from);
};

/// Adds the commands that read `key` under `profile` at server time `now_us` to `out`: the
/// state, then PTTL when `with_ttl`. Not for kind limitscope (core/probe/own_schema.h).
/// @return the number of commands added (their replies, in order, are evaluate()'s input)
std::size_t read_commands(redis::CommandBatch& out, const LimiterProfile& profile,
                          const std::string& key, std::int64_t now_us, bool with_ttl = true);

/// Computes the reading from the replies to read_commands(), in order (with or without the
/// PTTL reply).
KeyReading evaluate(const LimiterProfile& profile, const std::string& key,
                    std::span<const redis::Value> replies, std::int64_t now_us);
/// The same into `r`, whose identity (key, profile, kind) is set already: only its figures
/// are written (clear_figures() first), so a reading kept across refreshes keeps its strings.
void evaluate_into(KeyReading& r, const LimiterProfile& profile,
                   std::span<const redis::Value> replies, std::int64_t now_us);

/// The window start (epoch, in `unit`) that an envoy-style fixed-window key ends with
/// ("..._1700000040"), or nullopt.
std::optional<std::int64_t> window_start_of(const std::string& key);

}  // namespace limitscope::probe
