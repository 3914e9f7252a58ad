// limitscope-cli config set|get|history|undo|override: a rule's live configuration in Redis
// (core/redis/rule_config.h, docs/redis-schema.md). Every change is a compare-and-set on the
// version plus an audit stream entry, made atomically by one script. Exit 0 done, 1 not done
// because of what Redis holds or answers (version moved, nothing to undo, no config, Redis
// unreachable), 2 bad usage or input (invalid values are refused and nothing changes).

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/limiter/rate.h"
#include "core/redis/connection.h"
#include "core/redis/redis_url.h"
#include "core/redis/rule_config.h"

namespace limitscope::cli {

namespace {

using nlohmann::json;
using redis::RuleConfig;

constexpr std::string_view kSummary = "show and change a rule's live config in Redis, with audit and undo";

std::vector<OptionSpec> common_specs() {
  return {
      {"redis", "URL", "redis://[user:password@]host:port/db, unix:///path or redis+cluster://host:port,host:port (required)"},
      redis_password_file_spec(),
      {"rule", "NAME", "the rule (required)"},
      {"prefix", "P", "key prefix (default limitscope:)"},
      {"timeout", "D", "connect and command timeout (default 2s)"},
      {"json", "", "print JSON"},
  };
}

std::vector<OptionSpec> with(std::vector<OptionSpec> more) {
  auto specs = common_specs();
  specs.insert(specs.end(), more.begin(), more.end());
  return specs;
}

json limit_json(const redis::NamedLimit& l) {
  const LimitParams& p = l.params;
  json j{{"name", l.name}, {"algorithm", std::string(to_string(p.algorithm))}};
  if (is_window_algorithm(p.algorithm)) {
    j["limit"] = p.limit;
    j["window"] = format_duration(p.window);
    j["window_ms"] = static_cast<double>(p.window.count()) / 1e6;
  } else {
    j["capacity"] = p.capacity;
    j["refill"] = p.refill.to_string();
    j["refill_per_s"] = p.refill.per_second();
  }
  return j;
}

json config_json(const std::string& rule, const RuleConfig& c) {
  json limits = json::array();
  for (const auto& l : c.limits) limits.push_back(limit_json(l));
  json overrides = json::object();
  for (const auto& [key, p] : c.overrides) overrides[key] = limit_json(redis::NamedLimit{"", p});
  return json{{"rule", rule},           {"version", c.version},
              {"updated_at_ms", c.updated_at_ms}, {"updated_by", c.updated_by},
              {"reason", c.reason},     {"composite", c.composite()},
              {"describe", c.describe()}, {"limits", limits}, {"overrides", overrides}};
}

json fields_json(const std::map<std::string, std::string>& f) {
  json j = json::object();
  for (const auto& [k, v] : f) j[k] = v;
  return j;
}

void print_config(const std::string& rule, const RuleConfig& c, bool as_json) {
  if (as_json) {
    std::cout << json_text(config_json(rule, c)) << "\n";
    return;
  }
  std::cout << "rule " << rule << " version " << c.version << ": " << c.describe() << "\n";
  std::cout << "  updated_at_ms " << c.updated_at_ms << " by " << c.updated_by;
  if (!c.reason.empty()) std::cout << " (" << c.reason << ")";
  std::cout << "\n";
}

struct Target {
  redis::RedisUrl url;
  redis::KeySchema schema;
  std::string rule;
  redis::ConnectOptions connect;
};

// The shared options, or the usage error message.
Expected<Target> parse_target(const Args& a) {
  Target t;
  auto parsed = parse_redis_url_option(a);
  if (!parsed) return make_error(parsed.error());
  t.url = *parsed;
  const auto rule = a.get("rule");
  if (!rule) return make_error("--rule is required");
  if (auto e = redis::KeySchema::check_rule(*rule)) return make_error("--rule: " + *e);
  t.rule = *rule;
  t.schema = redis::KeySchema(a.get("prefix").value_or(std::string(redis::kDefaultPrefix)));
  if (auto e = t.schema.check_prefix()) return make_error("--prefix: " + *e);
  t.connect.connect_timeout = std::chrono::milliseconds(2000);
  t.connect.command_timeout = std::chrono::milliseconds(2000);
  if (auto d = a.get("timeout")) {
    auto ns = parse_duration(*d);
    if (!ns || *ns < std::chrono::milliseconds(1) || *ns > std::chrono::minutes(1)) {
      return make_error("--timeout: \"" + *d + "\" must be a duration from 1ms to 1m");
    }
    t.connect.connect_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*ns);
    t.connect.command_timeout = t.connect.connect_timeout;
  }
  return t;
}

// One limit from --algorithm/--capacity/--refill or --limit/--window style values.
Expected<LimitParams> make_limit(const std::string& algorithm,
                                 const std::map<std::string, std::string>& v,
                                 const std::string& where) {
  const auto alg = parse_algorithm(algorithm);
  if (!alg) {
    return make_error(where + "algorithm \"" + algorithm +
                      "\" must be token-bucket, gcra, sliding-log, sliding-counter or fixed-window");
  }
  LimitParams p;
  p.algorithm = *alg;
  auto need = [&](const char* name) -> Expected<std::string> {
    auto it = v.find(name);
    if (it == v.end()) {
      return make_error(where + std::string(to_string(*alg)) + " needs " + name);
    }
    return it->second;
  };
  auto number = [&](const char* name) -> Expected<double> {
    auto s = need(name);
    if (!s) return make_error(s.error());
    char* end = nullptr;
    const double d = std::strtod(s->c_str(), &end);
    if (s->empty() || *end != '\0') return make_error(where + name + " \"" + *s + "\" is not a number");
    return d;
  };
  if (is_window_algorithm(p.algorithm)) {
    auto limit = number("limit");
    if (!limit) return make_error(limit.error());
    auto w = need("window");
    if (!w) return make_error(w.error());
    auto window = parse_duration(*w);
    if (!window) return make_error(where + "window: " + window.error());
    p.limit = *limit;
    p.window = *window;
  } else {
    auto capacity = number("capacity");
    if (!capacity) return make_error(capacity.error());
    auto r = need("refill");
    if (!r) return make_error(r.error());
    auto rate = parse_rate(*r);
    if (!rate) return make_error(where + "refill: " + rate.error());
    p.capacity = *capacity;
    p.refill = *rate;
  }
  return p;
}

// "NAME:ALGORITHM:key=value:key=value" (a composite's limit).
Expected<redis::NamedLimit> parse_sub_limit(const std::string& spec) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  const std::string where = "--composite-limit \"" + spec + "\": ";
  if (parts.size() < 2) return make_error(where + "expected NAME:ALGORITHM:key=value...");
  std::map<std::string, std::string> values;
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string::npos) return make_error(where + "\"" + parts[i] + "\" is not key=value");
    values[parts[i].substr(0, eq)] = parts[i].substr(eq + 1);
  }
  auto p = make_limit(parts[1], values, where);
  if (!p) return make_error(p.error());
  return redis::NamedLimit{parts[0], *p};
}

