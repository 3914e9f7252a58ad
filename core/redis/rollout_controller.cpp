#include "core/redis/rollout_controller.h"

#include "core/common/number_format.h"
#include "core/redis/rule_config.h"
#include "core/redis/shadow_config.h"

namespace limitscope::redis {

namespace {

// Refused because of what Redis holds (exit 1 in the CLI), not because of the caller's input.
RedisError refused(std::string m) {
  return make_redis_error(ErrorKind::reply, std::move(m));
}

std::string value_text(const std::optional<double>& v) {
  return v ? significant_text(*v) : "no sample";
}

}  // namespace

Result<RolloutState> start_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                   RolloutState plan, std::int64_t now_ms, const std::string& by) {
  auto shadow = get_shadow(c, schema, rule);
  if (!shadow) return shadow.error();
  if (!shadow->config)
    return refused("rule " + std::string(rule) + " has no shadow config to roll out (shadow set)");
  if (shadow->config->composite()) {
    return refused("rule " + std::string(rule) +
                   ": a rollout enforces a single-limit shadow; this one is a composite");
  }
  auto current = get_rollout(c, schema, rule);
  if (!current) return current.error();
  if (*current && (*current)->active()) {
    return refused("rule " + std::string(rule) + " already has a rollout " + (*current)->state +
                   " (rollout resume, or rollout abort)");
  }
  if (plan.steps_bp.empty()) return make_redis_error(ErrorKind::usage, "a rollout needs steps");
  plan.state = "running";
  plan.step = 0;
  plan.share_bp = plan.steps_bp.front();
  plan.shadow_version = shadow->version;
  plan.step_started_ms = now_ms;
  plan.guard_value.reset();
  plan.held_ms = 0;
  plan.started_by = by;
  plan.reason = "start: shadow version " + std::to_string(shadow->version) + " (" +
                shadow->config->describe() + ")";
  return write_rollout(c, schema, rule, plan, *current ? (*current)->seq : 0, "start", by);
}

Result<RolloutState> rollout_tick(Connection& c, const KeySchema& schema, std::string_view rule,
                                  const GuardFn& guard, std::int64_t now_ms,
                                  const std::string& by) {
  auto got = get_rollout(c, schema, rule);
  if (!got) return got.error();
  if (!*got) return refused("rule " + std::string(rule) + " has no rollout");
  RolloutState s = **got;
  if (!s.active()) return s;
  const std::int64_t seq = s.seq;
  auto shadow = get_shadow(c, schema, rule);
  if (!shadow) return shadow.error();
  if (!shadow->config || shadow->version != s.shadow_version) {
    s.state = "aborted";
    s.share_bp = 0;
    s.reason = "the shadow changed during the rollout (now version " +
               std::to_string(shadow->version) + ")";
    return write_rollout(c, schema, rule, s, seq, "abort", by);
  }
  const Expected<GuardCheck> g = guard();
  if (g) s.guard_value = g->value;
  if (g && g->tripped) {
    s.state = "rolled_back";
    // The share the guard tripped at, before the rollback sets it to 0.
    s.reason = "guard tripped at " + value_text(static_cast<double>(s.share_bp) / 100.0) +
               "% of the keys: " + s.guard + " = " + value_text(g->value);
    s.share_bp = 0;
    return write_rollout(c, schema, rule, s, seq, "trip", by);
  }
  if (!g || s.state == "paused" || now_ms - s.step_started_ms < s.hold_ms) {
    // Holding: only the guard's value is kept (compare-and-set, no audit entry per check).
    if (g) {
      auto at = write_guard_value(c, schema, rule, g->value, seq);
      if (!at) return at.error();
      s.guard_checked_ms = *at;
    }
    return s;
  }
  if (s.step + 1 < s.steps_bp.size()) {
    ++s.step;
    s.share_bp = s.steps_bp[s.step];
    s.step_started_ms = now_ms;
    s.reason = "step " + std::to_string(s.step + 1) + " of " + std::to_string(s.steps_bp.size()) +
               ": guard " + value_text(g->value);
    return write_rollout(c, schema, rule, s, seq, "step", by);
  }
  // Held at 100%: the shadow becomes the live config (config_set: audited, undoable).
  ChangeInfo change;
  change.by = by;
  change.reason = "rollout of shadow version " + std::to_string(s.shadow_version) + " complete";
  auto live = get_config(c, schema, rule);
  if (!live) return live.error();
  RuleConfig next = *shadow->config;
  if (*live) {
    change.expect_version = (*live)->version;
    // A gateway rule's single limit is named ("requests"): the candidate takes its name.
    if ((*live)->limits.size() == 1 && next.limits.size() == 1)
      next.limits.front().name = (*live)->limits.front().name;
  }
  auto set = set_config(c, schema, rule, next, change);
  if (!set) return set.error();
  s.state = "completed";
  s.share_bp = 0;
  s.reason = change.reason + " (live version " + std::to_string(set->version) + ")";
  auto done = write_rollout(c, schema, rule, s, seq, "complete", by);
  if (!done) return done.error();
  ChangeInfo clear{by, "rolled out as live version " + std::to_string(set->version), std::nullopt};
  auto cleared = clear_shadow(c, schema, rule, clear);
  if (!cleared) return cleared.error();
  return done;
}

