// limitscope-cli config set|get|history|undo|override|state-format: a rule's live configuration
// in Redis (core/redis/rule_config.h, docs/redis-schema.md) and the state format
// its decisions write (core/redis/state_format.h, docs/redis-state.md). Every change is a
// compare-and-set on the version plus an audit stream entry, made atomically by one script. Exit 0
// done, 1 not done because of what Redis holds or answers (version moved, nothing to undo, no
// config, Redis unreachable), 2 bad usage or input (invalid values are refused and nothing
// changes).

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/config_options.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "app/options/args.h"
#include "core/limiter/rate.h"
#include "core/redis/connection.h"
#include "core/redis/redis_url.h"
#include "core/redis/rule_config.h"
#include "core/redis/state_format.h"

namespace limitscope::cli {

namespace {

using nlohmann::json;
using redis::RuleConfig;

constexpr std::string_view kSummary =
    "show and change a rule's live config in Redis, with audit and undo";

int run_set(const CommandArgs& argv) {
  auto specs = with(with_change_specs(
      config_limit_specs(), "change only if the current version is N (0: must not exist)"));
  specs.push_back({"force", "",
                   "replace a stored config that cannot be read (audited, compare-and-set on its "
                   "version field)"});
  const Expected<Args> command_line = Args::parse("config set", kSummary, specs, argv);
  if (const auto exit = early_exit(command_line, "config set")) return *exit;
  const Args& a = *command_line;
  auto t = parse_target(a);
  if (!t) return usage_error("config set", t.error());
  auto limits = config_from_limit_options(a);
  if (!limits) return usage_error("config set", limits.error());
  const RuleConfig config = *limits;
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
        return redis::make_redis_error(
            redis::ErrorKind::reply,
            live.error().message + " (--force replaces the unreadable config)");
      }
      auto raw = redis::stored_version_field(c, t->schema, t->rule);
      if (!raw) return raw.error();
      ch.expect_raw_version = *raw;
      if (ch.reason.empty())
        ch.reason = "forced over an unreadable config: " + live.error().message;
      return redis::set_config(c, t->schema, t->rule, config, ch);
    }
    if (!ch.expect_version) ch.expect_version = *live ? (*live)->version : 0;
    return redis::set_config(c, t->schema, t->rule,
                             redis::with_rule_limits(*live, config, &dropped), ch);
  });
  if (!stored) return redis_failure("config set", stored.error());
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
  const Expected<Args> command_line =
      Args::parse("config override", kSummary,
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
  if (const auto exit = early_exit(command_line, "config override")) return *exit;
  const Args& a = *command_line;
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
    return usage_error(
        "config override",
        "give the key's parameters (--capacity/--refill or --limit/--window) or --remove");
  }
  auto change = change_info(a);
  if (!change) return usage_error("config override", change.error());
  auto stored = on_rule<RuleConfig>(*t, [&](redis::Connection& c) -> redis::Result<RuleConfig> {
    auto live = redis::get_config(c, t->schema, t->rule);
    if (!live) return live.error();
    if (!*live) {
      return redis::make_redis_error(
          redis::ErrorKind::reply,
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
                          "rule " + t->rule + " is " +
                              std::string(to_string(rule.limits.front().params.algorithm)) + ": ");
      if (!p) return redis::make_redis_error(redis::ErrorKind::usage, p.error());
      params = *p;
    } else if (!rule.overrides.contains(*key)) {
      return redis::make_redis_error(redis::ErrorKind::reply,
                                     "key " + *key + " has no override in rule " + t->rule);
    }
    const RuleConfig next = redis::with_override(rule, *key, params);
    if (Status e = redis::check_for_redis(next); !e.ok())
      return redis::make_redis_error(redis::ErrorKind::usage, e.error());
    redis::ChangeInfo ch = *change;
    if (!ch.expect_version) ch.expect_version = rule.version;
    return redis::set_config(c, t->schema, t->rule, next, ch);
  });
  if (!stored) return redis_failure("config override", stored.error());
  print_config(t->rule, *stored, a.has("json"));
  return 0;
}