std::string default_user() {
  const char* u = std::getenv("USER");
  return u != nullptr && *u != '\0' ? u : "limitscope-cli";
}

// Exit code and message for a failed Redis operation: 2 when our input was refused, else 1.
int redis_failure(std::string_view sub, const redis::RedisError& e) {
  std::cerr << "limitscope-cli config " << sub << ": " << e.message << "\n";
  return e.kind == redis::ErrorKind::usage ? 2 : 1;
}

// Runs `op` where the rule's keys are: the server, or the rule's shard of a cluster.
template <class T, class Op>
redis::Result<T> on_rule(const Target& t, Op&& op) {
  return on_rule_connection<T>(t.url, t.connect, t.schema, t.rule, op);
}

// --by, --reason, --expect-version.
Expected<redis::ChangeInfo> change_info(const Args& a) {
  redis::ChangeInfo change{a.get("by").value_or(default_user()), a.get("reason").value_or(""),
                           std::nullopt};
  if (auto ev = a.get("expect-version")) {
    char* end = nullptr;
    const long long v = std::strtoll(ev->c_str(), &end, 10);
    if (ev->empty() || *end != '\0' || v < 0) {
      return make_error("--expect-version \"" + *ev + "\" must be a whole number >= 0");
    }
    change.expect_version = v;
  }
  return change;
}

