#pragma once
// What the Tuner does with a trace it has read, and what it says, without Qt: a trace whose
// every line was good is used (its passes run next), one with no events is refused, and one
// with bad lines waits for the operator, who may use its good lines or refuse it. The trace
// panel (ui/tuner/trace_panel_load.cpp) only shows these texts and follows the verdict.

#include <cstddef>
#include <string>
#include <vector>

#include "core/trace/trace.h"

namespace limitscope::tuner {

struct LoadVerdict {
  enum class Next {
    use,     ///< every line was good: the passes over the trace run, then it is the session's
    refuse,  ///< nothing to use: `status` says why
    ask,     ///< bad lines: the report asks the operator whether to use the good lines
  };
  Next next = Next::use;
  /// refuse: why ("file t.csv: no events; nothing loaded."); ask: what the status line says
  /// while the report waits ("3 bad line(s): choose in the report.")
  std::string status;
  // ask: the report.
  std::string question;   ///< "<source> has 3 bad line(s) and 97 good one(s). Nothing is …"
  std::string details;    ///< the first bad lines (bad_lines_text)
  std::string use_label;  ///< "Use the 97 good lines"
  bool can_use = false;   ///< there are good lines to use
  std::string refused;    ///< the status once the operator refuses ("Nothing loaded: …")
};

/// @param source the trace's origin as the panel names it ("file t.jsonl")
/// @param trace the good lines read (nullptr: none)
/// @param errors the first bad lines, `error_count` of them in all
LoadVerdict judge_load(const std::string& source, const trace::Trace* trace,
                       const std::vector<trace::TraceError>& errors, std::size_t error_count);

/// The status of a load that failed as a whole: "Load cancelled; the previous trace stays."
/// when the operator cancelled it, else `error` as it is.
std::string load_failed_text(bool cancelled, const std::string& error);

}  // namespace limitscope::tuner
