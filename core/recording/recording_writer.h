#pragma once
// Writes a dashboard session as a recording (docs/recording.md): JSON lines, a header first,
// then series samples as they are appended, key-table steps, alert states and every decided
// request, in time order. Bounded memory: one pending samples line and the series/key id
// tables; everything else goes straight to the stream, flushed at least once per
// flush interval of the given clock so a crash loses at most that much.
//
// Every write returns ok, or the first write failure ("FILE: write failed"): after one the
// writer writes nothing more (each later call returns that failure again), and what it wrote
// before stays in the file, readable up to the failed line (docs/recording.md).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/dashboard/dashboard_snapshot.h"
#include "core/metrics/labels.h"

namespace limitscope {

inline constexpr std::string_view kRecordingFormat = "limitscope-recording";
inline constexpr int kRecordingVersion = 1;

struct RecordingHeader {
  std::string source;         // what was recorded, e.g. "embedded simulation: mixed (seed 1)"
  std::int64_t start_ms = 0;  // the source's start (first possible sample), ms since the epoch
  std::int64_t recording_started_ms = 0;  // request lines cover [this, end]; samples may be older
};

/// What a live session knew at a step besides its series, so a playback shows the same
/// no-data bands, UNPROTECTED banner, Sources and event log (docs/recording.md).
struct StepStatus {
  std::vector<SourceStatus> sources;  ///< each source, its outages and the metrics it wrote
  ProtectionStatus protection;        ///< the watched gateway's fail-open
  std::vector<SourceEvent> events;    ///< events logged since the previous step
};

class RecordingWriter {
 public:
  /// @param out   the file (or any stream); owned
  /// @param name  the file's name, for errors
  /// @param clock flush timing only (real time in the dashboard, ManualClock in tests)
  /// @param max_step_rows the rows a step line holds at most (0: all): the first ones given,
  ///        and the samples of a series with an api_key label only while its key is among the
  ///        rows of the step at their time (docs/recording.md: the size bound of a live session)
  RecordingWriter(std::unique_ptr<std::ostream> out, std::string name, const Clock& clock,
                  Nanos flush_every = std::chrono::seconds(1), std::size_t max_step_rows = 0);
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  Status header(const RecordingHeader& h);
  /// One sample appended to the source's store. Samples of one time share a line; a series
  /// is defined (its labels) on a line of its own before its first sample.
  Status sample(const metrics::Labels& labels, metrics::Sample s);
  /// One decided request (a request line, usable as a tuner trace line).
  Status request(const DecisionRow& d);
  /// The key table at t_ms, with the active incidents and the store's dropped samples; with a
  /// status, its sources and protection (each written only when it differs from the last one
  /// written) and its new events.
  Status step(std::int64_t t_ms, const std::vector<KeyRow>& keys,
              const std::vector<std::string>& incidents, std::uint64_t dropped_samples,
              const StepStatus* status = nullptr);
  /// Alert rows and shading intervals after an evaluation at t_ms; written only when they
  /// differ from the last alerts line.
  Status alerts(std::int64_t t_ms, const std::vector<AlertRow>& rows,
                const std::vector<AlertInterval>& intervals);
  /// Writes the end line and flushes.
  Status finish(std::int64_t t_ms);
  /// Flushes when something was written since the last flush and the interval has passed.
  Status flush_if_due();

  const std::string& name() const { return name_; }
  std::uint64_t lines() const { return lines_; }

 private:
  /// What emit_samples() does with the keys' samples held for the step of their time: write
  /// them, keep them (a line of the same time is written meanwhile), or write those of the
  /// step's rows.
  enum class HeldSamples { write, keep, of_rows };
  void emit_samples(HeldSamples held = HeldSamples::write,
                    const std::set<std::string, std::less<>>* rows = nullptr);
  /// Writes the series line of `labels` unless it has an id already.
  void define(const metrics::Labels& labels, std::int64_t& id);
  void put_sample(std::int64_t id, double value);
  void write_line(const std::string& line);
  /// Ok, or the first write failure.
  Status outcome() const;

  std::unique_ptr<std::ostream> out_;
  std::string name_;
  const Clock& clock_;
  Nanos flush_every_;
  Nanos last_flush_;
  bool dirty_ = false;
  std::optional<Error> failed_;  // the first write failure: nothing is written after it
  std::uint64_t lines_ = 0;

  // Series ids in the order their series lines are written; -1: not written yet (a key's
  // series whose samples were all left out).
  std::unordered_map<metrics::Labels, std::int64_t, metrics::LabelsHash> series_ids_;
  std::int64_t next_series_id_ = 0;
  std::string pending_samples_;  // the current samples line's [[id,value],...] body
  std::int64_t pending_t_ms_ = 0;
  std::size_t max_step_rows_ = 0;
  struct Held {
    const metrics::Labels* labels;  // the series_ids_ entry's (stable: node-based map)
    std::int64_t* id;
    double value;
  };
  std::vector<Held> held_;  // keys' samples at pending_t_ms_, waiting for its step
  // Key-table rows: an id per (key, model, definition); a changed definition gets a new id
  // (a key that moved to another shard is a changed definition).
  std::map<std::string, std::uint32_t> key_ids_;
  std::string last_alerts_;
  std::string last_sources_;     // the last step's "sources" field as written
  std::string last_protection_;  // and its "protection"
};

}  // namespace limitscope