int run_set(const CommandArgs& argv) {
  Args a("config set", kSummary,
         with({{"algorithm", "A", "token-bucket, gcra, sliding-log, sliding-counter, fixed-window"},
               {"capacity", "N", "bucket size, cost units (bucket algorithms)"},
               {"refill", "RATE", "refill rate with a unit, e.g. 10/s (bucket algorithms)"},
               {"limit", "N", "cost units per window (window algorithms)"},
               {"window", "D", "window length, e.g. 1m (window algorithms)"},
               {"composite-limit", "NAME:ALG:k=v:...", "one limit of a composite rule (repeat)", true},
               {"reason", "TEXT", "why (kept in the audit stream)"},
               {"by", "WHO", "who (default $USER)"},
               {"expect-version", "N", "change only if the current version is N (0: must not exist)"},
               {"force", "", "replace a stored config that cannot be read (audited, compare-and-set on its version field)"}}),
         argv);
  if (a.help_requested()) {
    std::cout << a.usage();
    return 0;
  }
  if (!a.ok()) return usage_error("config set", a.error());
  auto t = parse_target(a);
  if (!t) return usage_error("config set", t.error());
  RuleConfig config;
  const auto subs = a.all("composite-limit");
  if (!subs.empty()) {
    for (const char* o : {"algorithm", "capacity", "refill", "limit", "window"}) {
      if (a.has(o)) return usage_error("config set", std::string("--") + o + " and --composite-limit exclude each other");
    }
    for (const auto& s : subs) {
      auto l = parse_sub_limit(s);
      if (!l) return usage_error("config set", l.error());
      config.limits.push_back(*l);
    }
  } else {
    const auto alg = a.get("algorithm");
    if (!alg) return usage_error("config set", "--algorithm (or --composite-limit) is required");
    std::map<std::string, std::string> v;
    for (const char* o : {"capacity", "refill", "limit", "window"}) {
      if (auto x = a.get(o)) v[o] = *x;
    }
    auto p = make_limit(*alg, v, "--");
    if (!p) return usage_error("config set", p.error());
    const bool window = is_window_algorithm(p->algorithm);
    const std::vector<std::string> other =
        window ? std::vector<std::string>{"capacity", "refill"} : std::vector<std::string>{"limit", "window"};
    for (const std::string& o : other) {
      if (a.has(o)) {
        return usage_error("config set", "--" + o + " does not apply to " +
                                             std::string(to_string(p->algorithm)));
      }
    }
    config = redis::single_limit(*p);
  }
  if (auto e = redis::check_for_redis(config)) return usage_error("config set", *e);
  auto change = change_info(a);
  if (!change) return usage_error("config set", change.error());
  // The rule's per-key overrides stay when the algorithm does: read, merge, then write with
  // compare-and-set on the version read (or the one the operator expects).
  std::vector<std::string> dropped;
  auto stored = on_rule<RuleConfig>(*t, [&](redis::Connection& c) -> redis::Result<RuleConfig> {
    dropped.clear();  // a cluster redirection runs this again: report the last attempt's keys only
    auto live = redis::get_config(c, t->schema, t->rule);
    if (!live && live.error().kind != redis::ErrorKind::reply) return live.error();
    redis::ChangeInfo ch = *change;
    if (!live) {
      // An unreadable config (a field written by hand, a garbage version) is replaced as a
      // whole, only when asked: compare-and-set on the version field as read, audited.
      if (!a.has("force")) {
        return redis::make_redis_error(redis::ErrorKind::reply,
                                       live.error().message + " (--force replaces the unreadable config)");
      }
      auto raw = redis::stored_version_field(c, t->schema, t->rule);
      if (!raw) return raw.error();
      ch.expect_raw_version = *raw;
      if (ch.reason.empty()) ch.reason = "forced over an unreadable config: " + live.error().message;
      return redis::set_config(c, t->schema, t->rule, config, ch);
    }
    if (!ch.expect_version) ch.expect_version = *live ? (*live)->version : 0;
    return redis::set_config(c, t->schema, t->rule, redis::with_rule_limits(*live, config, &dropped), ch);
  });
  if (!stored) return redis_failure("set", stored.error());
  for (const auto& key : dropped) {
    std::cerr << "note: the override of key " << key << " was dropped (the algorithm changed; "
              << "the audit entry keeps it)\n";
  }
  if (a.has("json")) {
    // Always present (empty when nothing was dropped) so a script need not test for the key.
    json j = config_json(t->rule, *stored);
    j["dropped_overrides"] = dropped;
    std::cout << json_text(j) << "\n";
    return 0;
  }
  print_config(t->rule, *stored, false);
  return 0;
}

