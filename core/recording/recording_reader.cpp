#include "core/recording/recording_reader.h"

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "core/common/decimal_time.h"
#include "core/common/json_member_text.h"

namespace limitscope {
namespace {

using nlohmann::json;

// A bad line: the message without the "FILE:LINE: " prefix.
struct LineError {
  std::string message;
};

const json& field(const json& j, const char* name, const char* type) {
  const auto it = j.find(name);
  if (it == j.end()) throw LineError{std::string(type) + " line: missing \"" + name + "\""};
  return *it;
}

std::int64_t int_field(const json& j, const char* name, const char* type) {
  const json& v = field(j, name, type);
  if (!v.is_number_integer())
    throw LineError{std::string(type) + " line: \"" + name + "\" must be an integer"};
  return v.get<std::int64_t>();
}

std::string string_field(const json& j, const char* name, const char* type) {
  const json& v = field(j, name, type);
  if (!v.is_string())
    throw LineError{std::string(type) + " line: \"" + name + "\" must be a string"};
  return v.get<std::string>();
}

// A number, or "NaN" / "+Inf" / "-Inf" as the writer spells non-finite values.
double number(const json& v, const std::string& what) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "+Inf") return std::numeric_limits<double>::infinity();
    if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  }
  throw LineError{what + " must be a number"};
}

double number_field(const json& j, const char* name, const char* type) {
  return number(field(j, name, type), std::string(type) + " line: \"" + name + "\"");
}

bool bool_field(const json& j, const char* name, const char* type,
                std::optional<bool> fallback = std::nullopt) {
  const auto it = j.find(name);
  if (it == j.end() && fallback) return *fallback;
  const json& v = field(j, name, type);
  if (!v.is_boolean())
    throw LineError{std::string(type) + " line: \"" + name + "\" must be true or false"};
  return v.get<bool>();
}

const json& array_field(const json& j, const char* name, const char* type) {
  const json& v = field(j, name, type);
  if (!v.is_array())
    throw LineError{std::string(type) + " line: \"" + name + "\" must be an array"};
  return v;
}

AlertState alert_state(const std::string& s) {
  if (s == "firing") return AlertState::firing;
  if (s == "pending") return AlertState::pending;
  if (s == "resolved") return AlertState::resolved;
  if (s == "inactive") return AlertState::inactive;
  if (s == "no data") return AlertState::no_data;
  throw LineError{"alerts line: unknown state \"" + s + "\""};
}

class Reader {
 public:
  explicit Reader(Recording& r) : r_(r) { r_.names.emplace_back(); }

  void header(const json& j) {
    if (!j.is_object() || j.value("type", "") != "header") {
      throw LineError{"not a limitscope recording (the first line must be its header)"};
    }
    if (j.value("format", "") != kRecordingFormat) {
      throw LineError{"not a limitscope recording (format is not \"" +
                      std::string(kRecordingFormat) + "\")"};
    }
    const std::int64_t version = int_field(j, "version", "header");
    if (version != kRecordingVersion) {
      throw LineError{"unknown recording version " + std::to_string(version) +
                      " (this build reads version " + std::to_string(kRecordingVersion) + ")"};
    }
    r_.header.source = string_field(j, "source", "header");
    r_.header.start_ms = int_field(j, "start_ms", "header");
    r_.header.recording_started_ms = int_field(j, "recording_started_ms", "header");
  }

  /// @param text the line as read: a request's time comes from its text, to the nanosecond
  void line(const json& j, std::string_view text) {
    text_ = text;
    if (!j.is_object()) throw LineError{"expected a JSON object"};
    const auto type_it = j.find("type");
    if (type_it == j.end() || !type_it->is_string()) throw LineError{"missing \"type\""};
    const auto& type = type_it->get_ref<const std::string&>();
    if (r_.end_ms) throw LineError{"a " + type + " line after the end line"};
    pending_time_.reset();
    if (type == "series") {
      series(j);
    } else if (type == "samples") {
      samples(j);
    } else if (type == "request") {
      request(j);
    } else if (type == "key") {
      key(j);
    } else if (type == "step") {
      step(j);
    } else if (type == "alerts") {
      alerts(j);
    } else if (type == "end") {
      const std::int64_t t = int_field(j, "t_ms", "end");
      time_ms(static_cast<double>(t));
      r_.end_ms = t;
    } else {
      throw LineError{"unknown line type \"" + type + "\""};
    }
    // The line was good as a whole: its time counts.
    if (pending_time_) {
      const double t = *pending_time_;
      if (!any_time_) r_.first_ms = static_cast<std::int64_t>(std::floor(t));
      any_time_ = true;
      last_ = t;
      r_.last_ms = static_cast<std::int64_t>(std::floor(t));
    }
  }

