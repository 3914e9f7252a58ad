#include "app/cli/redis_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "app/options/redis_flags.h"
#include "core/limiter/rate.h"
#include "core/redis/redis_password.h"

namespace limitscope::cli {

std::vector<OptionSpec> redis_option_specs() {
  auto specs = redis_flag_specs({});
  specs.insert(specs.begin() + 2,
               {"rule", "NAME", "the rule (its config hash is <prefix>{NAME}:config)"});
  return specs;
}

Expected<redis::RedisUrl> parse_redis_url_option(const Args& args) {
  redis::ClientOptionText text;
  if (auto url = args.get("redis")) text.url = redis::GivenOption{"--redis", *url};
  if (auto file = args.get("redis-password-file"))
    text.password_file = redis::GivenOption{"--redis-password-file", *file};
  auto parsed = redis::parse_client_options(text, std::getenv(redis::kPasswordEnv), true);
  if (!parsed) return make_error(parsed.error());
  return std::move(parsed->url);
}

Expected<RedisOptions> parse_redis_options(const Args& args, bool require_url) {
  auto text = redis_option_text(args, true);
  if (!text) return make_error(text.error());
  auto shared = redis::parse_client_options(*text, std::getenv(redis::kPasswordEnv), require_url);
  if (!shared) return make_error(shared.error());
  RedisOptions o;
  o.url = std::move(shared->url);
  o.schema = std::move(shared->schema);
  o.connect = shared->connect;
  o.failure = shared->failure;
  if (auto rule = args.get("rule")) {
    if (Status why = redis::KeySchema::check_rule(*rule); !why.ok())
      return make_error("--rule: " + why.error());
    o.rule = *rule;
  }
  return o;
}

Expected<RuleKeyOptions> parse_rule_key_options(const Args& args) {
  auto redis_options = parse_redis_options(args);
  if (!redis_options) return make_error(redis_options.error());
  if (redis_options->rule.empty()) return make_error("--rule NAME is required");
  const auto key = args.get("key");
  if (!key || key->empty()) return make_error("--key KEY is required");
  auto cost = number_option(args, "cost", 1, 0);
  if (!cost) return make_error(cost.error());
  return RuleKeyOptions{std::move(redis_options).value(), *key, *cost};
}

redis::EndpointOptions endpoint_options(const RedisOptions& options, std::size_t connections) {
  return redis::EndpointOptions::with(options.connect, connections);
}

RedisRuleClient::RedisRuleClient(const RedisOptions& options, std::size_t connections)
    : endpoint(options.url, endpoint_options(options, connections), SteadyClock::instance()),
      backend(endpoint.decisions(redis::RedisLimiter(options.schema))),
      limiter(*backend, options.failure, SteadyClock::instance()) {}

std::optional<std::int64_t> RedisRuleClient::server_time_us(const std::string& rule) {
  auto t = backend->server_time_us(rule);
  if (!t) return std::nullopt;
  return *t;
}

Expected<long long> integer_option(const Args& args, const std::string& name, long long fallback,
                                   long long min, long long max) {
  auto text = args.get(name);
  if (!text) return fallback;
  long long v = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (text->empty() || ec != std::errc{} || p != text->data() + text->size() || v < min ||
      v > max) {
    return make_error("--" + name + " '" + *text + "': expected a whole number in " +
                      std::to_string(min) + ".." + std::to_string(max));
  }
  return v;
}

Expected<Nanos> duration_option(const Args& args, const std::string& name, Nanos fallback) {
  auto text = args.get(name);
  if (!text) return fallback;
  auto d = parse_duration(*text);
  if (!d) return make_error("--" + name + ": " + d.error());
  return *d;
}

Expected<double> number_option(const Args& args, const std::string& name, double fallback,
                               double min) {
  auto text = args.get(name);
  if (!text) return fallback;
  double v = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (text->empty() || ec != std::errc{} || p != text->data() + text->size() || !std::isfinite(v) ||
      v < min) {
    return make_error("--" + name + " '" + *text +
                      "': expected a number >= " + std::to_string(min));
  }
  return v;
}

}  // namespace limitscope::cli
