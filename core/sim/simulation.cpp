#include "core/sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <queue>
#include <utility>

#include "core/limiter/keyed_limiter.h"
#include "core/limiter/token_bucket.h"
#include "core/sim/arrivals.h"
#include "core/sim/sim_random.h"

namespace limitscope {
namespace {

// Per (api key, model) counters of the current step.
struct Row {
  std::size_t key = 0;                  // index into State::keys
  std::size_t model = 0;                // index into policy.models
  std::optional<std::uint64_t> key_id;  // the limiter's state id, after its first decision
  /// The tier's llm_tokens bucket of this (key, model), as the gateway keeps one; created at
  /// the first decision under a tier that limits tokens.
  std::optional<TokenBucket::State> tokens;
  std::int64_t admitted = 0, rejected = 0, degraded = 0, retries = 0, llm_tokens = 0;
  double cost = 0, spend = 0;
};

struct KeyInfo {
  std::string api_key;
  std::size_t tier = 0;   // index into policy.tiers
  double used_today = 0;  // cost units admitted by the limiter this UTC day
  std::int64_t day = 0;   // UTC day number of used_today
};

struct ClientRun {
  ClientArrivals arrivals;        // the client's arrival model and random stream
  std::vector<std::size_t> rows;  // per model share: index into State::rows
};

struct Window {
  Nanos start{0};
  std::optional<Nanos> end;
  std::string description;

  bool contains(Nanos t) const { return t >= start && (!end || t < *end); }
  bool overlaps(Nanos a, Nanos b) const { return start < b && (!end || *end > a); }
};

}  // namespace

// A pending request attempt (attempt >= 0) or the next candidate arrival of a client's
// Poisson process (attempt < 0). Ordered by time, then by creation, so ties are deterministic.
struct Simulation::Event {
  std::int64_t time = 0;  // ns of simulated time
  std::uint64_t seq = 0;
  std::uint32_t client = 0;
  std::int32_t attempt = -1;
  std::uint32_t share = 0;  // index into the client's models
  std::int64_t llm_tokens = 0;
  std::uint64_t request_id = 0;
};

struct Simulation::State {
  // Earliest event first; ties in creation order.
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };

  State(std::unique_ptr<KeyedLimiter> keyed, Nanos wall_epoch)
      : clock(Nanos{0}, wall_epoch), limiter(std::move(keyed)) {}

  // One thread decides everything, and a run holds few keys.
  static KeyedLimiterOptions limiter_options() {
    KeyedLimiterOptions o;
    o.shards = 1;
    return o;
  }

  ManualClock clock;
  std::unique_ptr<KeyedLimiter> limiter;
  std::priority_queue<Event, std::vector<Event>, Later> events;
  std::uint64_t next_seq = 0;
  std::uint64_t next_request = 0;
  std::vector<ClientRun> clients;
  std::deque<KeyInfo> keys;  // a deque: RequestRecord::api_key views must not move
  std::map<std::string, std::size_t, std::less<>> key_index;
  std::vector<Row> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> row_index;  // sorted (key, model)
  std::vector<Window> outages;
  std::vector<Window> incidents;  // every applied incident, for StepSample::incidents
  std::int64_t gave_up = 0;       // this step

  void push(Event e) {
    e.seq = next_seq++;
    events.push(e);
  }
};

Simulation::Simulation(Policy policy, ScenarioSpec scenario, const SimulationOptions& options,
                       std::unique_ptr<State> state)
    : options_(options),
      policy_(std::move(policy)),
      scenario_(std::move(scenario)),
      state_(std::move(state)) {}

Simulation::~Simulation() = default;

