#pragma once
// Named traffic scenarios (steady, burst, runaway, diurnal, misconfigured-tenant, mixed) and
// the incidents that can be scheduled in them or injected into a running simulation. A
// ScenarioSpec is plain data: the dashboard lists its clients and incidents as they are.

#include <string>
#include <string_view>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/sim/traffic.h"

namespace limitscope {

enum class IncidentKind {
  runaway_client,        // a client loop hammering one key, ignoring Retry-After
  burst,                 // a short burst of extra requests on one key
  misconfigured_tenant,  // a heavy new tenant whose key maps to a small tier
  backend_outage,        // the limiter backend is down; fail-open admits all, marked degraded
};

std::string_view to_string(IncidentKind k);
/// Accepts "runaway-client", "burst", "misconfigured-tenant", "backend-outage" ('_' for '-').
std::optional<IncidentKind> parse_incident_kind(std::string_view name);

struct Incident {
  IncidentKind kind = IncidentKind::burst;
  Nanos at{0};      // simulated time since the run began; a past time means "now"
  Nanos length{0};  // how long it lasts; 0 = until the end of the run
  /// runaway/burst: the key that sends (an existing client's key or a new one);
  /// misconfigured tenant: the new tenant's key. Unused for an outage.
  std::string api_key;
  /// runaway/burst/misconfigured: the tier used when the policy does not list the key.
  std::string tier = "free";
  std::string model = "gpt-4.1";  // the model the extra traffic calls
  double rate_per_s = 0;          // requests/s of the extra traffic; unused for an outage

  /// "runaway-client key=loop-bot at=20s for 10s 2000/s", for logs and the dashboard.
  std::string describe() const;
};

struct ScenarioSpec {
  std::string name;
  std::string description;  // one line
  std::vector<ClientSpec> clients;
  std::vector<Incident> incidents;  // scheduled at fixed times in the run
};

/// The scenario names, in the order the CLI and the dashboard list them.
const std::vector<std::string_view>& scenario_names();

/// Builds a scenario for a run of `duration` (times of bursts and incidents, and the length of
/// the compressed day, scale with it).
/// @return the scenario, or an error naming the unknown scenario and listing the known ones.
Expected<ScenarioSpec> make_scenario(std::string_view name, Nanos duration);

/// The clients an incident adds to a run (none for an outage). Their new requests fall in
/// [at, at + length) of simulated time (length 0: until the run ends).
std::vector<ClientSpec> incident_clients(const Incident& incident);

}  // namespace limitscope
