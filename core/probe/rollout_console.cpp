#include "core/probe/rollout_console.h"

#include <algorithm>
#include <cstdio>

#include "core/common/number_format.h"
#include "core/limiter/rate.h"
#include "core/redis/client_options.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rollout_controller.h"
#include "core/redis/rule_config.h"
#include "core/redis/shadow_config.h"

namespace limitscope::probe {

namespace {

std::string percent(std::int64_t bp) {
  return significant_text(static_cast<double>(bp) / 100.0) + "%";
}

// "4m 05s", "12s", "850 ms": whole seconds once it is a second or more.
std::string span(std::int64_t ms) {
  if (ms < 1000) return std::to_string(ms) + " ms";
  const std::int64_t s = (ms + 500) / 1000;
  if (s < 60) return std::to_string(s) + "s";
  char buf[48];
  if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%lldm %02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60));
  }
  return buf;
}

redis::RedisError usage(std::string m) {
  return redis::make_redis_error(redis::ErrorKind::usage, std::move(m));
}

}  // namespace

void describe_rollout(RolloutView& v) {
  v.can_start = !v.shadow.empty() && !(v.state && v.state->active());
  v.history_lines.clear();
  for (const redis::RolloutEvent& e : v.history) {
    v.history_lines.push_back("#" + std::to_string(e.seq) + " " + e.action + " by " + e.by + ", " +
                              span(std::max<std::int64_t>(0, v.now_ms - e.at_ms)) +
                              " ago: " + percent(e.share_bp) + " of the keys; " + e.reason);
  }
  if (!v.state) {
    v.state_text = "no rollout";
    v.step_text = v.share_text = v.hold_text = v.guard_text = v.guard_value_text = v.started_by =
        v.reason = "";
    v.can_pause = v.can_resume = v.can_abort = false;
    return;
  }
  const redis::RolloutState& s = *v.state;
  v.state_text = s.state;
  std::string steps;
  for (std::int64_t b : s.steps_bp) steps += (steps.empty() ? "" : ", ") + percent(b);
  v.step_text =
      std::to_string(s.step + 1) + " of " + std::to_string(s.steps_bp.size()) + " (" + steps + ")";
  v.share_text = percent(s.share_bp) + " of the keys";
  const std::int64_t left = redis::hold_left_ms(s, v.now_ms);
  if (!s.active()) {
    v.hold_text = "—";
  } else {
    v.hold_text =
        (s.state == "paused" ? "frozen: " : "") + span(left) + " left of " + span(s.hold_ms);
  }
  std::string source = s.source;
  if (source.starts_with(kPrometheusSource))
    source = "Prometheus " + source.substr(kPrometheusSource.size());
  v.guard_text = s.guard + " on " + source;
  // The last check's value (a rolled-back rollout's is the one that tripped it).
  if (!s.guard_value)
    v.guard_value_text = "no sample (quiet)";
  else
    v.guard_value_text =
        significant_text(*s.guard_value) + (s.state == "rolled_back" ? " (tripped)" : "");
  if (s.active() && s.guard_checked_ms > 0) {
    v.guard_value_text +=
        ", checked " + span(std::max<std::int64_t>(0, v.now_ms - s.guard_checked_ms)) + " ago";
  }
  v.started_by = s.started_by;
  v.reason = s.reason;
  v.can_pause = s.state == "running";
  v.can_resume = s.state == "paused";
  v.can_abort = s.active();
}

RolloutConsole::RolloutConsole(redis::RedisUrl url, const redis::ConnectOptions& connect,
                               std::string rule, redis::KeySchema schema, Clock& clock)
    : endpoint_(std::move(url), redis::EndpointOptions::with(connect), clock),
      rule_(std::move(rule)),
      schema_(std::move(schema)) {}

Expected<std::unique_ptr<RolloutConsole>> RolloutConsole::make(const std::string& redis_url,
                                                               const std::string& rule,
                                                               const std::string& prefix,
                                                               Clock& clock) {
  // The shared Redis options (core/redis/client_options.h): the URL, the prefix checked as the
  // CLI checks it, the one default timeout.
  redis::ClientOptionText given;
  given.url = redis::GivenOption{"Redis URL", redis_url};
  if (!prefix.empty()) given.prefix = redis::GivenOption{"prefix", prefix};
  auto options = redis::parse_client_options(given, nullptr, true);
  if (!options) return make_error(options.error());
  if (Status e = redis::KeySchema::check_rule(rule); !e.ok())
    return make_error("rule: " + e.error());
  return std::unique_ptr<RolloutConsole>(new RolloutConsole(
      std::move(options->url), options->connect, rule, std::move(options->schema), clock));
}

