#pragma once
// The dashboard's default source: the deterministic simulation, recorded into its
// SessionState as gateway metrics (the same store, alert engine, recent decisions and
// recording the live sources feed), with the alert rules evaluated over it. Not thread-safe
// by itself: the UI's worker thread owns it and hands out snapshots (copies).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/common/expected.h"
#include "core/dashboard/dashboard_snapshot.h"
#include "core/limiter/policy.h"
#include "core/metrics/series_store.h"
#include "core/sim/simulation.h"
#include "core/sources/dashboard_source.h"
#include "core/sources/session_state.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {

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
  /// Recent decisions kept per API key for the details pane.
  std::size_t decisions_per_key = 50;
};

class EmbeddedSimulationSource final : public DashboardSource {
 public:
  /// @return the source, or an error naming an unknown scenario or an invalid rule file.
  static Expected<std::unique_ptr<EmbeddedSimulationSource>> create(
      const Policy& policy, const EmbeddedSimulationOptions& options = {});
  ~EmbeddedSimulationSource() override = default;
  EmbeddedSimulationSource(const EmbeddedSimulationSource&) = delete;
  EmbeddedSimulationSource& operator=(const EmbeddedSimulationSource&) = delete;

  /// Runs whole simulation steps until `d` more simulated time has passed (fractions of a
  /// step carry over to the next call), recording each step and evaluating the alert rules
  /// at their interval. @return steps run.
  int advance(Nanos d) override;

  /// Injects an incident now (runaway client, burst, misconfigured tenant, outage) for
  /// `length` of simulated time. @return ok, or why it cannot be injected
  Status inject(IncidentKind kind, Nanos length) override;

  /// Everything the dashboard shows, for the given chart window.
  DashboardSnapshot snapshot(const ChartView& view) const override;

  std::int64_t now_ms() const override;
  std::string name() const override;
  SessionState& session() override { return *session_; }
  ChangeStamp change_stamp() const override {
    return {session_->revision(), now_ms(), last_error_};
  }
  const SessionState& session() const override { return *session_; }
  std::int64_t start_ms() const { return epoch_ms_; }
  const Simulation& simulation() const { return *sim_; }

 private:
  EmbeddedSimulationSource() = default;
  void record_keys(const StepSample& s);
  void record_requests();
  std::vector<KeyRow> key_rows() const;

  EmbeddedSimulationOptions options_;
  std::unique_ptr<Simulation> sim_;
  std::shared_ptr<SessionState> session_;
  std::unique_ptr<SimulationRecorder> recorder_;
  std::int64_t epoch_ms_ = 0;
  Nanos carry_{0};
  std::string last_error_;
  std::map<std::pair<std::string, std::string>, KeyRow> keys_;  // (api key, model)
};

}  // namespace limitscope
