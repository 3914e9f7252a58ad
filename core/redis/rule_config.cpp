#include "core/redis/rule_config.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "core/redis/limiter_scripts.h"
#include "core/redis/script.h"
#include "core/redis/stream_entries.h"

namespace limitscope::redis {

namespace {

constexpr std::int64_t kExact = std::int64_t{1} << 53;  // Lua doubles hold every integer below

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::optional<double> to_double(const std::string& s) {
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<std::int64_t> to_int(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool valid_limit_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

void add_limit_fields(const std::string& pre, const LimitParams& p,
                      std::vector<std::pair<std::string, std::string>>& out) {
  out.emplace_back(pre + "algorithm", std::string(to_string(p.algorithm)));
  if (is_window_algorithm(p.algorithm)) {
    out.emplace_back(pre + "limit", exact(p.limit));
    out.emplace_back(pre + "window_ns", std::to_string(p.window.count()));
    out.emplace_back(pre + "window", format_duration(p.window));
  } else {
    out.emplace_back(pre + "capacity", exact(p.capacity));
    out.emplace_back(pre + "refill_amount", exact(p.refill.amount));
    out.emplace_back(pre + "refill_period_ns", std::to_string(p.refill.period.count()));
    out.emplace_back(pre + "refill", p.refill.to_string());
  }
}

Expected<LimitParams> parse_limit(const std::map<std::string, std::string>& f,
                                  const std::string& pre) {
  auto field = [&](const std::string& name) -> const std::string* {
    auto it = f.find(pre + name);
    return it == f.end() ? nullptr : &it->second;
  };
  auto bad = [&](const std::string& name) {
    const std::string* v = field(name);
    return make_error("field " + pre + name + (v ? " holds \"" + *v + "\"" : " is missing"));
  };
  LimitParams p;
  const std::string* alg = field("algorithm");
  const auto a = alg ? parse_algorithm(*alg) : std::nullopt;
  if (!a) return bad("algorithm");
  p.algorithm = *a;
  if (is_window_algorithm(p.algorithm)) {
    const auto limit = field("limit") ? to_double(*field("limit")) : std::nullopt;
    if (!limit) return bad("limit");
    const auto w = field("window_ns") ? to_int(*field("window_ns")) : std::nullopt;
    if (!w) return bad("window_ns");
    p.limit = *limit;
    p.window = Nanos{*w};
  } else {
    const auto cap = field("capacity") ? to_double(*field("capacity")) : std::nullopt;
    if (!cap) return bad("capacity");
    const auto amount = field("refill_amount") ? to_double(*field("refill_amount")) : std::nullopt;
    if (!amount) return bad("refill_amount");
    const auto period =
        field("refill_period_ns") ? to_int(*field("refill_period_ns")) : std::nullopt;
    if (!period) return bad("refill_period_ns");
    p.capacity = *cap;
    p.refill = Rate{*amount, Nanos{*period}};
  }
  return p;
}

// The parameter fields of an algorithm, as stored (no algorithm: an override has the rule's).
std::vector<std::string> param_fields(Algorithm a) {
  if (is_window_algorithm(a)) return {"limit", "window_ns"};
  return {"capacity", "refill_amount", "refill_period_ns"};
}

constexpr std::string_view kOverridePrefix = "o.";
constexpr std::size_t kMaxOverrideKey = 512;

RedisError usage(std::string message) {
  return make_redis_error(ErrorKind::usage, std::move(message));
}

// Each byte as one code point (Latin-1), in UTF-8: any bytes become text nlohmann reads.
std::string bytes_as_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 4);
  for (const char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    if (b < 0x80) {
      out += ch;
    } else {
      out += static_cast<char>(0xC0 | (b >> 6));
      out += static_cast<char>(0x80 | (b & 0x3F));
    }
  }
  return out;
}

// The inverse of bytes_as_utf8 for code points up to U+00FF; a longer sequence (from an
// escaped code point above U+00FF) is kept as it is.
std::string utf8_as_bytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b == 0xC2 || b == 0xC3) && i + 1 < text.size()) {
      out +=
          static_cast<char>(((b & 0x03) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3F));
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// An audit entry's old/new object. Redis's cjson copies a string's bytes as they are, so an
// override key that is not UTF-8 (a limited key is any bytes) gives text that is not UTF-8,
// which nlohmann refuses: history showed no config and undo found nothing to restore. Such
// text is read byte by byte as Latin-1 and every string turned back into the same bytes.
std::map<std::string, std::string> json_fields(const std::string& text) {
  std::map<std::string, std::string> out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  const bool bytes = j.is_discarded();
  if (bytes) j = nlohmann::json::parse(bytes_as_utf8(text), nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) continue;
    if (bytes) {
      out[utf8_as_bytes(k)] = utf8_as_bytes(v.get<std::string>());
    } else {
      out[k] = v.get<std::string>();
    }
  }
  return out;
}

}  // namespace

