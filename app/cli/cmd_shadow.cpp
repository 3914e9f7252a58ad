// limitscope-cli shadow set|show|clear: a rule's shadow config in Redis
// (core/redis/shadow_config.h, docs/redis-schema.md): a candidate stored beside the live
// config with the same limit options as `config set`, its own version, compare-and-set and
// audit stream. Every decision of the rule evaluates it on the same request without enforcing
// it; `show` reports what it counted (allowed, rejected, and where it disagreed with the live
// config), or that no decision has evaluated it yet. Exit 0 done, 1 not done because of
// what Redis holds or answers (version moved, no shadow, Redis unreachable), 2 bad usage.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/config_options.h"
#include "app/cli/json_output.h"
#include "app/cli/subcommands.h"
#include "app/options/args.h"
#include "core/redis/shadow_config.h"

namespace limitscope::cli {

namespace {

using nlohmann::json;
using redis::RuleConfig;
using redis::ShadowState;

constexpr std::string_view kSummary =
    "store a candidate config beside a rule's live one (shadow: evaluated on every decision, never "
    "enforced)";

constexpr std::string_view kSubjectsNote =
    "a shadow config is evaluated by every decision of the rule on its own state keys and never "
    "enforced; `show` counts what it decided";

json state_json(const std::string& rule, const ShadowState& s,
                const std::optional<RuleConfig>& live) {
  const redis::ShadowCounts& n = s.counts;
  json j{{"rule", rule},
         {"version", s.version},
         {"updated_at_ms", s.updated_at_ms},
         {"updated_by", s.updated_by},
         {"reason", s.reason},
         {"shadow", s.config ? config_json(rule, *s.config) : json(nullptr)},
         {"live", live ? config_json(rule, *live) : json(nullptr)},
         {"evaluated", n.evaluated() > 0},
         {"counts", s.config ? json{{"allowed", n.allowed},
                                    {"rejected", n.rejected},
                                    {"would_reject", n.would_reject},
                                    {"would_admit", n.would_admit}}
                             : json(nullptr)}};
  if (s.config && n.evaluated() == 0) j["note"] = std::string(redis::kShadowNotEvaluated);
  return j;
}

void print_state(const std::string& rule, const ShadowState& s,
                 const std::optional<RuleConfig>& live) {
  if (s.config) {
    std::cout << "rule " << rule << " shadow version " << s.version << ": " << s.config->describe()
              << "\n";
  } else {
    std::cout << "rule " << rule << " has no shadow config";
    if (s.version > 0) std::cout << " (cleared at version " << s.version << ")";
    std::cout << "\n";
  }
  if (s.version > 0) {
    std::cout << "  updated_at_ms " << s.updated_at_ms << " by " << s.updated_by;
    if (!s.reason.empty()) std::cout << " (" << s.reason << ")";
    std::cout << "\n";
  }
  std::cout << "  live: "
            << (live ? "version " + std::to_string(live->version) + ": " + live->describe()
                     : std::string("(no config)"))
            << "\n";
  if (!s.config) return;
  const redis::ShadowCounts& n = s.counts;
  if (n.evaluated() == 0) {
    std::cout << "  " << redis::kShadowNotEvaluated << "\n";
    return;
  }
  std::cout << "  shadow decisions: " << n.allowed << " allowed, " << n.rejected
            << " rejected; would reject " << n.would_reject
            << " the live config admitted, would admit " << n.would_admit << " it refused\n";
}

// The shared options and --reason/--by/--expect-version, or the exit after --help (0) or a
// usage error (2).
struct Parsed {
  Target target;
  redis::ChangeInfo change;
};
Expected<Parsed, Exit> parse(const Expected<Args>& command_line, const std::string& command) {
  auto t = target_or_exit(command_line, command);
  if (!t) return t.error();
  // --by, --reason, --expect-version where the subcommand has them
  auto change = change_info(*command_line);
  if (!change) return Exit{usage_error(command, change.error())};
  return Parsed{*t, *change};
}

int run_set(const CommandArgs& argv) {
  const std::string command = "shadow set";
  const Expected<Args> command_line = Args::parse(
      command, kSummary,
      with(with_change_specs(config_limit_specs(),
                             "change only if the shadow's current version is N (0: never set)")),
      argv);
  const auto p = parse(command_line, command);
  if (!p) return p.error().code;
  const Args& a = *command_line;
  const Target* t = &p->target;
  const redis::ChangeInfo* change = &p->change;
  auto config = config_from_limit_options(a);
  if (!config) return usage_error(command, config.error());
  struct Written {
    RuleConfig shadow;
    std::optional<RuleConfig> live;
  };
  auto written = on_rule<Written>(*t, [&](redis::Connection& c) -> redis::Result<Written> {
    redis::ChangeInfo ch = *change;
    if (!ch.expect_version) {
      // Compare-and-set on the version read, as `config set` does.
      auto now = redis::get_shadow(c, t->schema, t->rule);
      if (!now) return now.error();
      ch.expect_version = now->version;
    }
    auto stored = redis::set_shadow(c, t->schema, t->rule, *config, ch);
    if (!stored) return stored.error();
    auto live = redis::get_config(c, t->schema, t->rule);
    return Written{*stored, live ? *live : std::nullopt};
  });
  if (!written) return redis_failure(command, written.error());
  ShadowState s{written->shadow,
                written->shadow.version,
                written->shadow.updated_at_ms,
                written->shadow.updated_by,
                written->shadow.reason,
                redis::ShadowCounts{}};
  if (a.has("json")) {
    std::cout << json_text(state_json(t->rule, s, written->live)) << "\n";
  } else {
    print_state(t->rule, s, written->live);
  }
  return 0;
}

int run_show(const CommandArgs& argv) {
  const std::string command = "shadow show";
  const Expected<Args> command_line = Args::parse(command, kSummary, common_specs(), argv);
  const auto p = parse(command_line, command);
  if (!p) return p.error().code;
  const Args& a = *command_line;
  const Target* t = &p->target;
  struct Read {
    ShadowState shadow;
    std::optional<RuleConfig> live;
  };
  auto read = on_rule<Read>(*t, [&](redis::Connection& c) -> redis::Result<Read> {
    auto s = redis::get_shadow(c, t->schema, t->rule);
    if (!s) return s.error();
    auto live = redis::get_config(c, t->schema, t->rule);
    return Read{*s, live ? *live : std::nullopt};
  });
  if (!read) return redis_failure(command, read.error());
  if (a.has("json")) {
    std::cout << json_text(state_json(t->rule, read->shadow, read->live)) << "\n";
  } else {
    print_state(t->rule, read->shadow, read->live);
  }
  return read->shadow.config ? 0 : 1;
}

int run_clear(const CommandArgs& argv) {
  const std::string command = "shadow clear";
  const Expected<Args> command_line = Args::parse(
      command, kSummary,
      with(with_change_specs({}, "clear only if the shadow's current version is N")), argv);
  const auto p = parse(command_line, command);
  if (!p) return p.error().code;
  const Args& a = *command_line;
  const Target* t = &p->target;
  const redis::ChangeInfo* change = &p->change;
  auto cleared = on_rule<ShadowState>(*t, [&](redis::Connection& c) {
    return redis::clear_shadow(c, t->schema, t->rule, *change);
  });
  if (!cleared) return redis_failure(command, cleared.error());
  if (a.has("json")) {
    std::cout << json_text(state_json(t->rule, *cleared, std::nullopt)) << "\n";
  } else {
    std::cout << "rule " << t->rule << ": shadow cleared (version " << cleared->version << ")\n";
  }
  return 0;
}

}  // namespace

int run_shadow(const CommandArgs& args) {
  static constexpr Subcommand kSubjects[] = {
      {"set", "store a candidate config as the rule's shadow (compare-and-set, audited)", run_set},
      {"show", "the rule's shadow beside its live config", run_show},
      {"clear", "remove the rule's shadow (compare-and-set, audited)", run_clear},
  };
  return run_subcommand("shadow", kSubjectsNote, kSubjects, args);
}

}  // namespace limitscope::cli
