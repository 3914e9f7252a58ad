// libFuzzer target for request traces (core/trace/trace), read as JSON lines and as CSV: bad
// lines become errors with a line number in 1..lines (at most max_errors kept, all counted);
// good lines become events in time order with a cost > 0 and names and token counts that
// exist.
// seed-corpus: tests/data/fuzz/trace
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "core/trace/trace.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace limitscope::trace;

void check_load(const TraceLoad& load, const TraceOptions& options) {
  check(load.errors.size() <= options.max_errors);
  check(load.error_count >= load.errors.size());
  for (const TraceError& e : load.errors) {
    // Line 0 is the whole file ("empty file: no header line"), which then has no events.
    check(e.line <= load.lines && (e.line >= 1 || load.trace.events.empty()));
    check(!e.message.empty());
  }
  const Trace& t = load.trace;
  check(t.events.size() <= load.lines);
  check(t.tokens.empty() || t.tokens.size() == t.events.size());
  check(!t.models.empty() && t.models[0].empty() && !t.tiers.empty() && t.tiers[0].empty());
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& ev = t.events[i];
    if (i > 0) check(ev.t_ns >= t.events[i - 1].t_ns);
    check(std::isfinite(ev.cost) && ev.cost > 0);
    check(ev.key < t.keys.size() && ev.model < t.models.size() && ev.tier < t.tiers.size());
  }
  check(std::isfinite(t.duration_s()) && t.duration_s() >= 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  TraceOptions options;
  options.max_errors = 3;
  {
    std::istringstream in(text);
    check_load(parse_trace_jsonl(in, options), options);
  }
  {
    std::istringstream in(text);
    check_load(parse_trace_csv(in, options), options);
  }
  return 0;
}