std::string RuleConfig::describe() const {
  std::string out;
  for (const NamedLimit& l : limits) {
    if (!out.empty()) out += "; ";
    if (!l.name.empty()) out += l.name + ": ";
    out += l.params.describe();
  }
  for (const auto& [key, p] : overrides) out += "; override " + key + ": " + p.describe();
  return out;
}

const LimitParams& RuleConfig::params_for(const std::string& key) const {
  auto it = overrides.find(key);
  return it != overrides.end() ? it->second : limits.front().params;
}

RuleConfig single_limit(const LimitParams& params) {
  RuleConfig c;
  c.limits.push_back(NamedLimit{"", params});
  return c;
}

Status check_for_redis(const RuleConfig& config) {
  if (config.limits.empty()) return make_error("a rule needs at least one limit");
  std::set<std::string> names;
  for (const NamedLimit& l : config.limits) {
    const std::string where = l.name.empty() ? "" : "limit " + l.name + ": ";
    if (config.composite()) {
      if (!valid_limit_name(l.name)) {
        return make_error("limit name \"" + l.name +
                          "\" must be 1 to 64 characters of [A-Za-z0-9_-]");
      }
      if (!names.insert(l.name).second)
        return make_error("limit name \"" + l.name + "\" appears twice");
    }
    const LimitParams& p = l.params;
    if (p.algorithm == Algorithm::leaky_bucket) {
      return make_error(where +
                        "leaky-bucket is not available on Redis (token-bucket, gcra, sliding-log, "
                        "sliding-counter, fixed-window are)");
    }
    if (Status e = p.validate(); !e.ok()) return make_error(where + e.error());
    if (is_window_algorithm(p.algorithm)) {
      if (p.window.count() % 1000 != 0) {
        return make_error(where + "window must be a whole number of microseconds on Redis, got " +
                          std::to_string(p.window.count()) + "ns");
      }
      if (p.window.count() > kExact)
        return make_error(where + "window must be below 2^53 ns (104 days)");
    } else if (p.refill.period.count() > kExact) {
      return make_error(where + "refill period must be below 2^53 ns (104 days)");
    }
  }
  if (!config.overrides.empty() && config.composite()) {
    return make_error(
        "a composite rule takes no per-key overrides (its limits apply to every key)");
  }
  for (const auto& [key, p] : config.overrides) {
    const std::string where = "override of key \"" + key.substr(0, 64) + "\": ";
    if (key.empty() || key.size() > kMaxOverrideKey)
      return make_error(where + "the key must be 1 to 512 bytes");
    if (p.algorithm != config.limits.front().params.algorithm) {
      return make_error(where + "an override keeps the rule's algorithm (" +
                        std::string(to_string(config.limits.front().params.algorithm)) + "), got " +
                        std::string(to_string(p.algorithm)));
    }
    RuleConfig alone = single_limit(p);
    if (Status e = check_for_redis(alone); !e.ok()) return make_error(where + e.error());
  }
  return {};
}

RuleConfig with_rule_limits(const std::optional<RuleConfig>& live, RuleConfig next,
                            std::vector<std::string>* dropped) {
  next.overrides.clear();
  if (!live) return next;
  const bool keep = !next.composite() && !live->composite() &&
                    next.limits.front().params.algorithm == live->limits.front().params.algorithm;
  for (const auto& [key, p] : live->overrides) {
    if (keep) {
      next.overrides.emplace(key, p);
    } else if (dropped != nullptr) {
      dropped->push_back(key);
    }
  }
  return next;
}

RuleConfig with_override(const RuleConfig& live, const std::string& key,
                         const std::optional<LimitParams>& params) {
  RuleConfig next = live;
  if (params) {
    next.overrides[key] = *params;
  } else {
    next.overrides.erase(key);
  }
  return next;
}

std::vector<std::pair<std::string, std::string>> config_fields(const RuleConfig& config) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!config.composite()) {
    add_limit_fields("", config.limits.front().params, out);
    if (config.overrides.empty()) return out;
    // decide.lua reads a key's override fields only when this count is above 0.
    out.emplace_back("overrides", std::to_string(config.overrides.size()));
    for (const auto& [key, p] : config.overrides) {
      std::vector<std::pair<std::string, std::string>> fields;
      add_limit_fields("", p, fields);
      for (const std::string& name : param_fields(p.algorithm)) {
        for (const auto& [f, v] : fields) {
          if (f == name) out.emplace_back(std::string(kOverridePrefix) + name + "." + key, v);
        }
      }
    }
    return out;
  }
  std::string names;
  for (const NamedLimit& l : config.limits) names += (names.empty() ? "" : ",") + l.name;
  out.emplace_back("algorithm", "composite");
  out.emplace_back("limits", names);
  for (const NamedLimit& l : config.limits) add_limit_fields(l.name + ".", l.params, out);
  return out;
}

