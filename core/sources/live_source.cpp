#include "core/sources/live_source.h"

#include <algorithm>
#include <stdexcept>

#include "core/dashboard/key_row_figures.h"

namespace limitscope {

std::shared_ptr<SessionState> live_series_or_default(std::shared_ptr<SessionState> given) {
  if (given) return given;
  auto made = SessionState::create();
  // The built-in rules are compiled in and tested; failing to parse them is a build defect.
  if (!made) throw std::logic_error("built-in alert rules: " + made.error());
  return std::move(*made);
}

LiveSource::LiveSource(std::shared_ptr<SessionState> series)
    : series_(live_series_or_default(std::move(series))) {}

void LiveSource::own_key_rows() {
  series_->set_key_rows([this] {
    DashboardSnapshot s;
    contribute(s);
    return std::move(s.keys);
  });
  series_->set_sources([this] {
    std::vector<SourceStatus> out;
    add_status(out);
    return out;
  });
}

DashboardSnapshot LiveSource::snapshot(const ChartView& view) const {
  DashboardSnapshot s;
  series_->fill(s, view, now_ms());
  s.source = name();
  s.connection = connection();
  s.last_error = last_error();
  contribute(s);
  complete_key_rows(s.keys, series_->store(), view, &series_->names());
  add_status(s.sources);
  return s;
}

std::string LiveSource::kind() const {
  const std::string n = name();
  return n.substr(0, n.find(':'));
}

void LiveSource::add_status(std::vector<SourceStatus>& out) const {
  SourceStatus st;
  st.name = name();
  st.kind = kind();
  st.outages = series_->outages(st.kind);
  st.down = !st.outages.empty() && !st.outages.back().end_ms;
  st.metrics = series_->metrics_of(st.kind);
  out.push_back(std::move(st));
}

int LiveSource::fast_forward(Nanos d) {
  return advance(std::max<Nanos>(d, std::chrono::seconds(1)));
}

ChangeStamp LiveSource::change_stamp() const {
  return {series_->revision(), now_ms(), connection() + "\n" + last_error()};
}

}  // namespace limitscope