redis::Result<std::int64_t> RolloutConsole::server_ms(redis::Connection& c) {
  auto us = redis::read_server_time_us(c);
  if (!us) return us.error();
  return *us / 1000;
}

redis::Result<RolloutView> RolloutConsole::view(redis::Connection& c) {
  RolloutView v;
  v.rule = rule_;
  auto now = server_ms(c);
  if (!now) return now.error();
  v.now_ms = *now;
  auto s = redis::get_rollout(c, schema_, rule_);
  if (!s) return s.error();
  v.state = *s;
  auto h = redis::rollout_history(c, schema_, rule_, 20);
  if (!h) return h.error();
  v.history = std::move(*h);
  auto shadow = redis::get_shadow(c, schema_, rule_);
  if (!shadow) return shadow.error();
  if (shadow->config)
    v.shadow = "v" + std::to_string(shadow->version) + ": " + shadow->config->describe();
  describe_rollout(v);
  return v;
}

redis::Result<RolloutView> RolloutConsole::read() {
  return endpoint_.on_rule<RolloutView>(schema_, rule_,
                                        [&](redis::Connection& c) { return view(c); });
}

redis::Result<RolloutView> RolloutConsole::start(const RolloutPlan& plan, const std::string& by) {
  auto steps = redis::parse_rollout_steps(plan.steps);
  if (!steps) return usage(steps.error());
  auto hold = parse_duration(plan.hold);
  if (!hold) return usage("hold: " + hold.error());
  auto guard = RolloutGuard::make(plan.guard, plan.source);
  if (!guard) return usage(guard.error());
  redis::RolloutState s;
  s.steps_bp = *steps;
  s.hold_ms = std::chrono::duration_cast<std::chrono::milliseconds>(*hold).count();
  s.guard = plan.guard;
  s.source = plan.source;
  return endpoint_.on_rule<RolloutView>(
      schema_, rule_, [&](redis::Connection& c) -> redis::Result<RolloutView> {
        auto now = server_ms(c);
        if (!now) return now.error();
        // As the CLI: a guard that cannot be evaluated would hold the first step for ever.
        if (const Expected<GuardReading> g = (*guard)->check(*now); !g) {
          return usage("the guard cannot be evaluated: " + g.error());
        }
        auto started = redis::start_rollout(c, schema_, rule_, s, *now, by);
        if (!started) return started.error();
        return view(c);
      });
}

redis::Result<RolloutView> RolloutConsole::pause(const std::string& by, const std::string& reason) {
  return endpoint_.on_rule<RolloutView>(
      schema_, rule_, [&](redis::Connection& c) -> redis::Result<RolloutView> {
        auto now = server_ms(c);
        if (!now) return now.error();
        auto r = redis::pause_rollout(c, schema_, rule_, *now, by, reason);
        if (!r) return r.error();
        return view(c);
      });
}

redis::Result<RolloutView> RolloutConsole::resume(const std::string& by) {
  return endpoint_.on_rule<RolloutView>(
      schema_, rule_, [&](redis::Connection& c) -> redis::Result<RolloutView> {
        auto now = server_ms(c);
        if (!now) return now.error();
        auto r = redis::resume_rollout(c, schema_, rule_, *now, by);
        if (!r) return r.error();
        return view(c);
      });
}

redis::Result<RolloutView> RolloutConsole::abort(const std::string& by, const std::string& reason) {
  return endpoint_.on_rule<RolloutView>(
      schema_, rule_, [&](redis::Connection& c) -> redis::Result<RolloutView> {
        auto r = redis::abort_rollout(c, schema_, rule_, by, reason);
        if (!r) return r.error();
        return view(c);
      });
}

redis::Result<RolloutView> RolloutConsole::drive(const std::string& by) {
  // Once per check, even when the call is retried.
  std::optional<Expected<redis::GuardCheck>> reading;
  return endpoint_.on_rule<RolloutView>(
      schema_, rule_, [&](redis::Connection& c) -> redis::Result<RolloutView> {
        auto s = redis::get_rollout(c, schema_, rule_);
        if (!s) return s.error();
        if (!*s || !(*s)->active()) return view(c);
        if (!guard_ || guard_of_ != (*s)->guard + '\n' + (*s)->source) {
          auto g = RolloutGuard::make((*s)->guard, (*s)->source);
          if (!g) return usage(g.error());
          guard_ = std::move(g).value();
          guard_of_ = (*s)->guard + '\n' + (*s)->source;
        }
        auto now = server_ms(c);
        if (!now) return now.error();
        auto r =
            redis::rollout_tick(c, schema_, rule_, guard_once(*guard_, *now, reading), *now, by);
        if (!r && !redis::is_version_conflict(r.error())) return r.error();
        return view(c);
      });
}

}  // namespace limitscope::probe