int run_override(const CommandArgs& argv) {
  Args a("config override", kSummary,
         with({{"key", "K", "the limited key whose parameters to set (required)"},
               {"capacity", "N", "bucket size (the rule's algorithm is a bucket)"},
               {"refill", "RATE", "refill rate with a unit, e.g. 10/s"},
               {"limit", "N", "cost units per window (the rule's algorithm is a window)"},
               {"window", "D", "window length, e.g. 1m"},
               {"remove", "", "remove the key's override: it gets the rule's limit again"},
               {"reason", "TEXT", "why (kept in the audit stream)"},
               {"by", "WHO", "who (default $USER)"},
               {"expect-version", "N", "change only if the rule's current version is N"}}),
         argv);
  if (a.help_requested()) {
    std::cout << a.usage();
    return 0;
  }
  if (!a.ok()) return usage_error("config override", a.error());
  auto t = parse_target(a);
  if (!t) return usage_error("config override", t.error());
  const auto key = a.get("key");
  if (!key || key->empty()) return usage_error("config override", "--key is required");
  std::map<std::string, std::string> values;
  for (const char* o : {"capacity", "refill", "limit", "window"}) {
    if (auto x = a.get(o)) values[o] = *x;
  }
  if (a.has("remove") && !values.empty()) {
    return usage_error("config override", "--remove takes no parameters");
  }
  if (!a.has("remove") && values.empty()) {
    return usage_error("config override", "give the key's parameters (--capacity/--refill or --limit/--window) or --remove");
  }
  auto change = change_info(a);
  if (!change) return usage_error("config override", change.error());
  auto stored = on_rule<RuleConfig>(*t, [&](redis::Connection& c) -> redis::Result<RuleConfig> {
    auto live = redis::get_config(c, t->schema, t->rule);
    if (!live) return live.error();
    if (!*live) {
      return redis::make_redis_error(redis::ErrorKind::reply,
                                     "rule " + t->rule + " has no config: set the rule's limit first");
    }
    const RuleConfig& rule = **live;
    std::optional<LimitParams> params;
    if (!a.has("remove")) {
      if (rule.composite()) {
        return redis::make_redis_error(
            redis::ErrorKind::usage,
            "rule " + t->rule + " is composite: its limits apply to every key (no overrides)");
      }
      auto p = make_limit(std::string(to_string(rule.limits.front().params.algorithm)), values,
                          "rule " + t->rule + " is " + std::string(to_string(rule.limits.front().params.algorithm)) + ": ");
      if (!p) return redis::make_redis_error(redis::ErrorKind::usage, p.error());
      params = *p;
    } else if (!rule.overrides.contains(*key)) {
      return redis::make_redis_error(redis::ErrorKind::reply, "key " + *key + " has no override in rule " + t->rule);
    }
    const RuleConfig next = redis::with_override(rule, *key, params);
    if (auto e = redis::check_for_redis(next)) return redis::make_redis_error(redis::ErrorKind::usage, *e);
    redis::ChangeInfo ch = *change;
    if (!ch.expect_version) ch.expect_version = rule.version;
    return redis::set_config(c, t->schema, t->rule, next, ch);
  });
  if (!stored) return redis_failure("override", stored.error());
  print_config(t->rule, *stored, a.has("json"));
  return 0;
}

int run_get(const CommandArgs& argv) {
  Args a("config get", kSummary, common_specs(), argv);
  if (a.help_requested()) {
    std::cout << a.usage();
    return 0;
  }
  if (!a.ok()) return usage_error("config get", a.error());
  auto t = parse_target(a);
  if (!t) return usage_error("config get", t.error());
  auto c = on_rule<std::optional<RuleConfig>>(
      *t, [&](redis::Connection& conn) { return redis::get_config(conn, t->schema, t->rule); });
  if (!c) return redis_failure("get", c.error());
  if (!*c) {
    std::cerr << "limitscope-cli config get: rule " << t->rule << " has no config at "
              << t->schema.config_key(t->rule) << "\n";
    return 1;
  }
  print_config(t->rule, **c, a.has("json"));
  return 0;
}

