// limitscope-cli rollout start|status|pause|resume|abort: a staged rollout of a rule's shadow
// config (issue 19 item 3; core/redis/rollout.h). `start` enforces the shadow for the first
// step's share of the keys and, unless --detach, drives the rollout as `resume` does: at every
// check the guard (a PromQL expression on a gateway's /metrics, or evaluated by a Prometheus
// server) is evaluated; when it returns a sample every key goes back to the live config at
// once (audited, with the value); otherwise each step holds --hold, then the next share, and
// after 100% the shadow becomes the live config. `pause` holds the step (the guard still watches);
// `resume` continues it with the rest of its hold. The state is in Redis: a controller stopped in
// between is replaced by `resume`. Exit 0 completed (or, for status/abort/--detach, done), 1 rolled
// back, aborted or refused by what Redis holds, 2 bad usage.

#include "app/cli/cmd_rollout.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/config_options.h"
#include "app/cli/json_output.h"
#include "app/cli/subcommands.h"
#include "app/options/args.h"
#include "core/common/clock.h"
#include "core/limiter/rate.h"
#include "core/probe/rollout_guard.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rollout_controller.h"

namespace limitscope::cli {

namespace {

using nlohmann::json;
using redis::RolloutState;

constexpr std::string_view kSummary = "a staged rollout of a rule's shadow config, with a guard";

json state_json(const std::string& rule, const RolloutState& s,
                const std::vector<redis::RolloutEvent>& history, std::int64_t now_ms) {
  json steps = json::array();
  for (auto b : s.steps_bp) steps.push_back(static_cast<double>(b) / 100.0);
  json events = json::array();
  for (const auto& e : history) {
    events.push_back({{"seq", e.seq},
                      {"action", e.action},
                      {"by", e.by},
                      {"at_ms", e.at_ms},
                      {"reason", e.reason},
                      {"state", e.state},
                      {"share_percent", static_cast<double>(e.share_bp) / 100.0},
                      {"guard_value", json_or_null(e.guard_value)}});
  }
  return {{"rule", rule},
          {"state", s.state},
          {"step", s.step + 1},
          {"steps_percent", steps},
          {"share_percent", static_cast<double>(s.share_bp) / 100.0},
          {"hold_ms", s.hold_ms},
          {"hold_left_ms", redis::hold_left_ms(s, now_ms)},
          {"started_by", s.started_by},
          {"guard", s.guard},
          {"guard_value", json_or_null(s.guard_value)},
          {"source", s.source},
          {"shadow_version", s.shadow_version},
          {"reason", s.reason},
          {"seq", s.seq},
          {"history", events}};
}

void print_state(const std::string& rule, const RolloutState& s, std::int64_t now_ms) {
  std::cout << "rule " << rule << " rollout " << s.state << ": step " << s.step + 1 << " of "
            << s.steps_bp.size() << ", share " << static_cast<double>(s.share_bp) / 100.0
            << "%, hold left " << redis::hold_left_ms(s, now_ms) << " ms, shadow version "
            << s.shadow_version << ", started by " << s.started_by << "\n  guard " << s.guard
            << " on " << s.source << ": last value "
            << (s.guard_value ? std::to_string(*s.guard_value) : std::string("(no sample)"))
            << "\n  " << s.reason << "\n";
}

int finish(const Args& a, const std::string& rule, const RolloutState& s,
           const std::vector<redis::RolloutEvent>& h, std::int64_t now_ms) {
  if (a.has("json")) {
    std::cout << json_text(state_json(rule, s, h, now_ms)) << "\n";
  } else {
    print_state(rule, s, now_ms);
  }
  return s.state == "rolled_back" || s.state == "aborted" ? 1 : 0;
}

redis::Result<std::int64_t> server_ms(redis::Connection& c) {
  auto us = redis::read_server_time_us(c);
  if (!us) return us.error();
  return *us / 1000;
}

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::instance().wall())
      .count();
}

