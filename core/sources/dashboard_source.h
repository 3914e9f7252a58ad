#pragma once
// What the dashboard's worker drives: the embedded simulation, a recording played back, or
// live sources. Each has its own time; the worker advances it at the chosen speed and asks for
// snapshots of the window the UI shows. Each feeds one SessionState (store, alerts, decisions,
// events, recording), so the worker treats them alike. Not thread-safe: one worker owns it.

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "core/common/clock.h"
#include "core/common/expected.h"
#include "core/dashboard/dashboard_snapshot.h"
#include "core/metrics/series_store.h"
#include "core/sim/scenario.h"
#include "core/sources/session_state.h"

namespace limitscope {

/// What a snapshot of a source depends on besides the view: equal stamps, equal snapshots
/// (the worker publishes only when it changes).
struct ChangeStamp {
  std::uint64_t revision = 0;  ///< SessionState::revision()
  std::int64_t now_ms = 0;     ///< the source's now
  std::string status;          ///< what the source itself says (connection, last error)
  bool operator==(const ChangeStamp&) const = default;
};

class DashboardSource {
 public:
  virtual ~DashboardSource() = default;
  /// Moves the source's time forward by `d` (simulated time, the playback cursor, or the wall
  /// time a live source refreshes on).
  /// @return steps run (simulation), refreshes run (live), or 1 if the cursor moved (playback)
  virtual int advance(Nanos d) = 0;
  /// The operator's "fast forward" by `d`: the simulation runs it at once; playback puts the
  /// cursor `d` after the recording's start (at its end when `d` is 0); a live source, whose
  /// time cannot be skipped, refreshes now. @return as advance()
  virtual int fast_forward(Nanos d) { return advance(d); }
  /// Injects an incident for `length` (the simulation only). @return ok, or an error text
  virtual Status inject(IncidentKind kind, Nanos length);
  /// Everything the dashboard shows, for the given chart window.
  virtual DashboardSnapshot snapshot(const ChartView& view) const = 0;
  /// The source's now: simulated wall time, the playback cursor, or the live source's last
  /// refresh (ms since the epoch).
  virtual std::int64_t now_ms() const = 0;
  /// "embedded simulation: mixed (seed 1)", "redis: redis://127.0.0.1:6379", "playback: FILE".
  virtual std::string name() const = 0;
  /// True when its time is the wall clock's, whatever the worker's speed (live sources).
  virtual bool real_time() const { return false; }
  /// False for a recording played back: it is recorded already.
  virtual bool recordable() const { return true; }
  /// The state the source feeds.
  virtual SessionState& session() = 0;
  virtual const SessionState& session() const = 0;
  /// The series the charts read (CSV export reads raw samples from it).
  const metrics::SeriesStore& store() const { return session().store(); }
  /// Changes whenever a snapshot of the same view would.
  virtual ChangeStamp change_stamp() const { return {session().revision(), now_ms(), {}}; }

  /// Records the session to `path` (docs/recording.md): the history held so far, then
  /// everything as it arrives. @param flush_clock times the at-least-once-a-second flushes.
  /// @return ok, or an error naming the file (or why this source cannot be recorded)
  Status start_recording(const std::string& path, const Clock& flush_clock);
  /// Same, to any stream (tests); `file_name` names it.
  Status start_recording(std::unique_ptr<std::ostream> out, const std::string& file_name,
                         const Clock& flush_clock) {
    return session().start_recording(std::move(out), file_name, name(), now_ms(), flush_clock);
  }
  /// End line, flush, close. @return ok, or the write failure that ended the recording
  Status stop_recording() { return session().stop_recording(now_ms()); }
  /// @return ok, or the write failure that stopped the recording since the last call
  /// (SessionState::flush_recording_if_due())
  Status flush_recording_if_due() { return session().flush_recording_if_due(); }
  /// The file being recorded to, or empty (also after a write failure dropped it).
  std::string recording_name() const { return session().recording_name(); }
};

}  // namespace limitscope