Expected<RuleConfig> parse_config_fields(const std::map<std::string, std::string>& fields) {
  RuleConfig c;
  auto alg = fields.find("algorithm");
  if (alg != fields.end() && alg->second == "composite") {
    auto names = fields.find("limits");
    std::string list = names == fields.end() ? "" : names->second;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      std::string name = list.substr(start, comma - start);
      start = comma + 1;
      if (name.empty()) continue;
      auto p = parse_limit(fields, name + ".");
      if (!p) return make_error(p.error());
      c.limits.push_back(NamedLimit{name, *p});
    }
    if (c.limits.empty()) return make_error("composite config lists no limits");
  } else {
    auto p = parse_limit(fields, "");
    if (!p) return make_error(p.error());
    c.limits.push_back(NamedLimit{"", *p});
    // Overrides: "o.<field>.<key>" (field names hold no '.'; the key is the rest).
    std::map<std::string, std::map<std::string, std::string>> by_key;
    for (auto it = fields.lower_bound(std::string(kOverridePrefix));
         it != fields.end() && it->first.starts_with(kOverridePrefix); ++it) {
      const std::string rest = it->first.substr(kOverridePrefix.size());
      const auto dot = rest.find('.');
      if (dot == std::string::npos || dot + 1 >= rest.size()) {
        return make_error("field " + it->first + " is not o.<field>.<key>");
      }
      by_key[rest.substr(dot + 1)][rest.substr(0, dot)] = it->second;
    }
    for (auto& [key, f] : by_key) {
      f["algorithm"] = std::string(to_string(p->algorithm));
      auto o = parse_limit(f, "");
      if (!o) return make_error("override of key " + key + ": " + o.error());
      c.overrides.emplace(key, *o);
    }
  }
  auto get = [&](const char* name) {
    auto it = fields.find(name);
    return it == fields.end() ? std::string() : it->second;
  };
  c.version = to_int(get("version")).value_or(0);
  c.updated_at_ms = to_int(get("updated_at")).value_or(0);
  c.updated_by = get("updated_by");
  c.reason = get("reason");
  return c;
}

bool is_version_conflict(const RedisError& e) {
  return e.kind == ErrorKind::reply && e.message.find("LSCAS") != std::string::npos;
}

Result<std::map<std::string, std::string>> read_config_hash(Connection& c, const std::string& key) {
  auto reply = c.command({"HGETALL", key});
  if (!reply) return reply.error();
  return config_hash_fields(*reply, key);
}

Result<std::map<std::string, std::string>> config_hash_fields(const Value& reply,
                                                              const std::string& key) {
  // A pipeline leaves an error reply in place; Connection::command() turns it into an error.
  if (reply.is_error())
    return make_redis_error(classify_error_reply(reply.str), "HGETALL " + key + ": " + reply.str);
  if (!reply.is_array() || reply.elements.size() % 2 != 0) {
    return make_redis_error(ErrorKind::protocol, "HGETALL " + key + ": " + reply.describe());
  }
  std::map<std::string, std::string> fields;
  for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    fields[reply.elements[i].str] = reply.elements[i + 1].str;
  }
  if (fields.empty()) return fields;
  // decide.lua refuses a config whose version is not an integer: so does the reader, or a
  // garbage version would look like version 0 and never be repaired.
  const auto v = fields.find("version");
  if (v == fields.end() || !to_int(v->second) || *to_int(v->second) < 0) {
    return make_redis_error(ErrorKind::reply,
                            key + ": version must be an integer, got " +
                                (v == fields.end() ? std::string("none") : "'" + v->second + "'"));
  }
  return fields;
}

Result<std::optional<RuleConfig>> get_config(Connection& c, const KeySchema& schema,
                                             std::string_view rule) {
  if (Status e = schema.check_names(rule); !e.ok()) return usage(e.error());
  const std::string key = schema.config_key(rule);
  auto fields = read_config_hash(c, key);
  if (!fields) return fields.error();
  if (fields->empty()) return std::optional<RuleConfig>{};
  auto parsed = parse_config_fields(*fields);
  if (!parsed) return make_redis_error(ErrorKind::reply, key + ": " + parsed.error());
  return std::optional<RuleConfig>{std::move(*parsed)};
}

Result<std::string> stored_version_field(Connection& c, const KeySchema& schema,
                                         std::string_view rule) {
  if (Status e = schema.check_names(rule); !e.ok()) return usage(e.error());
  const std::string key = schema.config_key(rule);
  auto reply = c.command({"HGET", key, "version"});
  if (!reply) return reply.error();
  if (reply->is_nil()) return std::string();
  if (!reply->is_string())
    return make_redis_error(ErrorKind::protocol, "HGET " + key + ": " + reply->describe());
  return reply->str;
}

