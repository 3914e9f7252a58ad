#include "core/redis/shadow_config.h"

#include <charconv>

#include "core/redis/limiter_scripts.h"
#include "core/redis/script.h"

namespace limitscope::redis {

namespace {

RedisError usage(std::string message) {
  return make_redis_error(ErrorKind::usage, std::move(message));
}

std::int64_t integer(const std::map<std::string, std::string>& f, const char* name) {
  const auto it = f.find(name);
  std::int64_t v = 0;
  if (it != f.end()) std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return v;
}

std::string text(const std::map<std::string, std::string>& f, const char* name) {
  const auto it = f.find(name);
  return it == f.end() ? std::string() : it->second;
}

const Script& clear_script() {
  static const Script s("shadow_clear", std::string(lua_file("common.lua")) + "\n" +
                                            std::string(lua_file("shadow_clear.lua")));
  return s;
}

std::vector<std::string> shadow_keys(const KeySchema& schema, std::string_view rule) {
  return {schema.shadow_key(rule), schema.shadow_audit_key(rule), schema.config_stamp_key(rule),
          schema.shadow_counts_key(rule)};
}

}  // namespace

Result<ShadowState> get_shadow(Connection& c, const KeySchema& schema, std::string_view rule) {
  if (Status e = schema.check_names(rule); !e.ok()) return usage(e.error());
  const std::string key = schema.shadow_key(rule);
  const std::string counts_key = schema.shadow_counts_key(rule);
  // Both hashes in one round trip (they share the rule's slot); the counts matter only when
  // there is a shadow.
  auto replies = c.pipeline({{"HGETALL", key}, {"HGETALL", counts_key}});
  if (!replies) return replies.error();
  auto fields = config_hash_fields((*replies)[0], key);
  if (!fields) return fields.error();
  ShadowState s;
  s.version = integer(*fields, "version");
  s.updated_at_ms = integer(*fields, "updated_at");
  s.updated_by = text(*fields, "updated_by");
  s.reason = text(*fields, "reason");
  if (!fields->contains("algorithm")) return s;  // never set, or cleared (a tombstone)
  const Value& counts = (*replies)[1];
  if (counts.is_error()) return make_redis_error(ErrorKind::reply, counts_key + ": " + counts.str);
  std::map<std::string, std::string> n;
  for (std::size_t i = 0; counts.is_array() && i + 1 < counts.elements.size(); i += 2) {
    n[counts.elements[i].str] = counts.elements[i + 1].str;
  }
  s.counts = {integer(n, "allowed"), integer(n, "rejected"), integer(n, "would_reject"),
              integer(n, "would_admit")};
  auto parsed = parse_config_fields(*fields);
  if (!parsed) return make_redis_error(ErrorKind::reply, key + ": " + parsed.error());
  s.config = std::move(*parsed);
  return s;
}

Result<RuleConfig> set_shadow(Connection& c, const KeySchema& schema, std::string_view rule,
                              const RuleConfig& config, const ChangeInfo& change) {
  if (Status e = schema.check_names(rule); !e.ok()) return usage(e.error());
  const auto keys = shadow_keys(schema, rule);
  return write_config(c, {keys[0], keys[1], keys[2], keys[3]}, rule, config, change, "set");
}

Result<ShadowState> clear_shadow(Connection& c, const KeySchema& schema, std::string_view rule,
                                 const ChangeInfo& change) {
  if (Status e = schema.check_names(rule); !e.ok()) return usage(e.error());
  const std::vector<std::string> args{
      change.expect_version ? std::to_string(*change.expect_version) : std::string(), change.by,
      change.reason, std::to_string(kAuditMaxLen)};
  auto reply = eval(c, clear_script(), shadow_keys(schema, rule), args);
  if (!reply) return reply.error();
  if (!reply->is_array() || reply->elements.size() != 2 || !reply->elements[0].as_integer() ||
      !reply->elements[1].as_integer()) {
    return make_redis_error(ErrorKind::protocol, "shadow_clear.lua reply: " + reply->describe());
  }
  ShadowState s;
  s.version = *reply->elements[0].as_integer();
  s.updated_at_ms = *reply->elements[1].as_integer();
  s.updated_by = change.by;
  s.reason = change.reason;
  return s;
}

Result<std::vector<AuditEntry>> shadow_history(Connection& c, const KeySchema& schema,
                                               std::string_view rule, std::size_t count) {
  if (Status e = schema.check_names(rule); !e.ok()) return usage(e.error());
  return read_audit(c, schema.shadow_audit_key(rule), count);
}

bool is_no_shadow(const RedisError& e) {
  return e.kind == ErrorKind::reply && e.message.find("LSNOSHADOW") != std::string::npos;
}

}  // namespace limitscope::redis
