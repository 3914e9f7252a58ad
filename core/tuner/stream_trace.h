#pragma once
// A trace from a rule's decision stream in Redis ("<prefix>{R}:decisions", written by the
// limiter scripts when callers ask to log a decision: t in µs, key, cost, allowed, level). The
// stream holds what the callers sampled: with sampling below 100% the replayed counts are a
// sample of the real ones, and their rates must be scaled back (docs/tuner.md).

#include <atomic>
#include <functional>
#include <string>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/trace/trace.h"

namespace limitscope::tuner {

/// Reads the stream oldest first with XRANGE in pages, at most `max_events` entries. Entries
/// that are not a decision (missing or non-numeric t, cost) are errors numbered by position
/// (1 = oldest), as trace lines are; an entry older than the previous one is an error too.
/// The tier of every event is the rule's name.
/// @param cancel checked between pages: a cancelled read returns a usage error whose message
///        is trace::kLoadCancelled (core/trace/trace_file_load.h) and keeps nothing
/// @param progress the fraction read (of XLEN, capped at max_events), after each page
redis::Result<trace::TraceLoad> trace_from_decision_stream(
    redis::Connection& c, const redis::KeySchema& schema, const std::string& rule,
    std::size_t max_events = 10'000'000, const trace::TraceOptions& options = {},
    const std::atomic<bool>* cancel = nullptr, const std::function<void(double)>& progress = {});

}  // namespace limitscope::tuner
