#pragma once
// The shared Redis options (core/redis/client_options.h) as a command line gives them, for
// the CLI and the gateway alike: --redis, --redis-password-file, --redis-prefix,
// --redis-timeout and --redis-failure-mode. The CLI also takes its older spellings --prefix,
// --timeout and --failure-mode (docs/cli.md, "Redis options").

#include <optional>
#include <string>

#include "app/cli/args.h"
#include "core/common/expected.h"
#include "core/redis/client_options.h"

namespace limitscope::cli {

/// The option `name` as given, or under its older spelling `alias` ("" for none).
inline Expected<std::optional<redis::GivenOption>> given_option(const Args& args, const std::string& name,
                                                                const std::string& alias) {
  const auto value = args.get(name);
  const auto old = alias.empty() ? std::nullopt : args.get(alias);
  if (value && old) return make_error("give one of --" + name + " and --" + alias);
  if (value) return std::optional<redis::GivenOption>(redis::GivenOption{"--" + name, *value});
  if (old) return std::optional<redis::GivenOption>(redis::GivenOption{"--" + alias, *old});
  return std::optional<redis::GivenOption>();
}

/// The shared Redis options' text. @param older_spellings also --prefix, --timeout and
/// --failure-mode (the CLI)
inline Expected<redis::ClientOptionText> redis_option_text(const Args& args, bool older_spellings) {
  redis::ClientOptionText t;
  struct Field {
    std::optional<redis::GivenOption>* out;
    const char* name;
    const char* alias;
  };
  for (const Field& f : {Field{&t.url, "redis", ""}, Field{&t.password_file, "redis-password-file", ""},
                         Field{&t.prefix, "redis-prefix", "prefix"}, Field{&t.timeout, "redis-timeout", "timeout"},
                         Field{&t.failure_mode, "redis-failure-mode", "failure-mode"}}) {
    auto given = given_option(args, f.name, older_spellings ? f.alias : "");
    if (!given) return make_error(given.error());
    *f.out = std::move(*given);
  }
  return t;
}

}  // namespace limitscope::cli
