#pragma once
// The token-bucket state format a rule's decisions write (docs/redis-state.md, "Rolling
// upgrades"): 1, the 16-byte state every version since issue 18's strings reads, or 2, the
// 24-byte state that keeps its key's TTL (cheaper), which deciders of the version before it
// read as corrupt. A rule writes format 1 until the operator switches it to 2 once every
// decider of the rule runs a version that reads format 2; decisions read both either way.
// The switch is a mark in the rule's config stamp, which decide.lua reads in the same MGET as
// the states, so it is in force at the rule's next decision and costs a decision nothing.

#include <string_view>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_error.h"

namespace limitscope::redis {

/// The format `rule`'s decisions write now (1 or 2).
/// @return the format; reply ("LSCONFIG ...") when the rule has no config stamp (no config,
///         or none written since before issue 18: `config set` writes one), usage for a bad name
Result<int> get_state_format(Connection& c, const KeySchema& schema, std::string_view rule);
/// Switches `rule`'s decisions to write `format` (1 or 2) from their next write on.
/// @return the format in force after the call; usage for a format other than 1 or 2; as
///         get_state_format() otherwise
Result<int> set_state_format(Connection& c, const KeySchema& schema, std::string_view rule,
                             int format);

}  // namespace limitscope::redis
