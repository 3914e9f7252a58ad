#pragma once
// The deterministic embedded simulation: a scenario's clients send requests through a
// KeyedLimiter on simulated time. Every request is decided at its exact (nanosecond) time;
// the caller advances the run one step at a time and gets a StepSample per step. Same policy,
// scenario and seed => identical samples (across platforms too, except where two math
// libraries round std::log / std::cos differently in the last bit).

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/limiter/decision.h"
#include "core/limiter/policy.h"
#include "core/sim/scenario.h"
#include "core/sim/step_sample.h"

namespace limitscope {

struct SimulationOptions {
  std::uint64_t seed = 1;
  Nanos step{std::chrono::seconds(1)};  // simulated time per step()
  /// Wall time at the start of the run (the UTC day of daily quotas). Noon UTC by default,
  /// so a run of up to 12 hours never crosses a quota day.
  Nanos wall_epoch{std::chrono::seconds(1'700'006'400 + 43'200)};
  /// Keep every request's outcome (requests()); for tests, traces and replay.
  bool record_requests = false;
};

/// One decided request, kept when SimulationOptions::record_requests is set.
struct RequestRecord {
  Nanos time{0};                 // simulated time of the attempt
  std::uint64_t request_id = 0;  // the same for a request and its retries
  int attempt = 0;               // 0 = first try, k = k-th retry
  std::size_t client = 0;        // index into scenario().clients
  std::string_view api_key;      // views into the Simulation, valid while it lives
  std::string_view model;
  bool allowed = false;
  bool degraded = false;             // admitted without limiting (backend outage, fail-open)
  std::optional<Nanos> retry_after;  // of a 429; nullopt = can never succeed
  double cost = 0;                   // cost units
  std::int64_t llm_tokens = 0;
  double spend = 0;       // dollars, 0 when rejected
  std::string_view tier;  // the key's tier (a view, like api_key)
  DenyReason reason = DenyReason::none;
  double remaining = 0;  // left after the decision, of `limit` for a 429 (0 when degraded)
  /// The limit that refused a 429: "requests", or "llm_tokens" (the tier's token limit, whose
  /// bucket is kept per key and model as the gateway keeps it); empty when allowed.
  std::string_view limit;
  double limit_cost = 0;  // a 429: what it asked of `limit` (cost units, or its LLM tokens)
};

class Simulation {
 public:
  /// Builds a run. Scenario keys the policy does not list join its copy of the policy with
  /// their declared tier (when that tier exists), so a scenario runs under any policy; keys
  /// the policy lists keep the policy's tier.
  /// @return the simulation, or an error naming the invalid client, an unknown model or tier.
  static Expected<std::unique_ptr<Simulation>> create(const Policy& policy, ScenarioSpec scenario,
                                                      const SimulationOptions& options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Advances by options().step, deciding every request in [now, now + step).
  StepSample step();
  /// Advances by an arbitrary d > 0 (a shorter last step, or the dashboard's own pace).
  StepSample advance(Nanos d);

  /// Adds an incident to the running simulation; thread-safe. It takes effect at the start of
  /// the next step, or at incident.at if that is later.
  /// @return an error naming an unknown model, a tier the policy lacks (when it has no
  ///         default tier), an empty key or a bad rate; else empty.
  Status inject(const Incident& incident);

  /// Simulated time since the run began.
  Nanos now() const;
  const Clock& clock() const;
  const SimulationOptions& options() const { return options_; }

  // Everything below except inject() belongs to the thread that calls step()/advance().

  /// The scenario as running: its clients, plus clients added by incidents so far.
  const ScenarioSpec& scenario() const { return scenario_; }
  /// The policy in force: the given one plus the scenario's keys.
  const Policy& policy() const { return policy_; }
  /// Requests decided so far (only with record_requests).
  const std::vector<RequestRecord>& requests() const { return requests_; }
  /// Moves out the requests decided since the last call (only with record_requests); a
  /// caller that drains them after every step keeps the simulation's memory bounded.
  std::vector<RequestRecord> take_requests() { return std::exchange(requests_, {}); }

 private:
  struct State;
  struct Event;
  Simulation(Policy policy, ScenarioSpec scenario, const SimulationOptions& options,
             std::unique_ptr<State> state);
  Status add_client(ClientSpec client);
  Status incident_error(const Incident& incident) const;
  void apply_incident(Incident incident, bool add_clients);
  void schedule_arrival(std::uint32_t client, Nanos from);
  void process_until(Nanos end);
  void decide(const Event& e, Nanos t);
  void schedule_retry(const Event& e, Nanos t, std::optional<Nanos> retry_after);
  StepSample take_sample(Nanos start, Nanos end);

  SimulationOptions options_;
  Policy policy_;
  ScenarioSpec scenario_;
  std::vector<RequestRecord> requests_;
  std::unique_ptr<State> state_;
  std::mutex pending_mu_;
  std::vector<Incident> pending_;  // injected, not yet applied (guarded by pending_mu_)
};

}  // namespace limitscope