namespace {

// The rule's rollout when it is in state `want`, else refused naming the state it is in.
Result<RolloutState> rollout_in(Connection& c, const KeySchema& schema, std::string_view rule,
                                std::string_view want) {
  auto got = get_rollout(c, schema, rule);
  if (!got) return got.error();
  if (!*got) return refused("rule " + std::string(rule) + " has no rollout");
  if ((*got)->state != want) {
    return refused("rule " + std::string(rule) + "'s rollout is " + (*got)->state + ", not " +
                   std::string(want));
  }
  return **got;
}

}  // namespace

Result<RolloutState> pause_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                   std::int64_t now_ms, const std::string& by,
                                   const std::string& reason) {
  auto got = rollout_in(c, schema, rule, "running");
  if (!got) return got.error();
  RolloutState s = *got;
  s.held_ms =
      s.hold_ms - hold_left_ms(s, now_ms);  // while still running: the time since the step began
  s.state = "paused";
  s.reason = (reason.empty() ? std::string("paused") : reason) + " at step " +
             std::to_string(s.step + 1) + " (" +
             value_text(static_cast<double>(s.share_bp) / 100.0) + "% of the keys)";
  return write_rollout(c, schema, rule, s, got->seq, "pause", by);
}

Result<RolloutState> resume_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                    std::int64_t now_ms, const std::string& by) {
  auto got = rollout_in(c, schema, rule, "paused");
  if (!got) return got.error();
  RolloutState s = *got;
  s.state = "running";
  s.step_started_ms = now_ms - s.held_ms;
  s.reason = "resumed at step " + std::to_string(s.step + 1) + ", " +
             std::to_string(hold_left_ms(s, now_ms)) + " ms of its hold left";
  s.held_ms = 0;
  return write_rollout(c, schema, rule, s, got->seq, "resume", by);
}

Result<RolloutState> abort_rollout(Connection& c, const KeySchema& schema, std::string_view rule,
                                   const std::string& by, const std::string& reason) {
  auto got = get_rollout(c, schema, rule);
  if (!got) return got.error();
  if (!*got || !(*got)->active())
    return refused("rule " + std::string(rule) + " has no active rollout");
  RolloutState s = **got;
  const std::int64_t seq = s.seq;
  s.state = "aborted";
  s.share_bp = 0;
  s.reason = reason.empty() ? "aborted" : reason;
  return write_rollout(c, schema, rule, s, seq, "abort", by);
}

}  // namespace limitscope::redis