int run_get(const CommandArgs& argv) {
  const Expected<Args> command_line = Args::parse("config get", kSummary, common_specs(), argv);
  if (const auto exit = early_exit(command_line, "config get")) return *exit;
  const Args& a = *command_line;
  auto t = parse_target(a);
  if (!t) return usage_error("config get", t.error());
  auto c = on_rule<std::optional<RuleConfig>>(
      *t, [&](redis::Connection& conn) { return redis::get_config(conn, t->schema, t->rule); });
  if (!c) return redis_failure("config get", c.error());
  if (!*c) {
    std::cerr << "limitscope-cli config get: rule " << t->rule << " has no config at "
              << t->schema.config_key(t->rule) << "\n";
    return 1;
  }
  print_config(t->rule, **c, a.has("json"));
  return 0;
}

int run_history(const CommandArgs& argv) {
  const Expected<Args> command_line =
      Args::parse("config history", kSummary,
                  with({{"count", "N", "entries, newest first (default 20)"}}), argv);
  if (const auto exit = early_exit(command_line, "config history")) return *exit;
  const Args& a = *command_line;
  auto t = parse_target(a);
  if (!t) return usage_error("config history", t.error());
  long long count = 20;
  if (auto c = a.get("count")) {
    char* end = nullptr;
    count = std::strtoll(c->c_str(), &end, 10);
    if (c->empty() || *end != '\0' || count < 1 || count > 10000) {
      return usage_error("config history",
                         "--count \"" + *c + "\" must be a whole number from 1 to 10000");
    }
  }
  auto h = on_rule<std::vector<redis::AuditEntry>>(*t, [&](redis::Connection& c) {
    return redis::config_history(c, t->schema, t->rule, static_cast<std::size_t>(count));
  });
  if (!h) return redis_failure("config history", h.error());
  if (a.has("json")) {
    json entries = json::array();
    for (const auto& e : *h) {
      entries.push_back(json{{"id", e.id},
                             {"version", e.version},
                             {"action", e.action},
                             {"by", e.by},
                             {"at_ms", e.at_ms},
                             {"reason", e.reason},
                             {"old", fields_json(e.old_fields)},
                             {"new", fields_json(e.new_fields)}});
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
              << e.by << (e.reason.empty() ? "" : " (" + e.reason + ")")
              << "\n  old: " << describe(e.old_fields) << "\n  new: " << describe(e.new_fields)
              << "\n";
  }
  return 0;
}

int run_undo(const CommandArgs& argv) {
  const Expected<Args> command_line =
      Args::parse("config undo", kSummary,
                  with({{"reason", "TEXT", "why (default: undo of version N)"},
                        {"by", "WHO", "who (default $USER)"}}),
                  argv);
  if (const auto exit = early_exit(command_line, "config undo")) return *exit;
  const Args& a = *command_line;
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

// The state format the rule's decisions write: shown, or switched with --set (2 or 3 once every
// decider of the rule reads that format; 1 before deciders of an older version join). Not a
// config change: no version, no audit entry.
int run_state_format(const CommandArgs& argv) {
  const Expected<Args> command_line =
      Args::parse("config state-format", kSummary,
                  with({{"set", "1|2|3",
                         "switch the rule's decisions to write state format 1, 2 (token-bucket "
                         "states keep their TTL) or 3 (GCRA states too); 2 and 3 only once every "
                         "decider of the rule reads them: docs/redis-state.md"}}),
                  argv);
  if (const auto exit = early_exit(command_line, "config state-format")) return *exit;
  const Args& a = *command_line;
  auto t = parse_target(a);
  if (!t) return usage_error("config state-format", t.error());
  std::optional<int> want;
  if (auto s = a.get("set")) {
    if (*s != "1" && *s != "2" && *s != "3")
      return usage_error("config state-format", "--set \"" + *s + "\" must be 1, 2 or 3");
    want = std::stoi(*s);
  }
  auto f = on_rule<int>(*t, [&](redis::Connection& c) {
    return want ? redis::set_state_format(c, t->schema, t->rule, *want)
                : redis::get_state_format(c, t->schema, t->rule);
  });
  if (!f) return redis_failure("config state-format", f.error());
  if (a.has("json")) {
    std::cout << json_text(json{{"rule", t->rule}, {"state_format", *f}}) << "\n";
  } else {
    std::cout << "rule " << t->rule << ": state format " << *f << "\n";
  }
  return 0;
}

}  // namespace

int run_config(const CommandArgs& args) {
  const std::string usage =
      "usage: limitscope-cli config set|get|history|undo|override|state-format --redis URL "
      "--rule NAME "
      "[options]\n"
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
  if (args[0] == "state-format") return run_state_format(rest);
  return usage_error("config", "unknown subcommand \"" + args[0] +
                                   "\" (set, get, history, undo, override, state-format)");
}

}  // namespace limitscope::cli
