#pragma once
// The state of one dashboard session, whatever feeds it: the embedded simulation, a recording
// played back, or live sources (Redis, a gateway's /metrics, Prometheus, several at once
// sharing one). It holds one SeriesStore under the dashboard's series names, the alert engine
// over it (the shipped default rules, plus the live rules below for live sources), an event
// log, the recent decisions, the key names, the sources' outages and the gateway's fail-open,
// and a session recording. A source writes its series at its own times (the simulation: its
// simulated wall time; Redis: the server's TIME; /metrics and Prometheus: the wall clock); per
// series the times only go forward, and a sample that would go back is refused and counted.
// Every change bumps revision(), so the worker publishes a snapshot only when one happened.
// Not thread-safe: the worker that owns the sources owns this.

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/dashboard/dashboard_charts.h"
#include "core/dashboard/dashboard_snapshot.h"
#include "core/dashboard/key_names.h"
#include "core/dashboard/recent_decisions.h"
#include "core/metrics/metric_names.h"
#include "core/metrics/series_store.h"
#include "core/recording/recording_writer.h"

namespace limitscope {

namespace metrics {
class AlertEngine;
}

/// The rules live sources evaluate besides the default ones: a limited key nearly empty, a
/// window nearly full (Prometheus rule-file YAML; docs/live-sources.md).
std::string_view live_rules_yaml();

struct SessionOptions {
  std::size_t samples_per_series = 3600;  ///< 1 h at one refresh (or step) per second
  /// Ring capacity of the per-key series (levels, occupancy, per-key rates: one or more per
  /// tracked key, so the bulk of a large session's memory); 0: samples_per_series.
  std::size_t key_samples_per_series = 0;
  /// A series with no sample for this long (ms, the session's time) is removed, at most once
  /// a minute: the keys a long session let go of stop costing memory. 0: kept for good.
  std::int64_t idle_series_ms = 0;
  std::size_t max_series = 0;  ///< series the store holds; 0: its default
  std::size_t max_events = 200;
  /// Alert rules (YAML or JSON); empty = the default rules, plus live_rules_yaml() when
  /// `live_rules` is set.
  std::string rules_text;
  std::string rules_source = "<default rules>";
  bool live_rules = true;
  std::size_t decisions_per_key = 50;
  /// When the session began (the simulation's epoch); unset: at its first sample.
  std::optional<std::int64_t> start_ms;
  /// A recording's step lines hold at most this many key rows (the first ones: a live Redis
  /// source's most pressure first), and its per-key series only the samples of those keys
  /// (docs/recording.md: what bounds a recording's size per hour); 0: every row and sample.
  std::size_t recording_rows = 0;
  /// Watch the gateway's fail-open in its metrics (ProtectionStatus) at every refresh. The
  /// simulation shows its backend outage as an incident instead.
  bool watch_protection = true;
};

class SessionState {
 public:
  /// @return the state (shared by the parts of a composite live source), or an error naming
  ///         an invalid rule file.
  static Expected<std::shared_ptr<SessionState>> create(const SessionOptions& options = {});
  ~SessionState();
  SessionState(const SessionState&) = delete;
  SessionState& operator=(const SessionState&) = delete;

  /// Appends one sample (and writes it to the recording). @return false when refused.
  bool append(const metrics::Labels& labels, metrics::Sample sample);
  /// The source the next appends come from ("redis", "metrics", "prometheus"): each source
  /// says so before it records, so an outage can be placed on the charts and rules it feeds.
  void writing_as(std::string source) { writer_source_ = std::move(source); }
  /// `source` stopped answering at t_ms: its series are marked stale (the rules stop reading
  /// frozen values; the charts keep the history), and its outage begins. Repeats are no-ops.
  void source_down(const std::string& source, std::int64_t t_ms);
  /// `source` answers again at t_ms: its outage ends.
  void source_up(const std::string& source, std::int64_t t_ms);
  /// The outages of `source`, oldest first (the last one still open while it is down).
  std::vector<SourceStatus::Interval> outages(const std::string& source) const;
  /// The metric names `source` wrote, sorted (its outages shade the charts drawing them).
  std::vector<std::string> metrics_of(const std::string& source) const;
  /// A series that vanished from its source: stale from t_ms on, as Prometheus marks it.
  void mark_stale(const metrics::Labels& labels, std::int64_t t_ms);
  /// Evaluates the alert groups due at t_ms (ms since the epoch) and records a change.
  /// @return ok, or the first rule evaluation error (the rules keep theirs too: alert view)
  Status evaluate(std::int64_t t_ms);
  /// Adds to the event log (bounded, oldest dropped).
  void event(std::int64_t t_ms, std::string text);
  /// The incidents active now (the simulation's), for snapshots and the recording's steps.
  void set_incidents(std::vector<std::string> incidents);
  /// One decided request (a decision stream entry): recent decisions and the recording.
  /// @param upto_ms the refresh that read it: its recorded time is kept at or before this
  ///        (and after the last recorded line), so the recording stays in time order
  void decision(DecisionRow row, std::int64_t upto_ms);

