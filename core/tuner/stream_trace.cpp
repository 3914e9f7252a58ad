#include "core/tuner/stream_trace.h"

#include <charconv>
#include <cmath>

#include "core/common/parse_number.h"
#include "core/trace/trace_file_load.h"

namespace limitscope::tuner {

namespace {

constexpr std::size_t kPage = 10000;

void error(trace::TraceLoad& load, const trace::TraceOptions& o, std::size_t n,
           std::string message) {
  ++load.error_count;
  if (load.errors.size() < o.max_errors) load.errors.push_back({n, std::move(message)});
}

}  // namespace

redis::Result<trace::TraceLoad> trace_from_decision_stream(
    redis::Connection& c, const redis::KeySchema& schema, const std::string& rule,
    std::size_t max_events, const trace::TraceOptions& options, const std::atomic<bool>* cancel,
    const std::function<void(double)>& progress) {
  if (Status why = redis::KeySchema::check_rule(rule); !why.ok()) {
    return redis::make_redis_error(redis::ErrorKind::usage, "rule: " + why.error());
  }
  const std::string key = schema.decisions_key(rule);
  trace::TraceLoad load;
  std::string start = "-";
  std::int64_t last_t = INT64_MIN;
  double total = 0;  // entries to read, for progress
  if (progress) {
    auto len = c.command({"XLEN", key});
    if (!len) return len.error();
    if (auto n = len->as_integer()) {
      total =
          static_cast<double>(std::min<std::int64_t>(*n, static_cast<std::int64_t>(max_events)));
    }
  }
  while (load.lines < max_events) {
    if (progress && total > 0) progress(std::min(1.0, static_cast<double>(load.lines) / total));
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      return redis::make_redis_error(redis::ErrorKind::usage, std::string(trace::kLoadCancelled));
    }
    const std::size_t want = std::min(kPage, max_events - load.lines);
    auto page = c.command({"XRANGE", key, start, "+", "COUNT", std::to_string(want)});
    if (!page) return page.error();
    if (!page->is_array() || page->elements.empty()) break;
    for (const auto& entry : page->elements) {
      const std::size_t n = ++load.lines;
      if (!entry.is_array() || entry.elements.size() != 2 || !entry.elements[1].is_array()) {
        error(load, options, n, "not a stream entry");
        continue;
      }
      start = "(" + entry.elements[0].str;  // exclusive: continue after this id
      std::optional<double> t;
      std::optional<double> cost;
      std::string who;
      const std::string* model = nullptr;
      const std::string* tokens = nullptr;
      const auto& fields = entry.elements[1].elements;
      for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
        const std::string& f = fields[i].str;
        const std::string& v = fields[i + 1].str;
        if (f == "t") t = parse_finite(v);
        if (f == "key") who = v;
        if (f == "model") model = &v;
        if (f == "tokens") tokens = &v;
        // A composite's costs are "c1,c2,...": the first limit's cost (requests) counts.
        if (f == "cost") cost = parse_finite(v.substr(0, v.find(',')));
      }
      // Redis TIME gives whole µs; up to 9e15 µs (the 9e9 s a trace allows) keeps ns in int64.
      if (!t || *t < 0 || *t > 9e15) {
        error(load, options, n, "entry " + entry.elements[0].str + ": field t is not a time in µs");
        continue;
      }
      if (!cost || *cost <= 0) {
        error(load, options, n,
              "entry " + entry.elements[0].str + ": field cost is not a number > 0");
        continue;
      }
      if (who.empty()) {
        error(load, options, n, "entry " + entry.elements[0].str + ": no key");
        continue;
      }
      std::optional<std::uint32_t> llm_tokens;
      if (tokens != nullptr) {
        std::uint32_t v = 0;
        auto [p, ec] = std::from_chars(tokens->data(), tokens->data() + tokens->size(), v);
        if (tokens->empty() || ec != std::errc{} || p != tokens->data() + tokens->size() ||
            v == trace::Trace::kNoTokens) {
          error(load, options, n,
                "entry " + entry.elements[0].str + ": field tokens is not a count of tokens");
          continue;
        }
        llm_tokens = v;
      }
      const std::int64_t t_ns = static_cast<std::int64_t>(*t) * 1000;
      if (t_ns < last_t) {
        error(load, options, n,
              "entry " + entry.elements[0].str + ": t is before the previous entry's");
        continue;
      }
      last_t = t_ns;
      load.trace.add(t_ns, who, *cost,
                     model != nullptr ? std::string_view(*model) : std::string_view(), rule,
                     llm_tokens);
    }
    if (page->elements.size() < want) break;
  }
  return load;
}

}  // namespace limitscope::tuner
