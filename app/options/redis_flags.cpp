#include "app/options/redis_flags.h"

#include "core/limiter/rate.h"

namespace limitscope::cli {

std::vector<OptionSpec> redis_flag_specs(RedisFlagSet set) {
  const std::string timeout = format_duration(redis::kDefaultTimeout);
  std::vector<OptionSpec> specs = {
      {"redis", "URL",
       "redis://[user:password@]host:port/db, unix:///path, or a Redis Cluster: "
       "redis+cluster://[user:password@]host:port[,host:port...]"},
      redis_password_file_spec(),
      {"redis-prefix", "P", "prefix of the limiter's Redis keys (default limitscope:)"},
      {"redis-timeout", "D",
       "Redis connect and command timeout, 1ms..1m (default " + timeout + ")"},
  };
  if (set.failure_mode) {
    specs.push_back({"redis-failure-mode", "M",
                     "when Redis cannot decide: fail-open (default; admitted, marked degraded) or "
                     "fail-closed (refused)"});
  }
  if (set.older_spellings) {
    specs.push_back({"prefix", "P", "older spelling of --redis-prefix"});
    specs.push_back({"timeout", "D", "older spelling of --redis-timeout"});
    if (set.failure_mode)
      specs.push_back({"failure-mode", "M", "older spelling of --redis-failure-mode"});
  }
  return specs;
}

OptionSpec redis_password_file_spec() {
  return {"redis-password-file", "FILE",
          "the Redis password, from a file only its owner may read (0600); else from "
          "LIMITSCOPE_REDIS_PASSWORD; either keeps it out of the command line"};
}

Expected<std::optional<redis::GivenOption>> given_option(const Args& args, const std::string& name,
                                                         const std::string& alias) {
  const auto value = args.get(name);
  const auto old = alias.empty() ? std::nullopt : args.get(alias);
  if (value && old) return make_error("give one of --" + name + " and --" + alias);
  if (value) return std::optional<redis::GivenOption>(redis::GivenOption{"--" + name, *value});
  if (old) return std::optional<redis::GivenOption>(redis::GivenOption{"--" + alias, *old});
  return std::optional<redis::GivenOption>();
}

Expected<redis::ClientOptionText> redis_option_text(const Args& args, bool older_spellings) {
  redis::ClientOptionText t;
  struct Field {
    std::optional<redis::GivenOption>* out;
    const char* name;
    const char* alias;
  };
  for (const Field& f :
       {Field{&t.url, "redis", ""}, Field{&t.password_file, "redis-password-file", ""},
        Field{&t.prefix, "redis-prefix", "prefix"}, Field{&t.timeout, "redis-timeout", "timeout"},
        Field{&t.failure_mode, "redis-failure-mode", "failure-mode"}}) {
    auto given = given_option(args, f.name, older_spellings ? f.alias : "");
    if (!given) return make_error(given.error());
    *f.out = std::move(*given);
  }
  return t;
}

}  // namespace limitscope::cli
