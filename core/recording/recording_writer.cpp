#include "core/recording/recording_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/common/quoted_string.h"

namespace limitscope {
namespace {

void put_string(std::string& out, std::string_view s) {
  append_quoted(out, s, ControlEscape::json_unicode);
}

// Shortest decimal that reads back to the same double; non-finite values as Prometheus
// spells them, in quotes (JSON has no NaN).
void put_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "\"NaN\"";
  } else if (std::isinf(v)) {
    out += v > 0 ? "\"+Inf\"" : "\"-Inf\"";
  } else {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, ec == std::errc() ? end : buf);
  }
}

void put_int(std::string& out, std::int64_t v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? end : buf);
}

// Seconds since the epoch with exactly nine decimals: the nanoseconds read back exactly (the
// reader converts the text, not a double).
void put_seconds(std::string& out, std::int64_t t_ns) {
  if (t_ns < 0) {
    out += '-';
    if (t_ns == INT64_MIN) {
      out += "9223372036.854775808";
      return;
    }
    t_ns = -t_ns;
  }
  put_int(out, t_ns / 1'000'000'000);
  char buf[12];
  std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(t_ns % 1'000'000'000));
  out += buf;
}

// `[start_ms,end_ms or null` of an interval, after a comma unless it is the first; the caller
// closes it (after any more fields).
void open_interval(std::string& out, bool first, std::int64_t start_ms,
                   const std::optional<std::int64_t>& end_ms) {
  out += first ? "[" : ",[";
  put_int(out, start_ms);
  out += ',';
  if (end_ms) {
    put_int(out, *end_ms);
  } else {
    out += "null";
  }
}

// [{"kind":..,"name":..,"metrics":[..],"outages":[[start_ms,end_ms or null],..]},..]
std::string sources_json(const std::vector<SourceStatus>& sources) {
  std::string out = "[";
  for (const SourceStatus& src : sources) {
    out += out.size() > 1 ? ",{\"kind\":" : "{\"kind\":";
    put_string(out, src.kind);
    out += ",\"name\":";
    put_string(out, src.name);
    out += ",\"metrics\":[";
    for (std::size_t i = 0; i < src.metrics.size(); ++i) {
      if (i > 0) out += ',';
      put_string(out, src.metrics[i]);
    }
    out += "],\"outages\":[";
    for (std::size_t i = 0; i < src.outages.size(); ++i) {
      open_interval(out, i == 0, src.outages[i].start_ms, src.outages[i].end_ms);
      out += ']';
    }
    out += "]}";
  }
  return out + ']';
}

// {"unprotected":b,"since_ms":n,"admitted_unchecked":x,"circuit_state":x,"intervals":[[start,end or
// null,admitted],..]}
std::string protection_json(const ProtectionStatus& p) {
  std::string out = p.unprotected ? "{\"unprotected\":true" : "{\"unprotected\":false";
  out += ",\"since_ms\":";
  put_int(out, p.since_ms);
  out += ",\"admitted_unchecked\":";
  put_number(out, p.admitted_unchecked);
  out += ",\"circuit_state\":";
  put_number(out, p.circuit_state);
  out += ",\"intervals\":[";
  for (std::size_t i = 0; i < p.intervals.size(); ++i) {
    open_interval(out, i == 0, p.intervals[i].start_ms, p.intervals[i].end_ms);
    out += ',';
    put_number(out, p.intervals[i].admitted_unchecked);
    out += ']';
  }
  return out + "]}";
}

}  // namespace

RecordingWriter::RecordingWriter(std::unique_ptr<std::ostream> out, std::string name,
                                 const Clock& clock, Nanos flush_every, std::size_t max_step_rows)
    : out_(std::move(out)),
      name_(std::move(name)),
      clock_(clock),
      flush_every_(flush_every),
      last_flush_(clock.now()),
      max_step_rows_(max_step_rows) {}

RecordingWriter::~RecordingWriter() = default;

void RecordingWriter::write_line(const std::string& line) {
  if (failed_) return;
  out_->write(line.data(), static_cast<std::streamsize>(line.size()));
  out_->put('\n');
  ++lines_;
  dirty_ = true;
  if (!*out_) {
    failed_ = make_error(name_ + ": write failed");
    return;
  }
  (void)flush_if_due();  // its failure is failed_, which the public call returns
}

Status RecordingWriter::outcome() const {
  if (failed_) return *failed_;
  return {};
}

Status RecordingWriter::flush_if_due() {
  if (!dirty_ || failed_) return outcome();
  const Nanos now = clock_.now();
  if (now - last_flush_ < flush_every_) return {};
  out_->flush();
  last_flush_ = now;
  dirty_ = false;
  if (!*out_) failed_ = make_error(name_ + ": write failed");
  return outcome();
}

Status RecordingWriter::header(const RecordingHeader& h) {
  std::string line = "{\"type\":\"header\",\"format\":";
  put_string(line, kRecordingFormat);
  line += ",\"version\":";
  put_int(line, kRecordingVersion);
  line += ",\"source\":";
  put_string(line, h.source);
  line += ",\"start_ms\":";
  put_int(line, h.start_ms);
  line += ",\"recording_started_ms\":";
  put_int(line, h.recording_started_ms);
  line += '}';
  write_line(line);
  return outcome();
}

void RecordingWriter::define(const metrics::Labels& labels, std::int64_t& id) {
  if (id >= 0) return;
  id = next_series_id_++;
  std::string line = "{\"type\":\"series\",\"id\":";
  put_int(line, id);
  line += ",\"labels\":{";
  bool first = true;
  for (const auto& [n, v] : labels.pairs()) {
    if (!first) line += ',';
    first = false;
    put_string(line, n);
    line += ':';
    put_string(line, v);
  }
  line += "}}";
  write_line(line);
}

void RecordingWriter::put_sample(std::int64_t id, double value) {
  if (!pending_samples_.empty()) pending_samples_ += ',';
  pending_samples_ += '[';
  put_int(pending_samples_, id);
  pending_samples_ += ',';
  put_number(pending_samples_, value);
  pending_samples_ += ']';
}

void RecordingWriter::emit_samples(HeldSamples held,
                                   const std::set<std::string, std::less<>>* rows) {
  if (held != HeldSamples::keep) {
    for (const Held& h : held_) {
      if (held == HeldSamples::of_rows && rows->count(h.labels->get("api_key")) == 0) continue;
      define(*h.labels, *h.id);
      put_sample(*h.id, h.value);
    }
    held_.clear();
  }
  if (pending_samples_.empty()) return;
  std::string line = "{\"type\":\"samples\",\"t_ms\":";
  put_int(line, pending_t_ms_);
  line += ",\"v\":[";
  line += pending_samples_;
  line += "]}";
  pending_samples_.clear();
  write_line(line);
}

Status RecordingWriter::sample(const metrics::Labels& labels, metrics::Sample s) {
  if ((!pending_samples_.empty() || !held_.empty()) && s.t_ms != pending_t_ms_) emit_samples();
  auto [it, is_new] = series_ids_.try_emplace(labels, -1);
  pending_t_ms_ = s.t_ms;
  if (max_step_rows_ > 0 && !labels.get("api_key").empty()) {
    // A key's series: written with the step at this time if the key is among its rows.
    held_.push_back(Held{&it->first, &it->second, s.value});
    return outcome();
  }
  define(it->first, it->second);
  put_sample(it->second, s.value);
  return outcome();
}

Status RecordingWriter::request(const DecisionRow& d) {
  emit_samples();
  // The tuner's trace fields first (issue #8): t, key, cost, model, tier, allowed.
  std::string line = "{\"type\":\"request\",\"t\":";
  put_seconds(line, d.t_ns);
  line += ",\"key\":";
  put_string(line, d.api_key);
  line += ",\"cost\":";
  put_number(line, d.cost);
  line += ",\"model\":";
  put_string(line, d.model);
  line += ",\"tier\":";
  put_string(line, d.tier);
  line += d.allowed ? ",\"allowed\":true" : ",\"allowed\":false";
  if (d.degraded) line += ",\"degraded\":true";
  if (!d.reason.empty()) {
    line += ",\"reason\":";
    put_string(line, d.reason);
  }
  if (!d.limit.empty()) {
    line += ",\"limit\":";
    put_string(line, d.limit);
  }
  line += ",\"remaining\":";
  put_number(line, d.remaining);
  if (!d.allowed) {
    line += ",\"retry_after\":";
    if (d.retry_after_s) {
      put_number(line, *d.retry_after_s);
    } else {
      line += "null";
    }
  }
  line += ",\"attempt\":";
  put_int(line, d.attempt);
  if (d.llm_tokens >= 0) {  // unknown tokens are left out, not written as 0 (free)
    line += ",\"llm_tokens\":";
    put_int(line, d.llm_tokens);
  }
  line += ",\"spend\":";
  put_number(line, d.spend);
  line += '}';
  write_line(line);
  return outcome();
}

Status RecordingWriter::step(std::int64_t t_ms, const std::vector<KeyRow>& keys,
                             const std::vector<std::string>& incidents,
                             std::uint64_t dropped_samples, const StepStatus* status) {
  // The first max_step_rows rows (the source's order: a live Redis source's most pressure
  // first), and only their keys' samples of this time.
  const std::size_t n = max_step_rows_ > 0 ? std::min(max_step_rows_, keys.size()) : keys.size();
  std::set<std::string, std::less<>> rows;
  if (max_step_rows_ > 0) {
    for (std::size_t i = 0; i < n; ++i) rows.insert(keys[i].api_key);
  }
  emit_samples(HeldSamples::of_rows, &rows);
  std::string values;
  for (std::size_t i = 0; i < n; ++i) {
    const KeyRow& k = keys[i];
    std::string def;
    put_string(def, k.api_key);
    def += ",\"model\":";
    put_string(def, k.model);
    def += ",\"tier\":";
    put_string(def, k.tier);
    def += ",\"algorithm\":";
    put_string(def, k.algorithm);
    def += ",\"parameters\":";
    put_string(def, k.parameters);
    def += ",\"capacity\":";
    put_number(def, k.capacity);
    // Optional: only cluster sources know a shard, and other recordings stay as they were.
    if (!k.node.empty()) {
      def += ",\"node\":";
      put_string(def, k.node);
    }
    // Optional: what operators call the key ("acme-prod"), when the source knew a name.
    if (!k.name.empty() && k.name != k.api_key) {
      def += ",\"name\":";
      put_string(def, k.name);
    }
    auto [it, is_new] = key_ids_.try_emplace(def, static_cast<std::uint32_t>(key_ids_.size()));
    if (is_new) {
      std::string line = "{\"type\":\"key\",\"id\":";
      put_int(line, it->second);
      line += ",\"key\":";
      line += def;
      line += '}';
      write_line(line);
    }
    values += values.empty() ? "[" : ",[";
    put_int(values, it->second);
    values += ',';
    put_number(values, k.level);
    values += ',';
    if (k.occupancy) {
      put_number(values, *k.occupancy);
    } else {
      values += "null";
    }
    for (const double v : {k.requests_per_s, k.rejected_per_s, k.spend, k.quota_burn}) {
      values += ',';
      put_number(values, v);
    }
    values += ',';
    put_int(values, k.last_seen_ms);
    values += ']';
  }
  std::string line = "{\"type\":\"step\",\"t_ms\":";
  put_int(line, t_ms);
  line += ",\"keys\":[";
  line += values;
  line += "],\"incidents\":[";
  for (std::size_t i = 0; i < incidents.size(); ++i) {
    if (i > 0) line += ',';
    put_string(line, incidents[i]);
  }
  line += "],\"dropped_samples\":";
  put_int(line, static_cast<std::int64_t>(dropped_samples));
  if (status != nullptr) {
    // Optional fields (version 1 readers skip them): sources and protection when they changed
    // since the last step that carried them, events as they come.
    if (std::string src = sources_json(status->sources); src != "[]" && src != last_sources_) {
      line += ",\"sources\":";
      line += src;
      last_sources_ = std::move(src);
    }
    const bool seen =
        !status->protection.intervals.empty() || status->protection.circuit_state != 0;
    if (std::string prot = protection_json(status->protection); seen && prot != last_protection_) {
      line += ",\"protection\":";
      line += prot;
      last_protection_ = std::move(prot);
    }
    if (!status->events.empty()) {
      line += ",\"events\":[";
      for (std::size_t i = 0; i < status->events.size(); ++i) {
        line += i > 0 ? ",[" : "[";
        put_int(line, status->events[i].t_ms);
        line += ',';
        put_string(line, status->events[i].text);
        line += ']';
      }
      line += ']';
    }
  }
  line += '}';
  write_line(line);
  return outcome();
}

Status RecordingWriter::alerts(std::int64_t t_ms, const std::vector<AlertRow>& rows,
                               const std::vector<AlertInterval>& intervals) {
  std::string body = "\"alerts\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const AlertRow& a = rows[i];
    body += i > 0 ? ",{\"rule\":" : "{\"rule\":";
    put_string(body, a.rule);
    body += ",\"state\":";
    put_string(body, to_string(a.state));
    body += ",\"since_ms\":";
    put_int(body, a.since_ms);
    if (a.for_ms > 0) {  // so playback shows a pending alert's progress
      body += ",\"for_ms\":";
      put_int(body, a.for_ms);
    }
    body += ",\"value\":";
    put_number(body, a.value);
    body += ",\"labels\":";
    put_string(body, a.labels);
    body += ",\"severity\":";
    put_string(body, a.severity);
    body += ",\"summary\":";
    put_string(body, a.summary);
    if (!a.entity.empty()) {  // optional: the key it is about, by name
      body += ",\"entity\":";
      put_string(body, a.entity);
    }
    body += '}';
  }
  body += "],\"intervals\":[";
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    const AlertInterval& iv = intervals[i];
    body += i > 0 ? ",{\"rule\":" : "{\"rule\":";
    put_string(body, iv.rule);
    body += ",\"start_ms\":";
    put_int(body, iv.start_ms);
    body += ",\"end_ms\":";
    if (iv.open) {
      body += "null";
    } else {
      put_int(body, iv.end_ms);
    }
    body += iv.firing ? ",\"firing\":true}" : ",\"firing\":false}";
  }
  body += ']';
  if (body == last_alerts_) return outcome();
  emit_samples(HeldSamples::keep);  // the keys' samples of this time wait for its step
  std::string line = "{\"type\":\"alerts\",\"t_ms\":";
  put_int(line, t_ms);
  line += ',';
  line += body;
  line += '}';
  write_line(line);
  last_alerts_ = std::move(body);
  return outcome();
}

Status RecordingWriter::finish(std::int64_t t_ms) {
  emit_samples();
  std::string line = "{\"type\":\"end\",\"t_ms\":";
  put_int(line, t_ms);
  line += '}';
  write_line(line);
  if (!failed_) {
    out_->flush();
    dirty_ = false;
    if (!*out_) failed_ = make_error(name_ + ": write failed");
  }
  return outcome();
}

}  // namespace limitscope
