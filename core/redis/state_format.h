#pragma once
// The state format a rule's decisions write (docs/redis-state.md, "Rolling upgrades"): 1, the
// 16-byte token-bucket state and the GCRA TAT's text, which every version since issue 18's
// strings reads; 2, the 24-byte token-bucket state that keeps its key's TTL (cheaper); 3, format
// 2 and the 24-byte GCRA state that keeps its key's TTL too. Deciders of the version before a
// format read its new states as corrupt. A rule writes format 1 until the operator switches it
// once every decider of the rule runs a version that reads the format; decisions read every
// format either way.
// The switch is a mark in the rule's config stamp, which decide.lua reads in the same MGET as
// the states, so it is in force at the rule's next decision and costs a decision nothing.

#include <string_view>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_error.h"

namespace limitscope::redis {

/// The format `rule`'s decisions write now (1, 2 or 3).
/// @return the format; reply ("LSCONFIG ...") when the rule has no config stamp (no config,
///         or none written since before issue 18: `config set` writes one), usage for a bad name
Result<int> get_state_format(Connection& c, const KeySchema& schema, std::string_view rule);
/// Switches `rule`'s decisions to write `format` (1, 2 or 3) from their next write on.
/// @return the format in force after the call; usage for a format other than 1, 2 or 3; as
///         get_state_format() otherwise
Result<int> set_state_format(Connection& c, const KeySchema& schema, std::string_view rule,
                             int format);

}  // namespace limitscope::redis
