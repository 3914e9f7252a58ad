#include "core/redis/state_format.h"

#include <string>
#include <vector>

#include "core/redis/limiter_scripts.h"
#include "core/redis/script.h"

namespace limitscope::redis {

namespace {

const Script& state_format_script() {
  static const Script s("state_format", std::string(lua_file("common.lua")) + "\n" +
                                            std::string(lua_file("state_format.lua")));
  return s;
}

Result<int> run(Connection& c, const KeySchema& schema, std::string_view rule,
                const std::string& want) {
  if (Status e = schema.check_names(rule); !e.ok())
    return make_redis_error(ErrorKind::usage, e.error());
  auto reply = eval(c, state_format_script(), {schema.config_stamp_key(rule)}, {want});
  if (!reply) return reply.error();
  const auto format = reply->as_integer();
  if (!format || *format < 1 || *format > 3)
    return make_redis_error(ErrorKind::protocol, "state_format.lua reply: " + reply->describe());
  return static_cast<int>(*format);
}

}  // namespace

Result<int> get_state_format(Connection& c, const KeySchema& schema, std::string_view rule) {
  return run(c, schema, rule, "");
}

Result<int> set_state_format(Connection& c, const KeySchema& schema, std::string_view rule,
                             int format) {
  if (format < 1 || format > 3) {
    return make_redis_error(ErrorKind::usage,
                            "the state format must be 1, 2 or 3, got " + std::to_string(format));
  }
  return run(c, schema, rule, std::to_string(format));
}

}  // namespace limitscope::redis