Expected<std::unique_ptr<Simulation>> Simulation::create(const Policy& policy,
                                                         ScenarioSpec scenario,
                                                         const SimulationOptions& options) {
  if (options.step.count() <= 0) return make_error("simulation step must be > 0");
  if (policy.tiers.empty()) return make_error(policy.source + ": policy has no tiers");
  // Scenario keys join the policy before the limiter is built from it (add_client would do
  // it too, at the price of a live policy update per key).
  Policy effective = policy;
  std::vector<ClientSpec> clients = std::move(scenario.clients);
  for (const Incident& i : scenario.incidents) {
    for (ClientSpec& c : incident_clients(i)) clients.push_back(std::move(c));
  }
  for (const ClientSpec& c : clients) {
    if (effective.keys.contains(c.api_key)) continue;
    if (auto tier = effective.tier_index(c.tier)) effective.keys.emplace(c.api_key, *tier);
  }
  std::vector<Incident> scheduled = std::move(scenario.incidents);
  scenario.clients.clear();
  scenario.incidents.clear();
  const std::string name = scenario.name;
  auto limiter = KeyedLimiter::create(effective, State::limiter_options());
  if (!limiter) return make_error(limiter.error());
  auto state = std::make_unique<State>(std::move(*limiter), options.wall_epoch);
  std::unique_ptr<Simulation> sim(
      new Simulation(std::move(effective), std::move(scenario), options, std::move(state)));
  for (Incident& i : scheduled) {
    if (Status err = sim->incident_error(i); !err.ok())
      return make_error("scenario \"" + name + "\": " + err.error());
    // Its clients are in `clients` already; only the outage window and the listing remain.
    sim->apply_incident(std::move(i), false);
  }
  for (ClientSpec& c : clients) {
    if (Status err = sim->add_client(std::move(c)); !err.ok()) {
      return make_error("scenario \"" + name + "\": " + err.error());
    }
  }
  return sim;
}

Status Simulation::add_client(ClientSpec client) {
  State& s = *state_;
  if (Status valid = validate(client); !valid.ok()) return valid;
  auto [kit, key_is_new] = s.key_index.try_emplace(client.api_key, s.keys.size());
  if (key_is_new) {
    KeyInfo info;
    info.api_key = client.api_key;
    if (!policy_.keys.contains(client.api_key)) {
      // A key injected at runtime: it joins the policy like the scenario's keys did.
      if (auto tier = policy_.tier_index(client.tier)) {
        policy_.keys.emplace(client.api_key, *tier);
        if (Status set = s.limiter->set_policy(policy_, now()); !set.ok()) return set;
      }
    }
    const auto tier = policy_.tier_index_for_key(client.api_key);
    if (!tier)
      return make_error("client \"" + client.api_key + "\": the policy refuses unknown keys");
    info.tier = *tier;
    s.keys.push_back(std::move(info));
  }
  ClientRun run{ClientArrivals(client, derive_seed(options_.seed, s.clients.size())), {}};
  for (const ModelShare& m : client.models) {
    const auto model = policy_.model_index(m.model);
    if (!model) {
      return make_error("client \"" + client.api_key + "\": model \"" + m.model +
                        "\" is not in the policy " + policy_.source);
    }
    auto [rit, row_is_new] =
        s.row_index.try_emplace(std::make_pair(client.api_key, m.model), s.rows.size());
    if (row_is_new) s.rows.push_back(Row{kit->second, *model, std::nullopt, std::nullopt});
    run.rows.push_back(rit->second);
  }
  const auto index = static_cast<std::uint32_t>(s.clients.size());
  s.clients.push_back(std::move(run));
  scenario_.clients.push_back(std::move(client));
  schedule_arrival(index, std::max(now(), scenario_.clients.back().traffic.start));
  return {};
}

void Simulation::schedule_arrival(std::uint32_t client, Nanos from) {
  State& s = *state_;
  const auto next = s.clients[client].arrivals.next_candidate(scenario_.clients[client], from);
  if (!next) return;
  Event e;
  e.time = next->count();
  e.client = client;
  s.push(e);
}

Status Simulation::incident_error(const Incident& incident) const {
  // Reads only what never changes after create() (models, tiers, default tier), so inject()
  // may call it from another thread while a step runs.
  const std::string what = "incident " + std::string(to_string(incident.kind));
  if (incident.kind == IncidentKind::backend_outage) return {};
  if (incident.api_key.empty()) return make_error(what + ": empty api key");
  if (!policy_.model_index(incident.model)) {
    return make_error(what + ": model \"" + incident.model + "\" is not in the policy " +
                      policy_.source);
  }
  if (!policy_.tier_index(incident.tier) && !policy_.default_tier) {
    return make_error(what + ": tier \"" + incident.tier + "\" is not in the policy " +
                      policy_.source + ", which has no default tier");
  }
  if (!std::isfinite(incident.rate_per_s) || incident.rate_per_s < 0) {
    return make_error(what + ": rate must be a finite number >= 0");
  }
  return {};
}