 private:
  // Lines come in time order; `t` in (fractional) ms since the epoch.
  void time_ms(double t) {
    if (any_time_ && t < last_) {
      throw LineError{"time goes back (" +
                      std::to_string(static_cast<std::int64_t>(std::floor(t))) + " ms after " +
                      std::to_string(static_cast<std::int64_t>(std::floor(last_))) + " ms)"};
    }
    pending_time_ = t;
  }

  void series(const json& j) {
    const std::int64_t id = int_field(j, "id", "series");
    if (id != static_cast<std::int64_t>(r_.series.size())) {
      throw LineError{"series line: id " + std::to_string(id) + " out of sequence (expected " +
                      std::to_string(r_.series.size()) + ")"};
    }
    const json& labels = field(j, "labels", "series");
    if (!labels.is_object()) throw LineError{"series line: \"labels\" must be an object"};
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const auto& [n, v] : labels.items()) {
      if (!v.is_string()) throw LineError{"series line: label \"" + n + "\" must be a string"};
      pairs.emplace_back(n, v.get<std::string>());
    }
    r_.series.push_back(metrics::Labels::from_pairs(std::move(pairs)));
  }

  void samples(const json& j) {
    RecordedSamples s;
    s.t_ms = int_field(j, "t_ms", "samples");
    time_ms(static_cast<double>(s.t_ms));
    for (const json& v : array_field(j, "v", "samples")) {
      if (!v.is_array() || v.size() != 2 || !v[0].is_number_unsigned()) {
        throw LineError{"samples line: each value must be [series id, value]"};
      }
      const auto id = v[0].get<std::uint64_t>();
      if (id >= r_.series.size())
        throw LineError{"samples line: unknown series id " + std::to_string(id)};
      s.values.emplace_back(static_cast<std::uint32_t>(id), number(v[1], "samples line: a value"));
    }
    r_.samples.push_back(std::move(s));
  }

  std::uint32_t name(std::string s) {
    auto [it, is_new] = name_ids_.try_emplace(s, static_cast<std::uint32_t>(r_.names.size()));
    if (is_new) r_.names.push_back(std::move(s));
    return it->second;
  }

  void request(const json& j) {
    RecordedRequest q;
    const double t = number_field(j, "t", "request");
    if (!std::isfinite(t)) throw LineError{"request line: \"t\" must be finite"};
    // Six decimals before nanoseconds were kept, nine since: both read exactly from the text.
    const auto exact =
        decimal_seconds_to_ns(json_member_text(text_, "t").value_or(std::string_view{}));
    q.t_ns = exact ? *exact : std::llround(t * 1e9);
    time_ms(t * 1e3);
    q.key = name(string_field(j, "key", "request"));
    q.cost = number_field(j, "cost", "request");
    q.model = j.contains("model") ? name(string_field(j, "model", "request")) : 0;
    q.tier = j.contains("tier") ? name(string_field(j, "tier", "request")) : 0;
    q.allowed = bool_field(j, "allowed", "request");
    q.degraded = bool_field(j, "degraded", "request", false);
    q.reason = j.contains("reason") ? name(string_field(j, "reason", "request")) : 0;
    q.limit = j.contains("limit") ? name(string_field(j, "limit", "request")) : 0;
    q.remaining = j.contains("remaining") ? number_field(j, "remaining", "request") : 0;
    if (const auto it = j.find("retry_after"); it != j.end() && !it->is_null()) {
      q.retry_after_s = number(*it, "request line: \"retry_after\"");
    }
    q.attempt =
        j.contains("attempt") ? static_cast<std::int32_t>(int_field(j, "attempt", "request")) : 0;
    q.llm_tokens = j.contains("llm_tokens") ? int_field(j, "llm_tokens", "request") : -1;
    if (j.contains("llm_tokens") && q.llm_tokens < 0)
      throw LineError{"request line: \"llm_tokens\" must be >= 0"};
    q.spend = j.contains("spend") ? number_field(j, "spend", "request") : 0;
    r_.requests.push_back(q);
  }

  void key(const json& j) {
    const std::int64_t id = int_field(j, "id", "key");
    if (id != static_cast<std::int64_t>(r_.keys.size())) {
      throw LineError{"key line: id " + std::to_string(id) + " out of sequence (expected " +
                      std::to_string(r_.keys.size()) + ")"};
    }
    RecordedKey k;
    k.api_key = string_field(j, "key", "key");
    k.model = string_field(j, "model", "key");
    k.tier = string_field(j, "tier", "key");
    k.algorithm = string_field(j, "algorithm", "key");
    k.parameters = string_field(j, "parameters", "key");
    k.capacity = number_field(j, "capacity", "key");
    // Optional: recordings made before the field existed, and of sources without shards.
    if (j.contains("node")) k.node = string_field(j, "node", "key");
    if (j.contains("name")) k.name = string_field(j, "name", "key");
    r_.keys.push_back(std::move(k));
  }

  void step(const json& j) {
    RecordedStep s;
    s.t_ms = int_field(j, "t_ms", "step");
    time_ms(static_cast<double>(s.t_ms));
    for (const json& v : array_field(j, "keys", "step")) {
      if (!v.is_array() || v.size() != 8 || !v[0].is_number_unsigned()) {
        throw LineError{
            "step line: each key must be [id, level, occupancy, requests/s, 429/s, spend, "
            "quota burn, last seen ms]"};
      }
      RecordedKeyValues k;
      const auto id = v[0].get<std::uint64_t>();
      if (id >= r_.keys.size()) throw LineError{"step line: unknown key id " + std::to_string(id)};
      k.id = static_cast<std::uint32_t>(id);
      k.level = number(v[1], "step line: a level");
      if (!v[2].is_null()) k.occupancy = number(v[2], "step line: an occupancy");
      k.requests_per_s = number(v[3], "step line: requests/s");
      k.rejected_per_s = number(v[4], "step line: 429/s");
      k.spend = number(v[5], "step line: spend");
      k.quota_burn = number(v[6], "step line: quota burn");
      if (!v[7].is_number_integer()) throw LineError{"step line: last seen must be an integer"};
      k.last_seen_ms = v[7].get<std::int64_t>();
      s.keys.push_back(k);
    }
    for (const json& i : array_field(j, "incidents", "step")) {
      if (!i.is_string()) throw LineError{"step line: incidents must be strings"};
      s.incidents.push_back(i.get<std::string>());
    }
    const std::int64_t dropped = int_field(j, "dropped_samples", "step");
    s.dropped_samples = dropped > 0 ? static_cast<std::uint64_t>(dropped) : 0;
    // Optional (docs/recording.md): sources and protection when they changed, else as before.
    const RecordedStep* before = r_.steps.empty() ? nullptr : &r_.steps.back();
    s.sources = j.contains("sources") ? step_sources(j["sources"])
                : before              ? before->sources
                                      : nullptr;
    s.protection = j.contains("protection") ? step_protection(j["protection"])
                   : before                 ? before->protection
                                            : nullptr;
    if (j.contains("events")) {
      for (const json& e : array_field(j, "events", "step")) {
        if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_string()) {
          throw LineError{"step line: each event must be [t_ms, text]"};
        }
        r_.events.push_back(
            SourceEvent{e[0].get<std::int64_t>(), e[1].get<std::string>(), r_.events.size() + 1});
      }
    }
    s.events_through = r_.events.size();
    r_.steps.push_back(std::move(s));
  }

  // [start_ms, end_ms or null]; the end not before the start.
  static void interval(const json& v, std::int64_t& start, std::optional<std::int64_t>& end,
                       const char* what) {
    if (!v.is_array() || v.size() < 2 || !v[0].is_number_integer() ||
        !(v[1].is_null() || v[1].is_number_integer())) {
      throw LineError{std::string("step line: each ") + what +
                      " must be [start_ms, end_ms or null, ...]"};
    }
    start = v[0].get<std::int64_t>();
    if (!v[1].is_null()) end = v[1].get<std::int64_t>();
    if (end && *end < start)
      throw LineError{std::string("step line: ") + what + " ends before it starts"};
  }

  static std::shared_ptr<const std::vector<SourceStatus>> step_sources(const json& j) {
    if (!j.is_array()) throw LineError{"step line: \"sources\" must be an array"};
    auto out = std::make_shared<std::vector<SourceStatus>>();
    for (const json& v : j) {
      if (!v.is_object()) throw LineError{"step line: each source must be an object"};
      SourceStatus src;
      src.kind = string_field(v, "kind", "step");
      src.name = string_field(v, "name", "step");
      for (const json& m : array_field(v, "metrics", "step")) {
        if (!m.is_string()) throw LineError{"step line: a source's metrics must be strings"};
        src.metrics.push_back(m.get<std::string>());
      }
      for (const json& o : array_field(v, "outages", "step")) {
        SourceStatus::Interval iv;
        interval(o, iv.start_ms, iv.end_ms, "outage");
        src.outages.push_back(iv);
      }
      src.down = !src.outages.empty() && !src.outages.back().end_ms;
      out->push_back(std::move(src));
    }
    return out;
  }

  static std::shared_ptr<const ProtectionStatus> step_protection(const json& j) {
    if (!j.is_object()) throw LineError{"step line: \"protection\" must be an object"};
    auto p = std::make_shared<ProtectionStatus>();
    p->unprotected = bool_field(j, "unprotected", "step");
    p->since_ms = int_field(j, "since_ms", "step");
    p->admitted_unchecked = number_field(j, "admitted_unchecked", "step");
    p->circuit_state = number_field(j, "circuit_state", "step");
    for (const json& v : array_field(j, "intervals", "step")) {
      ProtectionStatus::Interval iv;
      interval(v, iv.start_ms, iv.end_ms, "fail-open interval");
      if (v.size() != 3)
        throw LineError{
            "step line: each fail-open interval must be [start_ms, end_ms or null, admitted]"};
      iv.admitted_unchecked = number(v[2], "step line: a fail-open interval's admitted");
      p->intervals.push_back(iv);
    }
    return p;
  }

  void alerts(const json& j) {
    RecordedAlerts a;
    a.t_ms = int_field(j, "t_ms", "alerts");
    time_ms(static_cast<double>(a.t_ms));
    for (const json& v : array_field(j, "alerts", "alerts")) {
      if (!v.is_object()) throw LineError{"alerts line: each alert must be an object"};
      AlertRow row;
      row.rule = string_field(v, "rule", "alerts");
      row.state = alert_state(string_field(v, "state", "alerts"));
      row.since_ms = int_field(v, "since_ms", "alerts");
      row.for_ms =
          v.contains("for_ms") ? std::max<std::int64_t>(0, int_field(v, "for_ms", "alerts")) : 0;
      row.value = number_field(v, "value", "alerts");
      row.labels = string_field(v, "labels", "alerts");
      row.severity = string_field(v, "severity", "alerts");
      row.summary = string_field(v, "summary", "alerts");
      if (v.contains("entity")) row.entity = string_field(v, "entity", "alerts");
      a.alerts.push_back(std::move(row));
    }
    for (const json& v : array_field(j, "intervals", "alerts")) {
      if (!v.is_object()) throw LineError{"alerts line: each interval must be an object"};
      AlertInterval iv;
      iv.rule = string_field(v, "rule", "alerts");
      iv.start_ms = int_field(v, "start_ms", "alerts");
      const json& end = field(v, "end_ms", "alerts");
      iv.open = end.is_null();
      iv.end_ms = iv.open ? a.t_ms : int_field(v, "end_ms", "alerts");
      iv.firing = bool_field(v, "firing", "alerts");
      a.intervals.push_back(std::move(iv));
    }
    r_.alerts.push_back(std::move(a));
  }

  Recording& r_;
  bool any_time_ = false;
  double last_ = 0;                     // ms
  std::optional<double> pending_time_;  // the current line's time, until the line is whole
  std::string_view text_;               // the current line's text
  std::map<std::string, std::uint32_t> name_ids_;
};

}  // namespace

