#include "core/redis/rollout.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>

#include "core/common/sha1.h"
#include "core/redis/limiter_scripts.h"
#include "core/redis/script.h"
#include "core/redis/stream_entries.h"

namespace limitscope::redis {

namespace {

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> to_double(std::string_view s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string steps_text(const std::vector<std::int64_t>& steps) {
  std::string s;
  for (std::int64_t b : steps) s += (s.empty() ? "" : ",") + std::to_string(b);
  return s;
}

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const Script& set_script() {
  static const Script s("rollout_set", std::string(lua_file("common.lua")) + "\n" +
                                           std::string(lua_file("rollout_set.lua")));
  return s;
}

}  // namespace

bool in_rollout_share(std::string_view key, std::int64_t share_bp) {
  if (share_bp <= 0) return false;
  const std::string h = sha1_hex(key).substr(0, 7);
  const std::int64_t v = std::stoll(h, nullptr, 16);
  return v % kAllKeys < share_bp;
}

std::int64_t hold_left_ms(const RolloutState& s, std::int64_t now_ms) {
  if (!s.active()) return 0;
  const std::int64_t held = s.state == "paused" ? s.held_ms : now_ms - s.step_started_ms;
  return std::clamp<std::int64_t>(s.hold_ms - held, 0, s.hold_ms);
}

Result<std::optional<RolloutState>> get_rollout(Connection& c, const KeySchema& schema,
                                                std::string_view rule) {
  if (Status e = KeySchema::check_rule(rule); !e.ok())
    return make_redis_error(ErrorKind::usage, e.error());
  const std::string key = rollout_key(schema, rule);
  auto r = c.command({"HGETALL", key});
  if (!r) return r.error();
  if (r->is_error()) return make_redis_error(ErrorKind::reply, key + ": " + r->str);
  if (!r->is_array() || r->elements.empty()) return std::optional<RolloutState>();
  RolloutState s;
  for (std::size_t i = 0; i + 1 < r->elements.size(); i += 2) {
    const std::string& f = r->elements[i].str;
    const std::string& v = r->elements[i + 1].str;
    if (f == "state")
      s.state = v;
    else if (f == "steps") {
      for (std::size_t at = 0; at < v.size();) {
        const std::size_t comma = std::min(v.find(',', at), v.size());
        if (auto b = to_int(std::string_view(v).substr(at, comma - at))) s.steps_bp.push_back(*b);
        at = comma + 1;
      }
    } else if (f == "step")
      s.step = static_cast<std::size_t>(to_int(v).value_or(0));
    else if (f == "share_bp")
      s.share_bp = to_int(v).value_or(0);
    else if (f == "hold_ms")
      s.hold_ms = to_int(v).value_or(0);
    else if (f == "guard")
      s.guard = v;
    else if (f == "source")
      s.source = v;
    else if (f == "shadow_version")
      s.shadow_version = to_int(v).value_or(0);
    else if (f == "step_started_ms")
      s.step_started_ms = to_int(v).value_or(0);
    else if (f == "held_ms")
      s.held_ms = to_int(v).value_or(0);
    else if (f == "started_by")
      s.started_by = v;
    else if (f == "guard_value")
      s.guard_value = to_double(v);
    else if (f == "guard_checked_at")
      s.guard_checked_ms = to_int(v).value_or(0);
    else if (f == "seq")
      s.seq = to_int(v).value_or(0);
    else if (f == "reason")
      s.reason = v;
    else if (f == "updated_at")
      s.updated_at_ms = to_int(v).value_or(0);
  }
  if (s.state.empty())
    return make_redis_error(ErrorKind::reply, key + ": not a rollout limitscope wrote (no state)");
  return std::optional<RolloutState>(std::move(s));
}

Result<RolloutState> write_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                   const RolloutState& s, std::int64_t expect_seq,
                                   std::string_view action, const std::string& by) {
  if (Status e = KeySchema::check_rule(rule); !e.ok())
    return make_redis_error(ErrorKind::usage, e.error());
  std::vector<std::string> args{std::to_string(expect_seq),
                                std::string(action),
                                by,
                                s.reason,
                                std::to_string(kAuditMaxLen),
                                "state",
                                s.state,
                                "steps",
                                steps_text(s.steps_bp),
                                "step",
                                std::to_string(s.step),
                                "share_bp",
                                std::to_string(s.share_bp),
                                "hold_ms",
                                std::to_string(s.hold_ms),
                                "guard",
                                s.guard,
                                "source",
                                s.source,
                                "shadow_version",
                                std::to_string(s.shadow_version),
                                "step_started_ms",
                                std::to_string(s.step_started_ms),
                                "held_ms",
                                std::to_string(s.held_ms),
                                "started_by",
                                s.started_by,
                                "guard_value",
                                s.guard_value ? exact(*s.guard_value) : std::string()};
  auto reply = eval(c, set_script(),
                    {rollout_key(schema, rule), rollout_audit_key(schema, rule),
                     schema.config_stamp_key(rule), schema.shadow_key(rule)},
                    args);
  if (!reply) return reply.error();
  if (!reply->is_array() || reply->elements.size() != 2 || !reply->elements[0].as_integer() ||
      !reply->elements[1].as_integer()) {
    return make_redis_error(ErrorKind::protocol, "rollout_set.lua reply: " + reply->describe());
  }
  RolloutState out = s;
  out.seq = *reply->elements[0].as_integer();
  out.updated_at_ms = *reply->elements[1].as_integer();
  return out;
}

Result<std::int64_t> write_guard_value(Connection& c, const KeySchema& schema,
                                       std::string_view rule, const std::optional<double>& value,
                                       std::int64_t expect_seq) {
  if (Status e = KeySchema::check_rule(rule); !e.ok())
    return make_redis_error(ErrorKind::usage, e.error());
  // rollout_set.lua's "check": the fields given and the time; no seq, stamp or audit change.
  auto reply = eval(c, set_script(),
                    {rollout_key(schema, rule), rollout_audit_key(schema, rule),
                     schema.config_stamp_key(rule), schema.shadow_key(rule)},
                    {std::to_string(expect_seq), "check", "", "", "0", "guard_value",
                     value ? exact(*value) : std::string()});
  if (!reply) return reply.error();
  if (!reply->is_array() || reply->elements.size() != 2 || !reply->elements[1].as_integer()) {
    return make_redis_error(ErrorKind::protocol,
                            "rollout_set.lua check reply: " + reply->describe());
  }
  return *reply->elements[1].as_integer();
}

Result<std::vector<RolloutEvent>> rollout_history(Connection& c, const KeySchema& schema,
                                                  std::string_view rule, std::size_t count) {
  if (Status e = KeySchema::check_rule(rule); !e.ok())
    return make_redis_error(ErrorKind::usage, e.error());
  auto entries = newest_stream_entries(c, rollout_audit_key(schema, rule), count);
  if (!entries) return entries.error();
  std::vector<RolloutEvent> out;
  for (const StreamEntry& e : *entries) {
    RolloutEvent ev;
    ev.id = e.id;
    for (const auto& [k, v] : e.fields) {
      if (k == "seq")
        ev.seq = to_int(v).value_or(0);
      else if (k == "action")
        ev.action = v;
      else if (k == "by")
        ev.by = v;
      else if (k == "at")
        ev.at_ms = to_int(v).value_or(0);
      else if (k == "reason")
        ev.reason = v;
      else if (k == "state")
        ev.state = v;
      else if (k == "share_bp")
        ev.share_bp = to_int(v).value_or(0);
      else if (k == "guard_value")
        ev.guard_value = to_double(v);
    }
    out.push_back(std::move(ev));
  }
  return out;
}

}  // namespace limitscope::redis
