#include "core/sources/dashboard_source.h"

namespace limitscope {

Status DashboardSource::inject(IncidentKind, Nanos) {
  return make_error("incidents can be injected into the embedded simulation only, not into " +
                    name());
}

Status DashboardSource::start_recording(const std::string& path, const Clock& flush_clock) {
  if (!recordable())
    return make_error(name() + " is a recording already: only a running source can be recorded");
  return session().start_recording(path, name(), now_ms(), flush_clock);
}

}  // namespace limitscope
