#pragma once
// Several live sources shown as one dashboard (`limitscope --redis URL --metrics URL
// --prometheus URL`, any combination). The parts share one SessionState: one store (the charts
// draw every part's series: levels from Redis, rates from /metrics, history from Prometheus),
// one alert engine over all of it, one event log and one recording. The snapshot holds the
// key rows of every part (Redis: one per limiter key; /metrics and Prometheus: one per tier
// and model), the local alerts and the server-side ones (origin "prometheus"), and a
// connection state per part ("redis connected, metrics reconnecting"). Every part stamps its
// samples with the same wall clock, so their series share one time base.

#include <memory>
#include <string>
#include <vector>

#include "core/sources/live_source.h"

namespace limitscope {

class CompositeLiveSource final : public LiveSource {
 public:
  /// @param series the SessionState every part was made with
  /// @param parts at least one, each built on `series`
  CompositeLiveSource(std::shared_ptr<SessionState> series,
                      std::vector<std::unique_ptr<LiveSource>> parts);

  /// Advances every part (each refreshes on its own interval). @return refreshes run
  int advance(Nanos d) override;
  /// The latest of the parts' times.
  std::int64_t now_ms() const override;

  std::string name() const override;
  std::string connection() const override;
  std::string last_error() const override;
  void contribute(DashboardSnapshot& s) const override;
  void add_status(std::vector<SourceStatus>& out) const override;

  const std::vector<std::unique_ptr<LiveSource>>& parts() const { return parts_; }

 private:
  std::vector<std::unique_ptr<LiveSource>> parts_;
};

}  // namespace limitscope
