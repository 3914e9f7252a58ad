#pragma once
// What the dashboard's worker drives: the embedded simulation, a recording played back, and
// later the live sources. Each has its own time; the worker advances it at the chosen speed
// and asks for snapshots of the window the UI shows. Not thread-safe: one worker owns it.

#include <cstdint>

#include "core/limiter/clock.h"
#include "core/metrics/series_store.h"
#include "core/sources/dashboard_snapshot.h"

namespace limitscope {

class DashboardSource {
 public:
  virtual ~DashboardSource() = default;
  /// Moves the source's time forward by `d` (simulated time, or the playback cursor).
  /// @return steps run (simulation) or 1 if the cursor moved (playback), 0 otherwise
  virtual int advance(Nanos d) = 0;
  /// Everything the dashboard shows, for the given chart window.
  virtual DashboardSnapshot snapshot(const ChartView& view) const = 0;
  /// The source's now: simulated wall time, or the playback cursor (ms since the epoch).
  virtual std::int64_t now_ms() const = 0;
  /// The series the charts read (CSV export reads raw samples from it).
  virtual const metrics::SeriesStore& store() const = 0;
};

}  // namespace limitscope
