#include "core/redis/client_options.h"

#include "core/limiter/rate.h"
#include "core/redis/redis_password.h"

namespace limitscope::redis {

// One default for every program (the CLI, the gateway, the GUI's live source, key browser,
// Tuner and Test connection): a default-constructed ConnectOptions is the shared default.
static_assert(ConnectOptions{}.connect_timeout == kDefaultTimeout &&
                  ConnectOptions{}.command_timeout == kDefaultTimeout,
              "ConnectOptions' defaults (core/redis/connection.h) must be kDefaultTimeout");

Expected<ClientOptions> parse_client_options(const ClientOptionText& given,
                                             const char* password_env, bool require_url) {
  ClientOptions o;
  if (given.url) {
    auto parsed = parse_redis_url(given.url->text);
    if (!parsed) return make_error(given.url->flag + ": " + parsed.error());
    o.url = std::move(parsed).value();
    const std::optional<std::string> file =
        given.password_file ? std::optional<std::string>(given.password_file->text) : std::nullopt;
    if (Status why = apply_password_source(o.url, file, password_env); !why.ok()) {
      return make_error(given.url->flag + ": " + why.error());
    }
  } else if (given.password_file) {
    return make_error(given.password_file->flag + " needs --redis URL");
  } else if (require_url) {
    return make_error("--redis URL is required");
  }
  if (given.prefix) o.schema = KeySchema(given.prefix->text);
  if (Status why = o.schema.check_prefix(); !why.ok())
    return make_error((given.prefix ? given.prefix->flag : "prefix") + ": " + why.error());
  if (given.timeout) {
    const GivenOption& t = *given.timeout;
    auto d = parse_duration(t.text);
    if (!d) return make_error(t.flag + ": " + d.error());
    if (*d < std::chrono::milliseconds(1) || *d > std::chrono::minutes(1)) {
      return make_error(t.flag + " '" + t.text + "': must be between 1ms and 1m");
    }
    o.connect.connect_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    o.connect.command_timeout = o.connect.connect_timeout;
  }
  if (given.failure_mode) {
    auto mode = parse_failure_mode(given.failure_mode->text);
    if (!mode) return make_error(given.failure_mode->flag + ": " + mode.error());
    o.failure.mode = *mode;
  }
  return o;
}

}  // namespace limitscope::redis
