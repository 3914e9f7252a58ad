#pragma once
// The dashboard's controller of a staged rollout (issue 19 item 3), Qt-free: it reads one
// rule's rollout from Redis and starts, pauses, resumes and aborts it through the same core
// calls as `limitscope-cli rollout` (core/redis/rollout_controller.h: compare-and-set on the
// state's seq, every change audited), and can drive it one check at a time as `rollout resume`
// does. Every call blocks on Redis (and, for a check, on the guard's source): the dashboard
// calls it on a worker thread. What it returns is a view: the state plus the texts the panel
// shows and which actions make sense, so widgets only bind.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/probe/rollout_guard.h"
#include "core/redis/endpoint.h"
#include "core/redis/key_schema.h"
#include "core/redis/rollout.h"

namespace limitscope::probe {

struct RolloutView {
  std::string rule;
  std::optional<redis::RolloutState> state;  ///< nullopt: the rule never had a rollout
  std::vector<redis::RolloutEvent> history;  ///< newest first
  std::int64_t now_ms = 0;                   ///< Redis TIME when read
  std::string shadow;  ///< the rule's shadow config ("v3: token-bucket 10 …"), "" when none

  // What the panel shows, one text per field.
  std::string state_text;        ///< "running", "paused", "no rollout", …
  std::string step_text;         ///< "2 of 4 (1%, 10%, 50%, 100%)"
  std::string share_text;        ///< "10% of the keys"
  std::string hold_text;         ///< "3m 12s left of 5m" / "frozen: 3m 12s left of 5m"
  std::string guard_text;        ///< "sum(…) > 0 on http://…/metrics"
  std::string guard_value_text;  ///< "0 (quiet)", "0.25 (tripped)", "no sample"
  std::string started_by;
  std::string reason;  ///< of the latest change
  /// The audit stream, newest first: "#4 pause by bob, 12s ago: 10% of the keys; paused by …"
  std::vector<std::string> history_lines;

  bool can_start = false;  ///< a shadow and no active rollout
  bool can_pause = false;
  bool can_resume = false;
  bool can_abort = false;
};

/// What `rollout start` takes, as the dashboard's form gives it.
struct RolloutPlan {
  std::string steps = "1,10,50,100";  ///< percent, parse_rollout_steps()
  std::string hold = "5m";            ///< a duration, parse_duration()
  std::string guard;                  ///< PromQL
  std::string source;                 ///< a /metrics URL or "prometheus=URL"
};

/// Fills the texts and flags of `v` from its state (exposed for tests of the wording).
void describe_rollout(RolloutView& v);

class RolloutConsole {
 public:
  /// @param redis_url redis:// or redis+cluster:// (its password, if any, is never shown)
  /// @return the console, or an error naming what does not parse
  static Expected<std::unique_ptr<RolloutConsole>> make(const std::string& redis_url,
                                                        const std::string& rule,
                                                        const std::string& prefix, Clock& clock);

  redis::Result<RolloutView> read();
  /// Starts a rollout of the rule's shadow (not driven: drive() or `rollout resume` does).
  /// The plan is checked as the CLI checks it, and its guard evaluated once.
  redis::Result<RolloutView> start(const RolloutPlan& plan, const std::string& by);
  redis::Result<RolloutView> pause(const std::string& by, const std::string& reason);
  redis::Result<RolloutView> resume(const std::string& by);
  redis::Result<RolloutView> abort(const std::string& by, const std::string& reason);
  /// One controller check (rollout_tick): the guard is evaluated once, steps after the hold,
  /// trips, completes. A change by another writer meanwhile is not an error: the view shows it.
  redis::Result<RolloutView> drive(const std::string& by);

  const std::string& rule() const { return rule_; }

 private:
  RolloutConsole(redis::RedisUrl url, const redis::ConnectOptions& connect, std::string rule,
                 redis::KeySchema schema, Clock& clock);
  redis::Result<std::int64_t> server_ms(redis::Connection& c);
  redis::Result<RolloutView> view(redis::Connection& c);

  redis::Endpoint endpoint_;
  std::string rule_;
  redis::KeySchema schema_;
  std::unique_ptr<RolloutGuard> guard_;  // drive(): kept across checks (rate() needs history)
  std::string guard_of_;                 // the guard and source guard_ was made for
};

}  // namespace limitscope::probe
