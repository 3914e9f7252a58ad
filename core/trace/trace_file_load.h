#pragma once
// Loading a trace file where an operator waits for it (the dashboard's Tuner): with progress,
// cancellable, and with memory bounded before anything is parsed. The file's lines are counted
// first; a file with more lines than the cap is refused with an error that names the cap and
// the memory it stands for, instead of growing until the machine swaps. Otherwise exactly one
// event per line is reserved (no doubling of the event vector), then the lines are parsed by
// parse_trace_jsonl / parse_trace_csv with their line-numbered errors.
//
// Memory of a loaded trace: 24 B per event (sizeof(TraceEvent)) plus, per distinct key, its
// name and two index entries (about 100 B); models and tiers are at most 65,535 names each.

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "core/common/expected.h"
#include "core/trace/trace.h"

namespace limitscope::trace {

struct BoundedLoadOptions {
  /// Files with more events than this are refused. 16 M events × 24 B = 384 MB.
  std::size_t max_events = 16'000'000;
  /// Distinct keys kept; more are line-numbered errors. 1 M keys ≈ 100 MB.
  std::size_t max_keys = 1'000'000;
  std::size_t max_errors = 100;
};

/// Bytes the events of an n-event trace take.
constexpr std::size_t trace_event_bytes(std::size_t n) {
  return n * sizeof(TraceEvent);
}

/// The error text of a cancelled load.
inline constexpr const char* kLoadCancelled = "cancelled";

/// Counts the lines, refuses a file above the cap, then parses it (JSON lines when the first
/// non-blank character is '{', else CSV).
/// @param cancel checked every 64 KiB; a cancelled load returns the error kLoadCancelled and
///        keeps nothing
/// @param progress called with the fraction done, 0..1 (counting is the first 10%)
/// @return the load (good lines plus line-numbered errors), or an error naming the file
Expected<TraceLoad> load_trace_file_bounded(const std::string& path,
                                            const BoundedLoadOptions& options = {},
                                            const std::atomic<bool>* cancel = nullptr,
                                            const std::function<void(double)>& progress = {});

}  // namespace limitscope::trace
