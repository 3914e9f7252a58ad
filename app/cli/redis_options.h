#pragma once
// The options every Redis-facing subcommand shares (--redis, --prefix, --timeout,
// --failure-mode) and their validation into core types, so decide, hammer and bench-redis
// refuse bad input the same way.

#include <optional>
#include <string>
#include <vector>

#include "app/options/args.h"
#include "app/options/redis_flags.h"
#include "core/common/expected.h"
#include "core/redis/decision_backend.h"
#include "core/redis/endpoint.h"
#include "core/redis/failure_guard.h"
#include "core/redis/guarded_limiter.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"

namespace limitscope::cli {

/// The shared Redis options (app/options/redis_flags.h) with --rule.
std::vector<OptionSpec> redis_option_specs();

/// --redis URL (which must be given) with the password from --redis-password-file or else
/// LIMITSCOPE_REDIS_PASSWORD (core/redis/redis_password.h; a URL carrying a password too is
/// refused). Errors name the option and never the password.
Expected<redis::RedisUrl> parse_redis_url_option(const Args& args);

struct RedisOptions {
  redis::RedisUrl url;
  redis::KeySchema schema;
  redis::ConnectOptions connect;
  redis::FailurePolicy failure;
  std::string rule;
};

/// Validates the shared options. `require_url` false lets a command start its own server.
/// @return the options, or an error naming the option and the reason
Expected<RedisOptions> parse_redis_options(const Args& args, bool require_url = true);

/// The options of a subcommand deciding on one key of one rule (decide, hammer): the shared
/// Redis options with --rule, plus --key and --cost.
struct RuleKeyOptions {
  RedisOptions redis;
  std::string key;
  double cost = 1;
};
Expected<RuleKeyOptions> parse_rule_key_options(const Args& args);

/// The endpoint (`connections` to the server, or per master of a redis+cluster:// URL) and
/// the guarded limiter over it, as a gateway would hold them.
struct RedisRuleClient {
  RedisRuleClient(const RedisOptions& options, std::size_t connections);
  redis::Endpoint endpoint;
  std::unique_ptr<redis::DecisionBackend> backend;
  redis::GuardedLimiter limiter;

  /// TIME (µs) of the server holding `rule`'s keys, or nullopt when it cannot be read.
  std::optional<std::int64_t> server_time_us(const std::string& rule);
};

/// The endpoint options for the shared Redis options (`connections` per server or master).
redis::EndpointOptions endpoint_options(const RedisOptions& options, std::size_t connections = 1);

/// Runs `op` on the shard of `rule` (redis::Endpoint::on_rule) with the CLI's clock: one
/// endpoint for one job.
template <class T, class Op>
redis::Result<T> on_rule_connection(const redis::RedisUrl& url,
                                    const redis::ConnectOptions& connect,
                                    const redis::KeySchema& schema, const std::string& rule,
                                    Op&& op) {
  redis::Endpoint endpoint(url, redis::EndpointOptions::with(connect), SteadyClock::instance());
  return endpoint.on_rule<T>(schema, rule, op);
}

/// A non-negative whole number option (or its default).
Expected<long long> integer_option(const Args& args, const std::string& name, long long fallback,
                                   long long min, long long max);
/// A finite number option (or its default).
Expected<double> number_option(const Args& args, const std::string& name, double fallback,
                               double min);
/// A duration option such as "30s" or "1m" (or its default).
Expected<Nanos> duration_option(const Args& args, const std::string& name, Nanos fallback);

}  // namespace limitscope::cli
