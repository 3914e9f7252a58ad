#include "core/sources/dashboard_source.h"

namespace limitscope {

std::optional<std::string> DashboardSource::inject(IncidentKind, Nanos) {
  return "incidents can be injected into the embedded simulation only, not into " + name();
}

std::optional<std::string> DashboardSource::start_recording(const std::string& path,
                                                            const Clock& flush_clock) {
  if (!recordable())
    return name() + " is a recording already: only a running source can be recorded";
  return session().start_recording(path, name(), now_ms(), flush_clock);
}

}  // namespace limitscope
