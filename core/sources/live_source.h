#pragma once
// A DashboardSource on a live system (Redis, a gateway's /metrics, Prometheus). Each feeds a
// SessionState, its own or one shared with other live sources (CompositeLiveSource), and adds
// what only it knows to a snapshot: key rows, server-side alerts, its connection state.
// Refreshing is blocking I/O, done in advance() on the worker thread that owns the source.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/sources/dashboard_source.h"
#include "core/sources/session_state.h"

namespace limitscope {

class LiveSource : public DashboardSource {
 public:
  /// @param series shared with other live sources, or null to make one with the default rules
  explicit LiveSource(std::shared_ptr<SessionState> series);

  DashboardSnapshot snapshot(const ChartView& view) const override;
  /// Live time cannot be skipped: refreshes now (at least one refresh interval's worth).
  int fast_forward(Nanos d) override;
  bool real_time() const override { return true; }
  SessionState& session() override { return *series_; }
  const SessionState& session() const override { return *series_; }
  ChangeStamp change_stamp() const override;

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

  const std::deque<SourceEvent>& events() const { return series_->events(); }

 protected:
  /// Makes this source's rows and status (its parts', for a composite) the recording's key table
  /// and sources.
  void own_key_rows();

  std::shared_ptr<SessionState> series_;
};

/// The SessionState for a source: `given`, or a new one with the default and live rules.
std::shared_ptr<SessionState> live_series_or_default(std::shared_ptr<SessionState> given);

}  // namespace limitscope
