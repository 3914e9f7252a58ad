#pragma once
// The Redis options every program shares: the CLI's Redis subcommands and the gateway parse
// them here, from the text given for each, so they accept, default and refuse them the same
// way. They are where (the URL), the password's source (a 0600 file, else
// LIMITSCOPE_REDIS_PASSWORD), how long to wait (one connect and command timeout), what to do
// when Redis cannot decide (the failure mode) and the key prefix. Option names belong to the
// program: every error names the flag as the user typed it.

#include <chrono>
#include <optional>
#include <string>

#include "core/common/expected.h"
#include "core/redis/connection.h"
#include "core/redis/failure_guard.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"

namespace limitscope::redis {

/// The connect and command timeout when none is given, for every program (docs/cli.md,
/// "Redis options"): long enough for a cross-zone round trip on a busy server, short enough
/// that a request waits at most half a second before the failure mode decides.
inline constexpr std::chrono::milliseconds kDefaultTimeout{500};

/// One option as given: the flag the user typed ("--timeout") and its text.
struct GivenOption {
  std::string flag;
  std::string text;
};

/// What was given for each option (nullopt: not given).
struct ClientOptionText {
  std::optional<GivenOption> url;
  std::optional<GivenOption> password_file;
  std::optional<GivenOption> prefix;
  std::optional<GivenOption> timeout;
  std::optional<GivenOption> failure_mode;
};

struct ClientOptions {
  RedisUrl url;
  KeySchema schema;
  ConnectOptions connect{kDefaultTimeout, kDefaultTimeout};
  FailurePolicy failure;
};

/// Validates the options. @param password_env the value of LIMITSCOPE_REDIS_PASSWORD (null
/// when unset) @param require_url false lets a program run without Redis (then a password
/// file is still refused without a URL)
/// @return the options, or an error naming the flag and the reason (never the password)
Expected<ClientOptions> parse_client_options(const ClientOptionText& given,
                                             const char* password_env, bool require_url);

}  // namespace limitscope::redis
