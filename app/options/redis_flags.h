#pragma once
// The shared Redis options (core/redis/client_options.h) as a command line gives them, for
// the CLI and the gateway alike: --redis, --redis-password-file, --redis-prefix,
// --redis-timeout and --redis-failure-mode. The CLI also takes its older spellings --prefix,
// --timeout and --failure-mode (docs/cli.md, "Redis options").

#include <optional>
#include <string>
#include <vector>

#include "app/options/args.h"
#include "core/common/expected.h"
#include "core/redis/client_options.h"

namespace limitscope::cli {

/// Which of the shared Redis options a program lists.
struct RedisFlagSet {
  bool failure_mode = true;     ///< --redis-failure-mode (programs that decide)
  bool older_spellings = true;  ///< --prefix, --timeout (and --failure-mode): the CLI's
};

/// The specs of the shared Redis options, with one help text and one default for every program.
std::vector<OptionSpec> redis_flag_specs(RedisFlagSet set);

/// --redis-password-file, for subcommands that list their own --redis.
OptionSpec redis_password_file_spec();

/// The option `name` as given, or under its older spelling `alias` ("" for none).
Expected<std::optional<redis::GivenOption>> given_option(const Args& args, const std::string& name,
                                                         const std::string& alias);

/// The shared Redis options' text. @param older_spellings also --prefix, --timeout and
/// --failure-mode (the CLI)
Expected<redis::ClientOptionText> redis_option_text(const Args& args, bool older_spellings);

}  // namespace limitscope::cli
