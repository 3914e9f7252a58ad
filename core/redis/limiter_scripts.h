#pragma once
// The limiter's Lua, built from the .lua files compiled into the library (core/redis/lua/,
// embedded by core/CMakeLists.txt), in two forms from the same files:
// - one Redis 7 function library (`limitscope_<version>`, FCALL): common.lua and the
//   algorithms defined once at load, and decide, config_set and settle as its functions
//   (`limitscope_decide_<version>`, ...);
// - a script per entry for EVALSHA where Functions are missing: common.lua first, and
//   decide.lua with one branch per algorithm file.
// Either way a rule's algorithm can change live and the code for it is there.

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
/// The function library the three belong to.
const FunctionLibrary& function_library();

}  // namespace limitscope::redis