// Drives the rollout until it is no longer active: a check every hold/5 (100 ms to 5 s).
int drive(const Args& a, const std::string& command, const Target& t, const std::string& by) {
  SteadyClock& clock = SteadyClock::instance();
  // One endpoint for the whole drive: every tick reuses its connection (on a cluster, its
  // slot map) instead of connecting again.
  redis::Endpoint endpoint(t.url, redis::EndpointOptions::with(t.connect), clock);
  auto first = endpoint.on_rule<std::optional<RolloutState>>(
      t.schema, t.rule,
      [&](redis::Connection& c) { return redis::get_rollout(c, t.schema, t.rule); });
  if (!first) return redis_failure(command, first.error());
  if (!*first)
    return redis_failure(command, redis::make_redis_error(redis::ErrorKind::reply,
                                                          "rule " + t.rule + " has no rollout"));
  auto guard = probe::RolloutGuard::make((*first)->guard, (*first)->source);
  if (!guard) return usage_error(command, guard.error());
  const auto every =
      std::chrono::milliseconds(std::clamp<std::int64_t>((*first)->hold_ms / 5, 100, 5000));
  RolloutState s = **first;
  CancelToken never;
  while (s.active()) {
    // The guard is read once per tick, even when the endpoint runs the tick again.
    std::optional<Expected<redis::GuardCheck>> reading;
    auto next = endpoint.on_rule<RolloutState>(
        t.schema, t.rule, [&](redis::Connection& c) -> redis::Result<RolloutState> {
          auto now = server_ms(c);
          if (!now) return now.error();
          return redis::rollout_tick(c, t.schema, t.rule, probe::guard_once(**guard, *now, reading),
                                     *now, by);
        });
    if (!next && redis::is_version_conflict(next.error())) {
      // Another writer (a pause, an abort, another controller) moved the rollout between this
      // tick's read and its write: the next tick reads what it wrote.
      clock.wait_until(clock.now() + every, never);
      continue;
    }
    if (!next) return redis_failure(command, next.error());
    s = *next;
    if (s.active()) clock.wait_until(clock.now() + every, never);
  }
  auto h = endpoint.on_rule<std::vector<redis::RolloutEvent>>(
      t.schema, t.rule,
      [&](redis::Connection& c) { return redis::rollout_history(c, t.schema, t.rule, 50); });
  return finish(a, t.rule, s, h ? *h : std::vector<redis::RolloutEvent>{}, 0);
}

std::vector<OptionSpec> by_specs(std::vector<OptionSpec> more) {
  more.push_back({"by", "WHO", "who (default $USER)"});
  return with(std::move(more));
}

std::string by_of(const Args& a) {
  return a.get("by").value_or(default_user());
}

int run_start(const CommandArgs& argv) {
  const std::string command = "rollout start";
  const Expected<Args> command_line = Args::parse(
      command, kSummary,
      by_specs({{"steps", "LIST",
                 "shares of the keys in percent, increasing, ending at 100 (e.g. 1,10,50,100)"},
                {"hold", "D", "how long each step holds before the next (default 5m)"},
                {"guard", "EXPR",
                 "PromQL over the gateway's metrics; a sample trips the guard and rolls back"},
                {"metrics", "URL",
                 "a gateway's /metrics: the guard is evaluated on its scrapes by limitscope"},
                {"prometheus", "URL",
                 "a Prometheus server: the guard is evaluated by it (/api/v1/query)"},
                {"reason", "TEXT", "why (audited)"},
                {"detach", "", "start and return; `rollout resume` drives it"}}),
      argv);
  auto t = target_or_exit(command_line, command);
  if (!t) return t.error().code;
  const Args& a = *command_line;
  const auto steps_opt = a.get("steps");
  const auto guard_opt = a.get("guard");
  const auto metrics_opt = a.get("metrics");
  const auto prometheus_opt = a.get("prometheus");
  if (!steps_opt || !guard_opt || metrics_opt.has_value() == prometheus_opt.has_value()) {
    return usage_error(command,
                       "--steps, --guard and one of --metrics or --prometheus are required");
  }
  const std::string source =
      metrics_opt ? *metrics_opt : std::string(probe::kPrometheusSource) + *prometheus_opt;
  auto steps = redis::parse_rollout_steps(*steps_opt);
  if (!steps) return usage_error(command, "--" + steps.error());
  auto hold = parse_duration(a.get("hold").value_or("5m"));
  if (!hold) return usage_error(command, "--hold: " + hold.error());
  auto guard = probe::RolloutGuard::make(*guard_opt, source);
  if (!guard) return usage_error(command, guard.error());
  // Checked once before anything is enforced: a guard that cannot be evaluated (the source
  // down, an expression Prometheus refuses) would hold the first step for ever.
  if (const Expected<probe::GuardReading> g = (*guard)->check(wall_ms()); !g) {
    return usage_error(command, "the guard cannot be evaluated: " + g.error());
  }
  RolloutState plan;
  plan.steps_bp = *steps;
  plan.hold_ms = std::chrono::duration_cast<std::chrono::milliseconds>(*hold).count();
  plan.guard = *guard_opt;
  plan.source = source;
  const std::string by = by_of(a);
  auto started =
      on_rule<RolloutState>(*t, [&](redis::Connection& c) -> redis::Result<RolloutState> {
        auto now = server_ms(c);
        if (!now) return now.error();
        return redis::start_rollout(c, t->schema, t->rule, plan, *now, by);
      });
  if (!started) return redis_failure(command, started.error());
  if (a.has("detach")) return finish(a, t->rule, *started, {}, started->step_started_ms);
  return drive(a, command, *t, by);
}

