#pragma once
// A DashboardSource on a live system (Redis, a gateway's /metrics, Prometheus). Each records
// into a LiveSeries, its own or one shared with other live sources (CompositeLiveSource), and
// adds what only it knows to a snapshot: key rows, server-side alerts, its connection state.
// Refreshing is blocking I/O, done in advance() on the worker thread that owns the source.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/sources/dashboard_source.h"
#include "core/sources/live_series.h"

namespace limitscope {

class LiveSource : public DashboardSource {
 public:
  /// @param series shared with other live sources, or null to make one with the default rules
  explicit LiveSource(std::shared_ptr<LiveSeries> series);

  DashboardSnapshot snapshot(const ChartView& view) const override;
  const metrics::SeriesStore& store() const override { return series_->store(); }

  /// "metrics: http://127.0.0.1:9464/metrics" (no credentials).
  virtual std::string name() const = 0;
  /// "connecting", "connected" or "reconnecting" (composites: one per part).
  virtual std::string connection() const = 0;
  /// What went wrong last, or empty while healthy.
  virtual std::string last_error() const = 0;
  /// Adds this source's key rows, server-side alerts and the like to `s`.
  virtual void contribute(DashboardSnapshot& s) const = 0;
  /// Adds this source's state and outages (a composite: each part's).
  virtual void add_status(std::vector<SourceStatus>& out) const;
  /// "redis", "metrics" or "prometheus": what its series and outages are filed under.
  std::string kind() const;

  LiveSeries& series() { return *series_; }
  const LiveSeries& series() const { return *series_; }
  const std::deque<SourceEvent>& events() const { return series_->events(); }

  /// Records the session to `path` (docs/recording.md). @return an error naming the file, or empty
  std::optional<std::string> start_recording(const std::string& path, const Clock& flush_clock);
  /// @return the recording's write error, or empty
  std::optional<std::string> stop_recording();
  void flush_recording_if_due() { series_->flush_recording_if_due(); }
  std::string recording_name() const { return series_->recording_name(); }

 protected:
  /// Makes this source's rows the recording's key table (a composite calls it for itself).
  void own_key_rows();

  std::shared_ptr<LiveSeries> series_;
};

/// The LiveSeries for a source: `given`, or a new one with the default and live rules.
std::shared_ptr<LiveSeries> live_series_or_default(std::shared_ptr<LiveSeries> given);

}  // namespace limitscope
