#pragma once
// A Redis password from outside the command line, where `ps` would show it: a file readable by
// its owner only, or an environment variable. Core reads no environment itself: the program
// passes the variable's value in.

#include <optional>
#include <string>

#include "core/common/expected.h"
#include "core/redis/redis_url.h"

namespace limitscope::redis {

/// The environment variable programs read a Redis password from.
inline constexpr const char* kPasswordEnv = "LIMITSCOPE_REDIS_PASSWORD";

/// The password in `path`: its first line, without the line end. The file must be a regular
/// file with no group or other permission bits (0600 or 0400), as ssh requires of its keys.
/// @return the password, or an error naming the file and the reason
Expected<std::string> read_password_file(const std::string& path);

/// Puts the password from `file` (a path, when given) or else `env_value` (the variable's
/// value, when set and not empty) into `url`.
/// @return ok, or an error when the URL carries a password too (which one wins would be a
///         guess) or the file cannot be used
Status apply_password_source(RedisUrl& url, const std::optional<std::string>& file,
                             const char* env_value);

}  // namespace limitscope::redis
