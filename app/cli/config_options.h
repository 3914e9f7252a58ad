#pragma once
// Options and output shared by `limitscope-cli config` and `limitscope-cli shadow`: the Redis
// target (the shared Redis options, --rule, --json), the limit options of `config set`,
// --reason/--by/--expect-version, and a config as text or JSON (docs/cli.md).

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/redis_options.h"
#include "app/options/args.h"
#include "core/common/expected.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"
#include "core/redis/rule_config.h"

namespace limitscope::cli {

/// The shared Redis options without a failure mode (app/options/redis_flags.h), --rule, --json.
std::vector<OptionSpec> common_specs();
/// common_specs() followed by `more`.
std::vector<OptionSpec> with(std::vector<OptionSpec> more);
/// --algorithm, --capacity, --refill, --limit, --window, --composite-limit (repeatable).
std::vector<OptionSpec> config_limit_specs();
/// `specs` followed by --reason, --by and --expect-version (described by `expect_help`).
std::vector<OptionSpec> with_change_specs(std::vector<OptionSpec> specs,
                                          const std::string& expect_help);

/// The config the options of config_limit_specs() give, checked as Redis will check it.
/// @return an error naming the option and the reason
Expected<redis::RuleConfig> config_from_limit_options(const Args& a);

/// One limit of `algorithm` from option values ("capacity", "refill" or "limit", "window").
/// @param where prefixed to every error ("--", or the rule)
Expected<LimitParams> make_limit(const std::string& algorithm,
                                 const std::map<std::string, std::string>& v,
                                 const std::string& where);

/// One limit as JSON: name, algorithm, then limit/window/window_ms or capacity/refill/refill_per_s.
nlohmann::json limit_json(const redis::NamedLimit& l);
/// A config as `config get --json` prints it.
nlohmann::json config_json(const std::string& rule, const redis::RuleConfig& c);
/// An audit entry's old/new fields as a JSON object.
nlohmann::json fields_json(const std::map<std::string, std::string>& f);
/// A config as `config get` prints it (text or JSON).
void print_config(const std::string& rule, const redis::RuleConfig& c, bool as_json);

/// Where the rule's keys are and how to reach them.
struct Target {
  redis::RedisUrl url;
  redis::KeySchema schema;
  std::string rule;
  redis::ConnectOptions connect;
};

/// The options of common_specs(), or the usage error message.
Expected<Target> parse_target(const Args& a);
/// The target of a subcommand's options (early_exit() first). @return it, or the exit after
/// printing --help (0) or a usage error naming `command` (2)
Expected<Target, Exit> target_or_exit(const Expected<Args>& parsed, std::string_view command);

/// $USER, else "limitscope-cli".
std::string default_user();

/// Prints "limitscope-cli <command>: <message>"; returns 2 when our input was refused, else 1.
int redis_failure(std::string_view command, const redis::RedisError& e);

/// Runs `op` where the rule's keys are: the server, or the rule's shard of a cluster.
template <class T, class Op>
redis::Result<T> on_rule(const Target& t, Op&& op) {
  return on_rule_connection<T>(t.url, t.connect, t.schema, t.rule, op);
}

/// --by, --reason, --expect-version.
Expected<redis::ChangeInfo> change_info(const Args& a);

}  // namespace limitscope::cli