int run_resume(const CommandArgs& argv) {
  const std::string command = "rollout resume";
  const Expected<Args> command_line = Args::parse(command, kSummary, by_specs({}), argv);
  auto t = target_or_exit(command_line, command);
  if (!t) return t.error().code;
  const Args& a = *command_line;
  const std::string by = by_of(a);
  // A paused rollout continues from its step, with the rest of that step's hold; a running one
  // (its controller stopped) is driven as it is.
  auto resumed = on_rule<bool>(*t, [&](redis::Connection& c) -> redis::Result<bool> {
    auto s = redis::get_rollout(c, t->schema, t->rule);
    if (!s) return s.error();
    if (!*s || (*s)->state != "paused") return false;
    auto now = server_ms(c);
    if (!now) return now.error();
    auto r = redis::resume_rollout(c, t->schema, t->rule, *now, by);
    if (!r) return r.error();
    return true;
  });
  if (!resumed) return redis_failure(command, resumed.error());
  return drive(a, command, *t, by);
}

int run_pause(const CommandArgs& argv) {
  const std::string command = "rollout pause";
  const Expected<Args> command_line =
      Args::parse(command, kSummary, by_specs({{"reason", "TEXT", "why (audited)"}}), argv);
  auto t = target_or_exit(command_line, command);
  if (!t) return t.error().code;
  const Args& a = *command_line;
  std::int64_t now_ms = 0;
  auto r = on_rule<RolloutState>(*t, [&](redis::Connection& c) -> redis::Result<RolloutState> {
    auto now = server_ms(c);
    if (!now) return now.error();
    now_ms = *now;
    return redis::pause_rollout(c, t->schema, t->rule, *now, by_of(a),
                                a.get("reason").value_or("paused by the operator"));
  });
  if (!r) return redis_failure(command, r.error());
  finish(a, t->rule, *r, {}, now_ms);
  return 0;
}

int run_status(const CommandArgs& argv) {
  const std::string command = "rollout status";
  const Expected<Args> command_line = Args::parse(command, kSummary, common_specs(), argv);
  auto t = target_or_exit(command_line, command);
  if (!t) return t.error().code;
  const Args& a = *command_line;
  struct Read {
    std::optional<RolloutState> s;
    std::vector<redis::RolloutEvent> h;
    std::int64_t now_ms = 0;
  };
  auto r = on_rule<Read>(*t, [&](redis::Connection& c) -> redis::Result<Read> {
    auto now = server_ms(c);
    if (!now) return now.error();
    auto s = redis::get_rollout(c, t->schema, t->rule);
    if (!s) return s.error();
    auto h = redis::rollout_history(c, t->schema, t->rule, 50);
    if (!h) return h.error();
    return Read{*s, *h, *now};
  });
  if (!r) return redis_failure(command, r.error());
  if (!r->s) {
    std::cerr << command << ": rule " << t->rule << " has no rollout\n";
    return 1;
  }
  finish(a, t->rule, *r->s, r->h, r->now_ms);
  return 0;
}

int run_abort(const CommandArgs& argv) {
  const std::string command = "rollout abort";
  const Expected<Args> command_line =
      Args::parse(command, kSummary, by_specs({{"reason", "TEXT", "why (audited)"}}), argv);
  auto t = target_or_exit(command_line, command);
  if (!t) return t.error().code;
  const Args& a = *command_line;
  auto r = on_rule<RolloutState>(*t, [&](redis::Connection& c) {
    return redis::abort_rollout(c, t->schema, t->rule, by_of(a),
                                a.get("reason").value_or("aborted by the operator"));
  });
  if (!r) return redis_failure(command, r.error());
  finish(a, t->rule, *r, {}, 0);
  return 0;
}

}  // namespace

int run_rollout(const CommandArgs& args) {
  static constexpr Subcommand kSubjects[] = {
      {"start", "enforce the shadow for a growing share of keys, with a guard", run_start},
      {"status", "the rollout's state, share, guard value and history", run_status},
      {"pause", "hold the current step (the share stays, the guard still watches)", run_pause},
      {"resume", "continue a paused rollout, or drive one whose controller stopped", run_resume},
      {"abort", "every key back to the live config at once (audited)", run_abort},
  };
  return run_subcommand("rollout",
                        "the state lives in Redis: `resume` continues a rollout from any host",
                        kSubjects, args);
}

}  // namespace limitscope::cli
