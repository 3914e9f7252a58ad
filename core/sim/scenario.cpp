#include "core/sim/scenario.h"

#include <algorithm>
#include <cstdio>

#include "core/common/enum_names.h"
#include "core/limiter/rate.h"

namespace limitscope {
namespace {

using std::chrono::seconds;

// A point in the run, as a fraction of its duration.
Nanos at_fraction(Nanos duration, double f) {
  return Nanos{static_cast<std::int64_t>(static_cast<double>(duration.count()) * f)};
}

ClientSpec client(std::string key, std::string tier, ClientRole role, std::string description,
                  double rate_per_s, std::vector<ModelShare> models) {
  ClientSpec c;
  c.api_key = std::move(key);
  c.tier = std::move(tier);
  c.role = role;
  c.description = std::move(description);
  c.models = std::move(models);
  c.traffic.rate_per_s = rate_per_s;
  return c;
}

ModelShare share(std::string_view model, double weight) {
  return default_model_share(model, weight);
}

// Well-behaved tenants of each tier, comfortably inside their limits; most scenarios start
// from them so the incident's effect (or its absence) on bystanders is visible.
std::vector<ClientSpec> background_clients() {
  return {
      client("free-hobbyist", "free", ClientRole::steady, "hobby project on the free tier", 0.5,
             {share("deepseek-v3.2", 3), share("gemini-2.5-flash", 1)}),
      client("pro-startup", "pro", ClientRole::steady, "startup chat product", 6,
             {share("gpt-4.1", 2), share("claude-sonnet-4.5", 1), share("gemini-2.5-flash", 1)}),
      client("enterprise-bank", "enterprise", ClientRole::steady, "bank assistant, all models", 40,
             {share("gpt-4.1", 4), share("claude-sonnet-4.5", 3), share("gemini-2.5-flash", 2),
              share("deepseek-v3.2", 1)}),
  };
}

ScenarioSpec steady(Nanos) {
  return {"steady",
          "three tenants (free, pro, enterprise) sending Poisson traffic within limits",
          background_clients(),
          {}};
}

ScenarioSpec burst(Nanos d) {
  ScenarioSpec s{"burst",
                 "a pro batch job bursts to 40 req/s of gpt-4.1 for a tenth of the run",
                 background_clients(),
                 {}};
  ClientSpec batch = client("pro-batch", "pro", ClientRole::bursty,
                            "batch job: 2 req/s, bursts to 40 req/s", 2, {share("gpt-4.1", 1)});
  batch.traffic.bursts.push_back(
      Burst{at_fraction(d, 1.0 / 3), std::max(at_fraction(d, 0.1), Nanos{seconds(1)}), 40});
  s.clients.push_back(std::move(batch));
  return s;
}

ScenarioSpec runaway(Nanos d) {
  ScenarioSpec s{"runaway",
                 "a free-tier client loop fires 2000 req/s from a quarter of the run on, "
                 "ignoring Retry-After",
                 background_clients(),
                 {}};
  ClientSpec loop = client("loop-bot", "free", ClientRole::runaway,
                           "retry loop bug: 2000 req/s, deaf to Retry-After", 2000,
                           {share("gemini-2.5-flash", 1)});
  loop.traffic.start = at_fraction(d, 0.25);
  loop.retry.behaviour = RetryBehaviour::give_up;  // its loop is the retry
  s.clients.push_back(std::move(loop));
  return s;
}

ScenarioSpec diurnal(Nanos d) {
  ScenarioSpec s{"diurnal",
                 "three tenants whose traffic follows a day (night low, noon peak) compressed "
                 "into the run",
                 {},
                 {}};
  s.clients = {
      client("free-app", "free", ClientRole::diurnal, "consumer app, free tier", 0.6,
             {share("deepseek-v3.2", 1)}),
      client("pro-saas", "pro", ClientRole::diurnal, "SaaS writing tool, peaks over its limit", 6,
             {share("claude-sonnet-4.5", 3), share("gpt-4.1", 2)}),
      client("enterprise-support", "enterprise", ClientRole::diurnal, "support desk assistant", 40,
             {share("gpt-4.1", 2), share("gemini-2.5-flash", 1)}),
  };
  for (ClientSpec& c : s.clients) {
    c.traffic.day_length = d;
    c.traffic.diurnal_amplitude = 0.8;
  }
  return s;
}

ScenarioSpec misconfigured(Nanos d) {
  ScenarioSpec s{"misconfigured-tenant",
                 "a new heavy tenant starts at a fifth of the run with its key mapped to free "
                 "instead of enterprise",
                 background_clients(),
                 {}};
  Incident tenant;
  tenant.kind = IncidentKind::misconfigured_tenant;
  tenant.at = at_fraction(d, 0.2);
  tenant.api_key = "newco-prod";
  tenant.tier = "free";
  tenant.model = "gpt-4.1";
  tenant.rate_per_s = 10;
  for (ClientSpec& c : incident_clients(tenant)) s.clients.push_back(std::move(c));
  return s;
}

ScenarioSpec mixed(Nanos d) {
  ScenarioSpec s{"mixed",
                 "eight tenants across free, pro and enterprise on all four models; one "
                 "incident: a free client's retry loop runs away",
                 background_clients(),
                 {}};
  s.clients.push_back(client("free-student", "free", ClientRole::steady, "student project", 0.3,
                             {share("gemini-2.5-flash", 1)}));
  ClientSpec agency =
      client("pro-agency", "pro", ClientRole::bursty, "marketing agency, campaign bursts", 3,
             {share("claude-sonnet-4.5", 1), share("gpt-4.1", 1)});
  agency.traffic.bursts.push_back(Burst{at_fraction(d, 0.2), at_fraction(d, 1.0 / 12), 25});
  s.clients.push_back(std::move(agency));
  ClientSpec analytics = client("pro-analytics", "pro", ClientRole::diurnal,
                                "analytics pipeline following the working day", 5,
                                {share("gemini-2.5-flash", 2), share("deepseek-v3.2", 1)});
  analytics.traffic.day_length = d;
  s.clients.push_back(std::move(analytics));
  ClientSpec retail =
      client("enterprise-retail", "enterprise", ClientRole::diurnal, "retail shopping assistant",
             60, {share("gpt-4.1", 1), share("gemini-2.5-flash", 2), share("deepseek-v3.2", 2)});
  retail.traffic.day_length = d;
  s.clients.push_back(std::move(retail));
  ClientSpec legacy = client("pro-legacy", "pro", ClientRole::steady,
                             "legacy integration that retries without reading Retry-After", 7,
                             {share("gpt-4.1", 1)});
  legacy.retry.behaviour = RetryBehaviour::ignore_retry_after;
  s.clients.push_back(std::move(legacy));

  Incident loop;
  loop.kind = IncidentKind::runaway_client;
  loop.at = at_fraction(d, 0.55);
  loop.length = at_fraction(d, 0.2);
  loop.api_key = "free-student";
  loop.tier = "free";
  loop.model = "gemini-2.5-flash";
  loop.rate_per_s = 1500;
  s.incidents.push_back(std::move(loop));
  return s;
}

struct Entry {
  std::string_view name;
  ScenarioSpec (*make)(Nanos);
};

constexpr Entry kScenarios[] = {
    {"steady", steady},
    {"burst", burst},
    {"runaway", runaway},
    {"diurnal", diurnal},
    {"misconfigured-tenant", misconfigured},
    {"mixed", mixed},
};

std::string format_rate(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g/s", r);
  return buf;
}

}  // namespace

std::string_view to_string(IncidentKind k) {
  switch (k) {
    case IncidentKind::runaway_client:
      return "runaway-client";
    case IncidentKind::burst:
      return "burst";
    case IncidentKind::misconfigured_tenant:
      return "misconfigured-tenant";
    case IncidentKind::backend_outage:
      return "backend-outage";
  }
  return "unknown";
}

std::optional<IncidentKind> parse_incident_kind(std::string_view name) {
  return parse_dashed_name(
      name, {IncidentKind::runaway_client, IncidentKind::burst, IncidentKind::misconfigured_tenant,
             IncidentKind::backend_outage});
}

std::string Incident::describe() const {
  std::string out(to_string(kind));
  if (kind != IncidentKind::backend_outage) out += " key=" + api_key + " model=" + model;
  out += " at=" + (at.count() > 0 ? format_duration(at) : std::string("0s"));
  out += length.count() > 0 ? " for " + format_duration(length) : std::string(" until the end");
  if (kind != IncidentKind::backend_outage) out += " " + format_rate(rate_per_s);
  return out;
}

const std::vector<std::string_view>& scenario_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const Entry& e : kScenarios) v.push_back(e.name);
    return v;
  }();
  return names;
}