int run_history(const CommandArgs& argv) {
  Args a("config history", kSummary, with({{"count", "N", "entries, newest first (default 20)"}}), argv);
  if (a.help_requested()) {
    std::cout << a.usage();
    return 0;
  }
  if (!a.ok()) return usage_error("config history", a.error());
  auto t = parse_target(a);
  if (!t) return usage_error("config history", t.error());
  long long count = 20;
  if (auto c = a.get("count")) {
    char* end = nullptr;
    count = std::strtoll(c->c_str(), &end, 10);
    if (c->empty() || *end != '\0' || count < 1 || count > 10000) {
      return usage_error("config history", "--count \"" + *c + "\" must be a whole number from 1 to 10000");
    }
  }
  auto h = on_rule<std::vector<redis::AuditEntry>>(*t, [&](redis::Connection& c) {
    return redis::config_history(c, t->schema, t->rule, static_cast<std::size_t>(count));
  });
  if (!h) return redis_failure("history", h.error());
  if (a.has("json")) {
    json entries = json::array();
    for (const auto& e : *h) {
      entries.push_back(json{{"id", e.id}, {"version", e.version}, {"action", e.action},
                             {"by", e.by}, {"at_ms", e.at_ms}, {"reason", e.reason},
                             {"old", fields_json(e.old_fields)}, {"new", fields_json(e.new_fields)}});
    }
    std::cout << json_text(json{{"rule", t->rule}, {"entries", entries}}) << "\n";
    return 0;
  }
  for (const auto& e : *h) {
    auto describe = [](const std::map<std::string, std::string>& f) {
      if (f.empty()) return std::string("(none)");
      auto c = redis::parse_config_fields(f);
      return c ? c->describe() : "(unreadable: " + c.error() + ")";
    };
    std::cout << "version " << e.version << " " << e.action << " at_ms " << e.at_ms << " by "
              << e.by << (e.reason.empty() ? "" : " (" + e.reason + ")") << "\n  old: "
              << describe(e.old_fields) << "\n  new: " << describe(e.new_fields) << "\n";
  }
  return 0;
}

int run_undo(const CommandArgs& argv) {
  Args a("config undo", kSummary,
         with({{"reason", "TEXT", "why (default: undo of version N)"}, {"by", "WHO", "who (default $USER)"}}),
         argv);
  if (a.help_requested()) {
    std::cout << a.usage();
    return 0;
  }
  if (!a.ok()) return usage_error("config undo", a.error());
  auto t = parse_target(a);
  if (!t) return usage_error("config undo", t.error());
  const redis::ChangeInfo change{a.get("by").value_or(default_user()), a.get("reason").value_or(""),
                                 std::nullopt};
  auto stored = on_rule<RuleConfig>(
      *t, [&](redis::Connection& c) { return redis::undo_config(c, t->schema, t->rule, change); });
  if (!stored) {
    // Nothing to undo is a state of Redis, not bad input.
    std::cerr << "limitscope-cli config undo: " << stored.error().message << "\n";
    return 1;
  }
  print_config(t->rule, *stored, a.has("json"));
  return 0;
}

}  // namespace

int run_config(const CommandArgs& args) {
  const std::string usage =
      "usage: limitscope-cli config set|get|history|undo|override --redis URL --rule NAME [options]\n"
      "  (limitscope-cli config SUBCOMMAND --help for its options)\n";
  if (args.empty()) {
    std::cerr << usage;
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << usage;
    return 0;
  }
  const CommandArgs rest(args.begin() + 1, args.end());
  if (args[0] == "set") return run_set(rest);
  if (args[0] == "get") return run_get(rest);
  if (args[0] == "history") return run_history(rest);
  if (args[0] == "undo") return run_undo(rest);
  if (args[0] == "override") return run_override(rest);
  return usage_error("config", "unknown subcommand \"" + args[0] + "\" (set, get, history, undo, override)");
}

}  // namespace limitscope::cli
