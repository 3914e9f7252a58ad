#pragma once
// The dashboard's default source: the deterministic simulation, recorded into a SeriesStore
// as gateway metrics, with the alert rules evaluated over it. Not thread-safe by itself: the
// UI's worker thread owns it and hands out snapshots (copies).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/common/expected.h"
#include "core/limiter/policy.h"
#include "core/metrics/series_store.h"
#include "core/sim/simulation.h"
#include "core/sources/dashboard_snapshot.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {

namespace metrics {
class AlertEngine;
}

struct EmbeddedSimulationOptions {
  std::string scenario = "mixed";
  std::uint64_t seed = 1;
  /// Length the scenario is laid out for (incident times scale with it); the simulation
  /// keeps running past it.
  Nanos scenario_length{std::chrono::minutes(20)};
  /// Samples kept per series: 1 h at one step per second.
  std::size_t samples_per_series = 3600;
  std::size_t sparkline_points = 60;
  /// Alert rules (Prometheus rule-file YAML or JSON); empty = the shipped default rules.
  std::string rules_text;
  std::string rules_source = "<default rules>";
};

class EmbeddedSimulationSource {
 public:
  /// @return the source, or an error naming an unknown scenario or an invalid rule file.
  static Expected<std::unique_ptr<EmbeddedSimulationSource>> create(
      const Policy& policy, const EmbeddedSimulationOptions& options = {});
  ~EmbeddedSimulationSource();
  EmbeddedSimulationSource(const EmbeddedSimulationSource&) = delete;
  EmbeddedSimulationSource& operator=(const EmbeddedSimulationSource&) = delete;

  /// Runs whole simulation steps until `d` more simulated time has passed (fractions of a
  /// step carry over to the next call), recording each step and evaluating the alert rules
  /// at their interval. @return steps run.
  int advance(Nanos d);

  /// Injects an incident now (runaway client, burst, misconfigured tenant, outage) for
  /// `length` of simulated time. @return an error text, or empty.
  std::optional<std::string> inject(IncidentKind kind, Nanos length);

  /// Everything the dashboard shows, for the given chart window.
  DashboardSnapshot snapshot(const ChartView& view) const;

  std::int64_t now_ms() const;
  std::int64_t start_ms() const { return epoch_ms_; }
  const metrics::SeriesStore& store() const { return *store_; }
  const Simulation& simulation() const { return *sim_; }

 private:
  EmbeddedSimulationSource() = default;
  void record_keys(const StepSample& s);
  void add_alerts(DashboardSnapshot& snap) const;

  EmbeddedSimulationOptions options_;
  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<metrics::SeriesStore> store_;
  std::unique_ptr<SimulationRecorder> recorder_;
  std::unique_ptr<metrics::AlertEngine> alerts_;
  std::int64_t epoch_ms_ = 0;
  Nanos carry_{0};
  std::vector<std::string> incidents_now_;
  std::string last_error_;
  std::map<std::pair<std::string, std::string>, KeyRow> keys_;  // (api key, model)
};

}  // namespace limitscope