  const std::deque<SourceEvent>& events() const { return events_; }
  metrics::SeriesStore& store() { return *store_; }
  const metrics::SeriesStore& store() const { return *store_; }
  const RecentDecisions& decisions() const { return decisions_; }
  /// Increases with every change a snapshot would show (a sample, an event, a decision, an
  /// alert evaluation, an outage, names, incidents); equal revisions, equal contents.
  std::uint64_t revision() const { return revision_; }
  /// What operators call the keys: a names file given at the start, then every refresh joins
  /// the limitscope_key_info series a source recorded (docs/live-sources.md).
  const KeyNames& names() const { return names_; }
  void set_names(KeyNames names);
  /// Names one key by its hash (the simulation names the gateway's api_key_hash by the key).
  void name_key(std::string_view hash, std::string name);
  std::uint64_t appended() const { return appended_; }
  std::uint64_t refused() const { return refused_; }

  /// Charts, local alerts and bands, outages, protection, recent decisions of the selected
  /// keys, the newest events, incidents, samples per second and dropped samples, for the window
  /// `view` at `now_ms`.
  void fill(DashboardSnapshot& s, const ChartView& view, std::int64_t now_ms) const;

  /// The key table a recording's step lines hold; the top-level source sets it.
  void set_key_rows(std::function<std::vector<KeyRow>()> rows) { key_rows_ = std::move(rows); }
  /// The sources (named, with their outages and metrics) a recording's step lines hold, so a
  /// playback shows the same bands and Sources; the top-level live source sets it.
  void set_sources(std::function<std::vector<SourceStatus>()> sources) {
    sources_ = std::move(sources);
  }
  /// A source refreshed (the simulation: stepped) at t_ms: joins key names, looks at the
  /// gateway's fail-open, writes a step line (the key table, incidents) when recording.
  void refreshed(std::int64_t t_ms);

  /// Starts recording to `path` (docs/recording.md): the history held so far, the key table
  /// and alerts now, then everything as it arrives. @return ok, or an error naming the file
  Status start_recording(const std::string& path, const std::string& source_name,
                         std::int64_t now_ms, const Clock& flush_clock);
  /// Same, to any stream (tests). @return ok, or the write failure that ended it at once
  Status start_recording(std::unique_ptr<std::ostream> out, const std::string& name,
                         const std::string& source_name, std::int64_t now_ms,
                         const Clock& flush_clock);
  /// End line, flush, close. @return ok, or the write failure that ended the recording (now,
  /// or earlier and not yet returned by flush_recording_if_due())
  Status stop_recording(std::int64_t now_ms);
  /// Flushes the recording when due. A write failure (here, or while a sample, request,
  /// step or alerts line was written since the last call) stops the recording, keeps what it
  /// wrote, and the source runs on. @return ok, or that failure (returned once)
  Status flush_recording_if_due();
  bool recording() const { return writer_ != nullptr; }
  /// The file being recorded to, or empty (also after a write failure dropped it).
  std::string recording_name() const { return writer_ ? writer_->name() : std::string(); }

 private:
  SessionState() = default;
  std::int64_t session_start_ms(std::int64_t now_ms) const;
  /// Takes the outcome of a write: a failure drops the writer and is kept until it is
  /// returned (by the start, flush or stop call that comes next).
  void written(Status outcome);
  /// Ok, or the failure written() kept (and forgets it: each failure is returned once).
  Status take_failure();
  void write_alerts(std::int64_t t_ms);
  /// The source's key rows, named as the key table names them (for the recording).
  std::vector<KeyRow> named_key_rows() const;
  void note_protection(std::int64_t t_ms);
  void fill_outages(DashboardSnapshot& s, std::int64_t now_ms) const;
  void drop_idle_series(std::int64_t t_ms);
  /// Alerts fed only by a source that is down read "no data" (the panel and the recording).
  void apply_no_data(std::vector<AlertRow>& rows, std::int64_t now_ms) const;
  /// Sources, protection and the events since the last step line, for the recording.
  StepStatus step_status();

  SessionOptions options_;
  std::unique_ptr<metrics::SeriesStore> store_;
  std::unique_ptr<metrics::AlertEngine> alerts_;
  std::deque<SourceEvent> events_;
  std::vector<std::string> incidents_;
  std::uint64_t event_seq_ = 0;  // the last event's SourceEvent::seq
  RecentDecisions decisions_;
  KeyNames names_;
  std::string writer_source_;
  std::map<std::string, std::unordered_set<metrics::Labels, metrics::LabelsHash>>
      series_of_;                                                   // source → series it wrote
  std::map<std::string, std::set<std::string>> sources_of_metric_;  // metric name → sources
  std::map<std::string, std::vector<SourceStatus::Interval>> outages_;  // source → outages
  ProtectionStatus protection_;
  std::optional<double> degraded_seen_;  // the gateway's degraded count at the last look
  std::int64_t degraded_seen_ms_ = 0;
  std::unique_ptr<RecordingWriter> writer_;
  std::optional<Error> unreturned_failure_;  // a write failure no call has returned yet
  std::function<std::vector<KeyRow>()> key_rows_;
  std::function<std::vector<SourceStatus>()> sources_;
  std::uint64_t events_recorded_ = 0;  // the last event's seq written to the recording
  std::optional<std::int64_t> first_ms_;
  std::int64_t last_ms_ = 0;
  std::int64_t rec_ns_ = std::numeric_limits<std::int64_t>::min();  // last recorded line's time
  std::uint64_t appended_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t revision_ = 0;
  bool key_info_seen_ = false;        // a limitscope_key_info series was appended: join names
  std::int64_t idle_checked_ms_ = 0;  // when idle series were last looked for
};

}  // namespace limitscope