void Simulation::apply_incident(Incident incident, bool add_clients) {
  State& s = *state_;
  if (incident.at < now()) incident.at = now();
  Window w{incident.at, std::nullopt, incident.describe()};
  if (incident.length.count() > 0) w.end = incident.at + incident.length;
  if (incident.kind == IncidentKind::backend_outage) s.outages.push_back(w);
  if (add_clients) {
    // incident_error() passed, so the clients are valid and their key has a tier.
    for (ClientSpec& c : incident_clients(incident)) (void)add_client(std::move(c));
  }
  s.incidents.push_back(std::move(w));
  scenario_.incidents.push_back(std::move(incident));
}

Status Simulation::inject(const Incident& incident) {
  if (Status valid = incident_error(incident); !valid.ok()) return valid;
  std::lock_guard lock(pending_mu_);
  pending_.push_back(incident);
  return {};
}

Nanos Simulation::now() const {
  return state_->clock.now();
}

const Clock& Simulation::clock() const {
  return state_->clock;
}

StepSample Simulation::step() {
  return advance(options_.step);
}

StepSample Simulation::advance(Nanos d) {
  std::vector<Incident> pending;
  {
    std::lock_guard lock(pending_mu_);
    pending.swap(pending_);
  }
  for (Incident& i : pending) apply_incident(std::move(i), true);
  const Nanos start = now();
  const Nanos end = start + std::max(d, Nanos{1});
  process_until(end);
  state_->clock.set(end);
  return take_sample(start, end);
}

void Simulation::process_until(Nanos end) {
  State& s = *state_;
  while (!s.events.empty() && s.events.top().time < end.count()) {
    Event e = s.events.top();
    s.events.pop();
    const Nanos t{e.time};
    s.clock.set(t);
    if (e.attempt < 0) {
      // A candidate arrival: plan the next one, then thin this one (core/sim/arrivals.h).
      schedule_arrival(e.client, t);
      const auto arrival = s.clients[e.client].arrivals.arrival_at(scenario_.clients[e.client], t);
      if (!arrival) continue;
      e.share = arrival->share;
      e.llm_tokens = arrival->llm_tokens;
      e.request_id = s.next_request++;
      e.attempt = 0;
    }
    decide(e, t);
  }
}

void Simulation::decide(const Event& e, Nanos t) {
  State& s = *state_;
  ClientRun& run = s.clients[e.client];
  Row& row = s.rows[run.rows[e.share]];
  KeyInfo& key = s.keys[row.key];
  const ModelPolicy& model = policy_.models[row.model];

  bool degraded = false;
  for (const Window& w : s.outages) degraded = degraded || w.contains(t);
  bool allowed = true;
  std::optional<Nanos> retry_after;
  DenyReason reason = DenyReason::none;
  double remaining = 0;
  std::string_view refused_by;
  double refused_cost = model.cost;
  if (!degraded) {
    // The tier's two limits as the gateway composes them (InProcessAdmission): both are
    // peeked, both consume only when both admit; a 429 names the limit that refused it, the
    // requests limit first.
    const std::optional<LimitParams>& token_limit = policy_.tiers[key.tier].llm_tokens;
    const auto tokens = static_cast<double>(e.llm_tokens);
    std::optional<Decision> token_peek;
    if (token_limit) {
      if (!row.tokens) row.tokens = TokenBucket::fresh(*token_limit, t);
      token_peek = TokenBucket::peek(*token_limit, *row.tokens, t, tokens);
    }
    KeyedDecision d = token_peek ? s.limiter->peek(key.api_key, model.name, t)
                                 : s.limiter->decide(key.api_key, model.name, t);
    if (token_peek && d.decision.allowed && token_peek->allowed) {
      d = s.limiter->decide(key.api_key, model.name, t);
      if (d.decision.allowed) TokenBucket::decide(*token_limit, *row.tokens, t, tokens);
    }
    row.key_id = d.key_id;
    Decision shown = d.decision;
    if (d.decision.allowed && token_peek && !token_peek->allowed) {
      shown = *token_peek;
      refused_by = "llm_tokens";
      refused_cost = tokens;
    } else if (!d.decision.allowed) {
      refused_by = "requests";
    }
    allowed = d.decision.allowed && (!token_peek || token_peek->allowed);
    retry_after = shown.retry_after;
    reason = shown.reason;
    remaining = shown.remaining;
  }

  if (e.attempt > 0) ++row.retries;
  double spend = 0;
  if (allowed) {
    spend = static_cast<double>(e.llm_tokens) * model.price_per_million_tokens / 1e6;
    ++row.admitted;
    row.cost += model.cost;
    row.llm_tokens += e.llm_tokens;
    row.spend += spend;
    if (degraded) {
      ++row.degraded;
    } else {
      const std::int64_t day = (options_.wall_epoch + t).count() / (86'400 * 1'000'000'000LL);
      if (day != key.day) {
        key.day = day;
        key.used_today = 0;
      }
      key.used_today += model.cost;
    }
  } else {
    ++row.rejected;
    schedule_retry(e, t, retry_after);
  }
  if (options_.record_requests) {
    requests_.push_back(RequestRecord{t, e.request_id, e.attempt, e.client, key.api_key, model.name,
                                      allowed, degraded, retry_after, model.cost, e.llm_tokens,
                                      spend, policy_.tiers[key.tier].name, reason, remaining,
                                      refused_by, refused_cost});
  }
}