Expected<ScenarioSpec> make_scenario(std::string_view name, Nanos duration) {
  for (const Entry& e : kScenarios) {
    if (e.name == name) return e.make(duration);
  }
  std::string known;
  for (const Entry& e : kScenarios) known += (known.empty() ? "" : ", ") + std::string(e.name);
  return make_error("scenario \"" + std::string(name) + "\": unknown; known scenarios: " + known);
}

std::vector<ClientSpec> incident_clients(const Incident& incident) {
  if (incident.kind == IncidentKind::backend_outage) return {};
  ClientSpec c;
  c.api_key = incident.api_key;
  c.tier = incident.tier;
  c.models = {default_model_share(incident.model, 1)};
  c.traffic.rate_per_s = incident.rate_per_s;
  c.traffic.start = incident.at;
  if (incident.length.count() > 0) c.traffic.stop = incident.at + incident.length;
  switch (incident.kind) {
    case IncidentKind::runaway_client:
      c.role = ClientRole::runaway;
      c.description = "client loop: " + format_rate(incident.rate_per_s) + ", deaf to Retry-After";
      c.retry.behaviour = RetryBehaviour::give_up;  // the loop itself is the retry
      // A loop that resends conversations of every length, up to long ones: the tier's token
      // limit refuses the long requests its requests limit would let through, the requests
      // limit the rest (a runaway's 429s name both).
      for (ModelShare& m : c.models) {
        m.tokens_min = 500;
        m.tokens_max = 12'000;
      }
      break;
    case IncidentKind::burst:
      c.role = ClientRole::bursty;
      c.description = "burst of " + format_rate(incident.rate_per_s);
      break;
    case IncidentKind::misconfigured_tenant:
      c.role = ClientRole::misconfigured;
      c.description = "heavy tenant (" + format_rate(incident.rate_per_s) + ") mapped to " +
                      incident.tier + " by mistake";
      // A heavy tenant mixes a second frontier model into its traffic.
      if (incident.model != "claude-sonnet-4.5") {
        c.models.push_back(default_model_share("claude-sonnet-4.5", 1));
      }
      break;
    case IncidentKind::backend_outage:
      break;
  }
  return {c};
}

}  // namespace limitscope
