#include "core/gateway/load_plan.h"

#include <algorithm>
#include <cmath>

namespace limitscope::gateway {
namespace {

// Candidate arrivals carry attempt -1 until thinning turns them into requests.
constexpr int kCandidate = -1;

void scale_traffic(TrafficShape& t, double factor) {
  t.rate_per_s *= factor;
  for (Burst& b : t.bursts) b.rate_per_s *= factor;
}

}  // namespace

Expected<std::unique_ptr<LoadPlan>> LoadPlan::create(const ScenarioSpec& scenario,
                                                     const LoadPlanOptions& options) {
  if (options.duration.count() <= 0) return make_error("load duration must be > 0");
  if (options.keys_per_client < 1 || options.keys_per_client > 100'000) {
    return make_error("keys per client must be in [1, 100000], got " +
                      std::to_string(options.keys_per_client));
  }
  std::vector<ClientSpec> base = scenario.clients;
  for (const Incident& i : scenario.incidents) {
    for (ClientSpec& c : incident_clients(i)) base.push_back(std::move(c));
  }
  std::unique_ptr<LoadPlan> plan(new LoadPlan());
  plan->options_ = options;
  if (options.total_rate) {
    double sum = 0;
    for (const ClientSpec& c : base) sum += c.traffic.rate_per_s;
    if (!std::isfinite(*options.total_rate) || !(*options.total_rate > 0)) {
      return make_error("rate must be a finite number > 0");
    }
    if (!(sum > 0)) return make_error("scenario \"" + scenario.name + "\" has no traffic to scale");
    plan->scale_ = *options.total_rate / sum;
  }
  const auto n = static_cast<double>(options.keys_per_client);
  for (const ClientSpec& c : base) {
    for (std::size_t k = 1; k <= options.keys_per_client; ++k) {
      ClientSpec copy = c;
      if (options.keys_per_client > 1) copy.api_key += "-" + std::to_string(k);
      scale_traffic(copy.traffic, plan->scale_ / n);
      if (Status err = validate(copy); !err.ok())
        return make_error("scenario \"" + scenario.name + "\": " + err.error());
      plan->clients_.push_back(std::move(copy));
    }
  }
  for (std::size_t i = 0; i < plan->clients_.size(); ++i) {
    plan->runs_.emplace_back(plan->clients_[i], derive_seed(options.seed, i));
  }
  for (std::uint32_t i = 0; i < plan->clients_.size(); ++i) {
    plan->schedule_arrival(i, plan->clients_[i].traffic.start);
  }
  return plan;
}

Expected<std::unique_ptr<LoadPlan>> LoadPlan::from_trace(const trace::Trace& trace,
                                                         const TracePlanOptions& options) {
  if (trace.events.empty()) return make_error("the trace has no events");
  if (!std::isfinite(options.speed) || !(options.speed > 0) || options.speed > 1e6) {
    return make_error("speed must be a number in (0, 1000000]");
  }
  std::unique_ptr<LoadPlan> plan(new LoadPlan());
  // Clients in the order their keys first appear; each (client, model) pair is one share.
  std::vector<std::int64_t> client_of_key(trace.keys.size(), -1);
  std::vector<std::vector<std::int32_t>> share_of(trace.keys.size());
  const std::int64_t t0 = trace.events.front().t_ns;
  std::int64_t last_ns = 0;
  for (const trace::TraceEvent& e : trace.events) {
    std::string model = trace.models[e.model];
    if (model.empty()) model = options.default_model;
    if (model.empty()) {
      return make_error("key \"" + trace.keys[e.key] +
                        "\" has an event with no model, and no default model was given");
    }
    if (client_of_key[e.key] < 0) {
      client_of_key[e.key] = static_cast<std::int64_t>(plan->clients_.size());
      ClientSpec c;
      c.api_key = trace.keys[e.key];
      c.tier = trace.tiers[e.tier];
      c.description = "trace key";
      c.retry.behaviour = RetryBehaviour::give_up;
      c.traffic.rate_per_s = 0;  // no arrivals of its own: the trace's events are the requests
      plan->clients_.push_back(std::move(c));
      share_of[e.key].assign(trace.models.size(), -1);
    }
    const auto client = static_cast<std::uint32_t>(client_of_key[e.key]);
    ClientSpec& spec = plan->clients_[client];
    std::int32_t& share = share_of[e.key][e.model];
    if (share < 0) {
      share = static_cast<std::int32_t>(spec.models.size());
      spec.models.push_back(ModelShare{model, 1, 1, 1});
    }
    PlannedRequest r;
    r.at = Nanos{
        static_cast<std::int64_t>(std::llround(static_cast<double>(e.t_ns - t0) / options.speed))};
    r.client = client;
    r.share = static_cast<std::uint32_t>(share);
    // The cost is sent as the request's token estimate (prompt + max_tokens), at least 1.
    r.llm_tokens = std::max<std::int64_t>(1, std::llround(e.cost));
    r.request_id = plan->next_request_++;
    r.attempt = 0;
    last_ns = std::max(last_ns, r.at.count());
    plan->queue_.push(r);
  }
  plan->options_.duration = Nanos{last_ns + 1};
  // Trace clients have no arrivals of their own (rate 0) and never retry.
  for (const ClientSpec& c : plan->clients_) plan->runs_.emplace_back(c, 1);
  return plan;
}

void LoadPlan::schedule_arrival(std::uint32_t client, Nanos from) {
  const auto next = runs_[client].next_candidate(clients_[client], from);
  if (!next || *next >= options_.duration) return;
  PlannedRequest r;
  r.at = *next;
  r.client = client;
  r.attempt = kCandidate;
  queue_.push(r);
}

std::optional<PlannedRequest> LoadPlan::pop_due(Nanos now) {
  std::lock_guard lock(mu_);
  while (!queue_.empty() && queue_.top().at <= now) {
    PlannedRequest r = queue_.top();
    queue_.pop();
    if (r.attempt != kCandidate) return r;
    // A candidate: plan the next one, then thin this one, as the simulation does.
    schedule_arrival(r.client, r.at);
    const auto arrival = runs_[r.client].arrival_at(clients_[r.client], r.at);
    if (!arrival) continue;
    r.share = arrival->share;
    r.llm_tokens = arrival->llm_tokens;
    r.request_id = next_request_++;
    r.attempt = 0;
    return r;
  }
  return std::nullopt;
}

std::optional<Nanos> LoadPlan::next_time() const {
  std::lock_guard lock(mu_);
  if (queue_.empty()) return std::nullopt;
  return queue_.top().at;
}

RetryVerdict LoadPlan::on_rate_limited(const PlannedRequest& r, Nanos now,
                                       std::optional<Nanos> retry_after) {
  std::lock_guard lock(mu_);
  const RetryPolicy& policy = clients_[r.client].retry;
  const auto wait = runs_[r.client].retry_wait(policy, r.attempt, retry_after);
  if (!wait) return RetryVerdict::gave_up;
  PlannedRequest retry = r;
  retry.at = std::max(now, r.at) + *wait;
  retry.attempt = r.attempt + 1;
  if (retry.at >= options_.duration) return RetryVerdict::past_end;
  queue_.push(retry);
  return RetryVerdict::retry_scheduled;
}

}  // namespace limitscope::gateway
