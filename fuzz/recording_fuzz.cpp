// libFuzzer target for dashboard recordings (core/recording/recording_reader): any bytes are read
// up to the first bad line, whose error names the file and the line; what was read keeps its
// times in order and names[0] empty; the steps' event counts only grow, within the events
// read, and every outage and fail-open interval ends at or after its start.
// seed-corpus: tests/data/fuzz/recording
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "core/recording/recording_reader.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const limitscope::RecordingLoad load = limitscope::read_recording(in, "fuzz.rec");
  if (!load.error.empty()) {
    const std::string prefix = "fuzz.rec:";
    check(load.error.rfind(prefix, 0) == 0);
    check(load.error.size() > prefix.size() && load.error[prefix.size()] >= '1' &&
          load.error[prefix.size()] <= '9');
  }
  const limitscope::Recording& r = load.recording;
  if (!r.names.empty()) check(r.names[0].empty());
  if (r.lines > 0) check(r.first_ms <= r.last_ms);
  std::size_t events = 0;
  for (const limitscope::RecordedStep& s : r.steps) {
    check(s.events_through >= events && s.events_through <= r.events.size());
    events = s.events_through;
    if (s.sources) {
      for (const auto& src : *s.sources) {
        for (const auto& o : src.outages) check(!o.end_ms || *o.end_ms >= o.start_ms);
        check(src.down == (!src.outages.empty() && !src.outages.back().end_ms));
      }
    }
    if (s.protection) {
      for (const auto& iv : s.protection->intervals) check(!iv.end_ms || *iv.end_ms >= iv.start_ms);
    }
  }
  return 0;
}