void Simulation::schedule_retry(const Event& e, Nanos t, std::optional<Nanos> retry_after) {
  State& s = *state_;
  const auto wait = s.clients[e.client].arrivals.retry_wait(scenario_.clients[e.client].retry,
                                                            e.attempt, retry_after);
  if (!wait) {
    ++s.gave_up;
    return;
  }
  Event retry = e;
  retry.time = (t + *wait).count();
  retry.attempt = e.attempt + 1;
  s.push(retry);
}

StepSample Simulation::take_sample(Nanos start, Nanos end) {
  State& s = *state_;
  StepSample out;
  out.time = end;
  out.step = end - start;
  out.by_tier.reserve(policy_.tiers.size());
  for (const TierPolicy& t : policy_.tiers) out.by_tier.push_back(GroupStepSample{t.name});
  out.by_model.reserve(policy_.models.size());
  for (const ModelPolicy& m : policy_.models) out.by_model.push_back(GroupStepSample{m.name});
  out.keys.reserve(s.rows.size());
  const std::int64_t today = (options_.wall_epoch + end).count() / (86'400 * 1'000'000'000LL);
  // Levels of the states the limiter holds; a state it dropped as idle is full (level 1).
  std::map<std::uint64_t, double> levels;
  s.limiter->for_each_state(end, [&](const KeyStateView& v) {
    levels[v.key_id] = v.capacity > 0 ? std::clamp(v.available / v.capacity, 0.0, 1.0) : 1.0;
  });
  for (const auto& [names, index] : s.row_index) {  // (key, model) order
    Row& row = s.rows[index];
    const KeyInfo& key = s.keys[row.key];
    const TierPolicy& tier = policy_.tiers[key.tier];
    KeyStepSample k;
    k.api_key = key.api_key;
    k.tier = tier.name;
    k.model = policy_.models[row.model].name;
    k.algorithm = tier.requests.algorithm;
    if (row.key_id) {
      if (auto it = levels.find(*row.key_id); it != levels.end()) k.level = it->second;
    }
    if (is_window_algorithm(k.algorithm) || k.algorithm == Algorithm::leaky_bucket) {
      k.occupancy = 1.0 - k.level;  // window use / limit, or queue depth / capacity
    }
    k.admitted = row.admitted;
    k.rejected = row.rejected;
    k.degraded = row.degraded;
    k.retries = row.retries;
    k.cost = row.cost;
    k.llm_tokens = row.llm_tokens;
    k.spend = row.spend;
    if (tier.daily_quota && *tier.daily_quota > 0 && key.day == today) {
      k.quota_burn = key.used_today / *tier.daily_quota;
    }
    for (GroupStepSample* g : {&out.by_tier[key.tier], &out.by_model[row.model]}) {
      g->admitted += row.admitted;
      g->rejected += row.rejected;
      g->degraded += row.degraded;
      g->spend += row.spend;
    }
    out.admitted += row.admitted;
    out.rejected += row.rejected;
    out.degraded += row.degraded;
    out.retries += row.retries;
    out.spend += row.spend;
    out.keys.push_back(std::move(k));
    row = Row{row.key, row.model, row.key_id,
              row.tokens};  // the counters start over, the bucket stays
  }
  out.gave_up = std::exchange(s.gave_up, 0);
  const std::int64_t total = out.admitted + out.rejected;
  out.ratio_429 = total == 0 ? 0.0 : static_cast<double>(out.rejected) / static_cast<double>(total);
  for (const Window& w : s.incidents) {
    if (w.overlaps(start, end)) out.incidents.push_back(w.description);
  }
  return out;
}

}  // namespace limitscope
