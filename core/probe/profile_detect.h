#pragma once
// Proposes a schema profile for a key no profile matches, from what Redis holds there: its
// type, its fields or value, its TTL, and how its timestamps compare with the server's time
// (which gives the time unit). The proposal is a starting point the operator completes (the
// capacity, refill, window and limit are not stored by most gateways): `needs` says what is
// missing, `evidence` why this kind was chosen.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/probe/limiter_profile.h"
#include "core/redis/connection.h"

namespace limitscope::probe {

struct KeySample {
  std::string key;
  std::string type;                           ///< TYPE: string, hash, zset, ...
  std::map<std::string, std::string> fields;  ///< hash fields (HGETALL)
  std::string value;                          ///< string value (GET)
  std::optional<double> newest_score;         ///< zset: the highest score
  std::int64_t pttl_ms = -1;
};

struct ProfileProposal {
  LimiterProfile profile;          ///< kind, match, fields and time unit filled in
  std::vector<std::string> needs;  ///< e.g. {"capacity", "refill"}
  std::string evidence;            ///< "hash with fields tokens, ts (ms since the epoch)"
};

/// The proposal for one sampled key, or nullopt when it does not look like limiter state.
std::optional<ProfileProposal> propose_profile(const KeySample& sample, std::int64_t now_us);

/// The time unit in which `value` is within a day of `now_us`, or nullopt.
std::optional<TimeUnit> time_unit_of(double value, std::int64_t now_us);

/// Reads what propose_profile() needs about `key` (TYPE, then HGETALL / GET / ZRANGE, PTTL).
redis::Result<KeySample> sample_key(redis::Connection& c, const std::string& key);

/// "rl:free-alice" → "rl:*" (everything up to the last ':' or '_', then '*').
std::string pattern_for(const std::string& key);

}  // namespace limitscope::probe
