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
#include "core/sources/dashboard_source.h"
#include "core/sources/recent_decisions.h"
#include "core/sources/recording_writer.h"
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
  /// Recent decisions kept per API key for the details pane.
  std::size_t decisions_per_key = 50;
};

class EmbeddedSimulationSource final : public DashboardSource {
 public:
  /// @return the source, or an error naming an unknown scenario or an invalid rule file.
  static Expected<std::unique_ptr<EmbeddedSimulationSource>> create(
      const Policy& policy, const EmbeddedSimulationOptions& options = {});
  ~EmbeddedSimulationSource() override;
  EmbeddedSimulationSource(const EmbeddedSimulationSource&) = delete;
  EmbeddedSimulationSource& operator=(const EmbeddedSimulationSource&) = delete;

  /// Runs whole simulation steps until `d` more simulated time has passed (fractions of a
  /// step carry over to the next call), recording each step and evaluating the alert rules
  /// at their interval. @return steps run.
  int advance(Nanos d) override;

  /// Injects an incident now (runaway client, burst, misconfigured tenant, outage) for
  /// `length` of simulated time. @return an error text, or empty.
  std::optional<std::string> inject(IncidentKind kind, Nanos length);

  /// Everything the dashboard shows, for the given chart window.
  DashboardSnapshot snapshot(const ChartView& view) const override;

  /// Starts recording the session to `path` (docs/recording.md): the store's history so far,
  /// the key table and alerts now, then every step, alert change and decided request.
  /// Replaces a recording in progress. @param flush_clock times the at-least-once-a-second
  /// flushes. @return an error naming the file, or empty.
  std::optional<std::string> start_recording(const std::string& path, const Clock& flush_clock);
  /// Same, to any stream (tests).
  void start_recording(std::unique_ptr<std::ostream> out, const std::string& name,
                       const Clock& flush_clock);
  /// Ends the recording (end line, flush, close). @return its write error, or empty.
  std::optional<std::string> stop_recording();
  /// Flushes the recording when its interval has passed (the worker calls this every tick).
  void flush_recording_if_due();
  /// The file being recorded to, or empty.
  std::string recording_name() const { return writer_ ? writer_->name() : std::string(); }

  std::int64_t now_ms() const override;
  std::int64_t start_ms() const { return epoch_ms_; }
  const metrics::SeriesStore& store() const override { return *store_; }
  const Simulation& simulation() const { return *sim_; }

 private:
  EmbeddedSimulationSource() = default;
  void record_keys(const StepSample& s);
  void add_alerts(DashboardSnapshot& snap) const;
  std::string source_name() const;
  void record_requests();
  void write_step(std::int64_t t_ms);
  void write_alerts(std::int64_t t_ms);
  void write_history();

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
  RecentDecisions decisions_;
  std::unique_ptr<RecordingWriter> writer_;
};

}  // namespace limitscope
