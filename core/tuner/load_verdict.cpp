#include "core/tuner/load_verdict.h"

#include "core/tuner/tuner_session.h"

namespace limitscope::tuner {

LoadVerdict judge_load(const std::string& source, const trace::Trace* trace,
                       const std::vector<trace::TraceError>& errors, std::size_t error_count) {
  LoadVerdict v;
  const std::size_t good = trace != nullptr ? trace->events.size() : 0;
  if (error_count == 0) {
    if (good == 0) {
      v.next = LoadVerdict::Next::refuse;
      v.status = source + ": no events; nothing loaded.";
    }
    return v;
  }
  // Bad lines: nothing is used until the operator says so.
  const std::string bad = std::to_string(error_count);
  v.next = LoadVerdict::Next::ask;
  v.status = bad + " bad line(s): choose in the report.";
  v.question = source + " has " + bad + " bad line(s) and " + std::to_string(good) +
               " good one(s). Nothing is loaded unless you choose to use the good lines.";
  v.details = bad_lines_text(errors, error_count);
  v.use_label = "Use the " + std::to_string(good) + " good lines";
  v.can_use = good > 0;
  v.refused = "Nothing loaded: " + source + " has bad lines.";
  return v;
}

std::string load_failed_text(bool cancelled, const std::string& error) {
  return cancelled ? "Load cancelled; the previous trace stays." : error;
}

}  // namespace limitscope::tuner
