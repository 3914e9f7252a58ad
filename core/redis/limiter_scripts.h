#pragma once
// The limiter's Lua scripts, built from the .lua files compiled into the library
// (core/redis/lua/, embedded by core/CMakeLists.txt). Every script starts with common.lua;
// decide.lua also gets one branch per algorithm file (chosen by the config's algorithm), so a
// rule's algorithm can change live and the same script still has its code.

#include <string_view>

#include "core/redis/script.h"

namespace limitscope::redis {

/// The text of one embedded file ("gcra.lua"), or empty when there is no such file.
std::string_view lua_file(std::string_view name);

/// One or many decisions of one rule in one atomic call (decide.lua).
const Script& decide_script();
/// Compare-and-set of a rule's config plus its audit entry, atomically (config_set.lua).
const Script& config_set_script();
/// A key's token-bucket limit corrected after the fact (settle.lua).
const Script& settle_script();

}  // namespace limitscope::redis