Result<RuleConfig> write_config(Connection& c, const ConfigPlace& place, std::string_view rule,
                                const RuleConfig& config, const ChangeInfo& change,
                                std::string_view action) {
  if (Status e = check_for_redis(config); !e.ok())
    return usage("rule " + std::string(rule) + ": " + e.error());
  std::vector<std::string> args{change.expect_raw_version ? "=" + *change.expect_raw_version
                                : change.expect_version   ? std::to_string(*change.expect_version)
                                                          : std::string(),
                                change.by, change.reason, std::to_string(kAuditMaxLen),
                                std::string(action)};
  for (auto& [f, v] : config_fields(config)) {
    args.push_back(f);
    args.push_back(v);
  }
  std::vector<std::string> keys{place.hash, place.audit};
  if (!place.stamp.empty()) keys.push_back(place.stamp);
  if (!place.counts.empty()) keys.push_back(place.counts);
  auto reply = eval(c, config_set_script(), keys, args);
  if (!reply) return reply.error();
  if (!reply->is_array() || reply->elements.size() != 2 || !reply->elements[0].as_integer() ||
      !reply->elements[1].as_integer()) {
    return make_redis_error(ErrorKind::protocol, "config_set.lua reply: " + reply->describe());
  }
  RuleConfig stored = config;
  stored.version = *reply->elements[0].as_integer();
  stored.updated_at_ms = *reply->elements[1].as_integer();
  stored.updated_by = change.by;
  stored.reason = change.reason;
  return stored;
}

namespace {
Result<RuleConfig> apply(Connection& c, const KeySchema& schema, std::string_view rule,
                         const RuleConfig& config, const ChangeInfo& change,
                         std::string_view action) {
  if (Status e = schema.check_names(rule); !e.ok()) return usage(e.error());
  return write_config(
      c, {schema.config_key(rule), schema.audit_key(rule), schema.config_stamp_key(rule)}, rule,
      config, change, action);
}
}  // namespace

Result<RuleConfig> set_config(Connection& c, const KeySchema& schema, std::string_view rule,
                              const RuleConfig& config, const ChangeInfo& change) {
  return apply(c, schema, rule, config, change, "set");
}

Result<std::vector<AuditEntry>> read_audit(Connection& c, const std::string& audit_key,
                                           std::size_t count) {
  auto entries = newest_stream_entries(c, audit_key, count);
  if (!entries) return entries.error();
  std::vector<AuditEntry> out;
  for (const StreamEntry& e : *entries) {
    AuditEntry a;
    a.id = e.id;
    for (const auto& [k, v] : e.fields) {
      if (k == "version")
        a.version = to_int(v).value_or(0);
      else if (k == "action")
        a.action = v;
      else if (k == "by")
        a.by = v;
      else if (k == "at")
        a.at_ms = to_int(v).value_or(0);
      else if (k == "reason")
        a.reason = v;
      else if (k == "old")
        a.old_fields = json_fields(v);
      else if (k == "new")
        a.new_fields = json_fields(v);
    }
    out.push_back(std::move(a));
  }
  return out;
}

Result<std::vector<AuditEntry>> config_history(Connection& c, const KeySchema& schema,
                                               std::string_view rule, std::size_t count) {
  if (Status e = schema.check_names(rule); !e.ok()) return usage(e.error());
  return read_audit(c, schema.audit_key(rule), count);
}

Result<RuleConfig> undo_config(Connection& c, const KeySchema& schema, std::string_view rule,
                               const ChangeInfo& change) {
  auto current = get_config(c, schema, rule);
  if (!current) return current.error();
  if (!*current) return usage("rule " + std::string(rule) + " has no config to undo");
  auto history = config_history(c, schema, rule, 1);
  if (!history) return history.error();
  if (history->empty() || history->front().version != (*current)->version) {
    return usage("rule " + std::string(rule) + ": the latest audit entry is not version " +
                 std::to_string((*current)->version) +
                 " (changed outside limitscope?): nothing undone");
  }
  const AuditEntry& last = history->front();
  if (last.old_fields.empty()) {
    return usage("rule " + std::string(rule) + ": version " + std::to_string(last.version) +
                 " created the rule; there is no earlier config to restore");
  }
  auto previous = parse_config_fields(last.old_fields);
  if (!previous)
    return usage("rule " + std::string(rule) + ": audit entry " + last.id + ": " +
                 previous.error());
  ChangeInfo info = change;
  info.expect_version = (*current)->version;
  if (info.reason.empty()) info.reason = "undo of version " + std::to_string(last.version);
  return apply(c, schema, rule, *previous, info, "undo");
}

}  // namespace limitscope::redis
