// Options and output shared by `config` and `shadow`: the Redis target, the limit options of
// `config set`, who/why/compare-and-set, and a config as text or JSON.

#include "app/cli/config_options.h"

#include <cstdlib>
#include <iostream>

#include "app/cli/json_output.h"
#include "core/limiter/rate.h"

namespace limitscope::cli {

using nlohmann::json;
using redis::RuleConfig;

// One limit from --algorithm/--capacity/--refill or --limit/--window style values.
Expected<LimitParams> make_limit(const std::string& algorithm,
                                 const std::map<std::string, std::string>& v,
                                 const std::string& where) {
  const auto alg = parse_algorithm(algorithm);
  if (!alg) {
    return make_error(
        where + "algorithm \"" + algorithm +
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
    if (s->empty() || *end != '\0')
      return make_error(where + name + " \"" + *s + "\" is not a number");
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

namespace {

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

}  // namespace

std::vector<OptionSpec> common_specs() {
  // The shared Redis options (one default timeout for every program), without a failure
  // mode: these subcommands read and write configs, they make no decisions.
  auto specs = redis_flag_specs({.failure_mode = false});
  specs.insert(specs.begin() + 2, {"rule", "NAME", "the rule (required)"});
  specs.push_back({"json", "", "print JSON"});
  return specs;
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
  return json{{"rule", rule},
              {"version", c.version},
              {"updated_at_ms", c.updated_at_ms},
              {"updated_by", c.updated_by},
              {"reason", c.reason},
              {"composite", c.composite()},
              {"describe", c.describe()},
              {"limits", limits},
              {"overrides", overrides}};
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

Expected<Target, Exit> target_or_exit(const Expected<Args>& parsed, std::string_view command) {
  if (const auto stop = early_exit(parsed, command)) return Exit{*stop};
  auto t = parse_target(*parsed);
  if (!t) return Exit{usage_error(command, t.error())};
  return *t;
}

// The shared options, or the usage error message.
Expected<Target> parse_target(const Args& a) {
  auto shared = parse_redis_options(a);
  if (!shared) return make_error(shared.error());
  if (shared->rule.empty()) return make_error("--rule is required");
  return Target{std::move(shared->url), std::move(shared->schema), std::move(shared->rule),
                shared->connect};
}

std::string default_user() {
  const char* u = std::getenv("USER");
  return u != nullptr && *u != '\0' ? u : "limitscope-cli";
}

// Exit code and message for a failed Redis operation: 2 when our input was refused, else 1.
int redis_failure(std::string_view command, const redis::RedisError& e) {
  std::cerr << "limitscope-cli " << command << ": " << e.message << "\n";
  return e.kind == redis::ErrorKind::usage ? 2 : 1;
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

std::vector<OptionSpec> config_limit_specs() {
  return {{"algorithm", "A", "token-bucket, gcra, sliding-log, sliding-counter, fixed-window"},
          {"capacity", "N", "bucket size, cost units (bucket algorithms)"},
          {"refill", "RATE", "refill rate with a unit, e.g. 10/s (bucket algorithms)"},
          {"limit", "N", "cost units per window (window algorithms)"},
          {"window", "D", "window length, e.g. 1m (window algorithms)"},
          {"composite-limit", "NAME:ALG:k=v:...", "one limit of a composite rule (repeat)", true}};
}

std::vector<OptionSpec> with_change_specs(std::vector<OptionSpec> specs,
                                          const std::string& expect_help) {
  specs.push_back({"reason", "TEXT", "why (kept in the audit stream)"});
  specs.push_back({"by", "WHO", "who (default $USER)"});
  specs.push_back({"expect-version", "N", expect_help});
  return specs;
}

Expected<RuleConfig> config_from_limit_options(const Args& a) {
  RuleConfig config;
  const auto subs = a.all("composite-limit");
  if (!subs.empty()) {
    for (const char* o : {"algorithm", "capacity", "refill", "limit", "window"}) {
      if (a.has(o))
        return make_error(std::string("--") + o + " and --composite-limit exclude each other");
    }
    for (const auto& s : subs) {
      auto l = parse_sub_limit(s);
      if (!l) return make_error(l.error());
      config.limits.push_back(*l);
    }
  } else {
    const auto alg = a.get("algorithm");
    if (!alg) return make_error("--algorithm (or --composite-limit) is required");
    std::map<std::string, std::string> v;
    for (const char* o : {"capacity", "refill", "limit", "window"}) {
      if (auto x = a.get(o)) v[o] = *x;
    }
    auto p = make_limit(*alg, v, "--");
    if (!p) return make_error(p.error());
    const bool window = is_window_algorithm(p->algorithm);
    const std::vector<std::string> other = window ? std::vector<std::string>{"capacity", "refill"}
                                                  : std::vector<std::string>{"limit", "window"};
    for (const std::string& o : other) {
      if (a.has(o))
        return make_error("--" + o + " does not apply to " + std::string(to_string(p->algorithm)));
    }
    config = redis::single_limit(*p);
  }
  if (Status e = redis::check_for_redis(config); !e.ok()) return make_error(e.error());
  return config;
}

}  // namespace limitscope::cli