DecisionRow Recording::decision(const RecordedRequest& r) const {
  DecisionRow d;
  d.t_ns = r.t_ns;
  d.api_key = names[r.key];
  d.tier = names[r.tier];
  d.model = names[r.model];
  d.cost = r.cost;
  d.allowed = r.allowed;
  d.degraded = r.degraded;
  d.reason = names[r.reason];
  d.limit = names[r.limit];
  d.remaining = r.remaining;
  if (r.retry_after_s >= 0) d.retry_after_s = r.retry_after_s;
  d.attempt = r.attempt;
  d.llm_tokens = r.llm_tokens;
  d.spend = r.spend;
  return d;
}

RecordingLoad read_recording(std::istream& in, const std::string& name) {
  RecordingLoad load;
  Reader reader(load.recording);
  std::string text;
  std::size_t line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    const bool complete = !in.eof();  // getline stopped at a newline, not at the end of the file
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      json j;
      try {
        j = json::parse(text);
      } catch (const json::parse_error& e) {
        if (!complete) throw LineError{"truncated last line (the recording stopped mid-write)"};
        throw LineError{"bad JSON at column " + std::to_string(e.byte)};
      }
      if (!load.has_header) {
        reader.header(j);
        load.has_header = true;
      } else {
        reader.line(j, text);
      }
      load.recording.lines = line_no;
    } catch (const LineError& e) {
      load.error = name + ":" + std::to_string(line_no) + ": " + e.message;
      return load;
    } catch (const json::exception& e) {
      // A field of the wrong shape that the checks above did not name (numbers out of range).
      load.error = name + ":" + std::to_string(line_no) + ": bad value (" + e.what() + ")";
      return load;
    }
  }
  if (!load.has_header)
    load.error = name + ":" + std::to_string(line_no + 1) + ": empty recording (no header line)";
  return load;
}

}  // namespace limitscope
