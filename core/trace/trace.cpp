#include "core/trace/trace.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/common/decimal_time.h"
#include "core/common/json_member_text.h"

namespace limitscope::trace {

namespace {

constexpr double kMaxTraceSeconds = 9e9;

struct Collector {
  TraceLoad& load;
  const TraceOptions& options;
  std::int64_t last_t = INT64_MIN;

  void error(std::size_t line, std::string message) {
    ++load.error_count;
    if (load.errors.size() < options.max_errors) load.errors.push_back({line, std::move(message)});
  }

  // Validates and appends one event; reports why not. `t_text` is the time as written, which
  // gives its nanoseconds exactly (a double of epoch seconds is 238 ns coarse).
  void accept(std::size_t line, double t_s, std::string_view t_text, std::string_view key,
              double cost, std::string_view model, std::string_view tier,
              std::optional<double> tokens = std::nullopt) {
    // Replay and the sweep compute spans in int64 nanoseconds: t up to 9e9 s (year 2255) keeps
    // any span inside it (a span of 1e12 s overflowed and indexed out of bounds).
    if (!std::isfinite(t_s) || t_s < 0 || t_s > kMaxTraceSeconds) {
      return error(line,
                   "t must be seconds from 0 to 9e9 (since the Unix epoch or the trace's start)");
    }
    if (key.empty()) return error(line, "key is empty");
    if (!std::isfinite(cost) || cost <= 0) return error(line, "cost must be a number > 0");
    if (tokens &&
        (!(*tokens >= 0) || *tokens >= Trace::kNoTokens || *tokens != std::floor(*tokens))) {
      return error(line, "tokens must be a whole number from 0 to 4294967294");
    }
    const auto exact = decimal_seconds_to_ns(t_text);
    const std::int64_t t_ns = exact ? *exact : static_cast<std::int64_t>(std::llround(t_s * 1e9));
    if (t_ns < last_t) {
      return error(line, "t " + std::to_string(t_s) +
                             " is before the previous event (the trace must be in time order)");
    }
    if (load.trace.keys.size() >= options.max_keys) {
      return error(line, "more than " + std::to_string(options.max_keys) + " distinct keys");
    }
    if (load.trace.models.size() >= 65535 || load.trace.tiers.size() >= 65535) {
      return error(line, "more than 65535 distinct models or tiers");
    }
    last_t = t_ns;
    load.trace.add(
        t_ns, key, cost, model, tier,
        tokens ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(*tokens)) : std::nullopt);
  }
};

std::optional<double> number(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '"')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  bool quoted = false;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] == '"') quoted = !quoted;
    if (i == line.size() || (line[i] == ',' && !quoted)) {
      out.push_back(trim(line.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

namespace {
std::uint32_t intern(std::unordered_map<std::string, std::uint32_t>& index,
                     std::vector<std::string>& names, std::string_view name) {
  auto it = index.find(std::string(name));
  if (it != index.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names.size());
  names.emplace_back(name);
  index.emplace(std::string(name), id);
  return id;
}
}  // namespace

std::uint32_t Trace::key_id(std::string_view key) {
  return intern(key_index_, keys, key);
}
std::uint16_t Trace::model_id(std::string_view model) {
  return static_cast<std::uint16_t>(intern(model_index_, models, model));
}
std::uint16_t Trace::tier_id(std::string_view tier) {
  return static_cast<std::uint16_t>(intern(tier_index_, tiers, tier));
}

void Trace::add(std::int64_t t_ns, std::string_view key, double cost, std::string_view model,
                std::string_view tier, std::optional<std::uint32_t> token_count) {
  const bool first_count = token_count.has_value() && tokens.empty();
  if (first_count) {
    tokens.reserve(events.capacity());
    tokens.assign(events.size(), kNoTokens);
  }
  if (first_count || !tokens.empty()) tokens.push_back(token_count.value_or(kNoTokens));
  TraceEvent e;
  e.t_ns = t_ns;
  e.cost = cost;
  e.key = key_id(key);
  e.model = model_id(model);
  e.tier = tier_id(tier);
  events.push_back(e);
}

double Trace::duration_s() const {
  if (events.size() < 2) return 0;
  return static_cast<double>(events.back().t_ns - events.front().t_ns) / 1e9;
}

TraceLoad parse_trace_jsonl(std::istream& in, const TraceOptions& options) {
  TraceLoad load;
  load.trace.events.reserve(options.reserve_events);
  Collector c{load, options};
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t n = ++load.lines;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      // parse_error, and out_of_range for a number like 1e999 that no double holds.
      c.error(n, "not a JSON object: " + std::string(e.what()).substr(0, 100));
      continue;
    }
    if (!j.is_object()) {
      c.error(n, "not a JSON object");
      continue;
    }
    const auto t = j.find("t");
    const auto key = j.find("key");
    if (t == j.end() || !t->is_number()) {
      c.error(n, "missing number field \"t\" (seconds)");
      continue;
    }
    if (key == j.end() || !key->is_string()) {
      c.error(n, "missing string field \"key\"");
      continue;
    }
    double cost = 1;
    if (auto it = j.find("cost"); it != j.end()) {
      if (!it->is_number()) {
        c.error(n, "\"cost\" must be a number");
        continue;
      }
      cost = it->get<double>();
    }
    std::optional<double> tokens;
    if (auto it = j.find("tokens"); it != j.end() && !it->is_null()) {
      if (!it->is_number()) {
        c.error(n, "\"tokens\" must be a number");
        continue;
      }
      tokens = it->get<double>();
    }
    std::string model;
    std::string tier;
    if (auto it = j.find("model"); it != j.end() && it->is_string()) model = it->get<std::string>();
    if (auto it = j.find("tier"); it != j.end() && it->is_string()) tier = it->get<std::string>();
    c.accept(n, t->get<double>(), json_member_text(line, "t").value_or(std::string_view{}),
             key->get<std::string>(), cost, model, tier, tokens);
  }
  return load;
}

TraceLoad parse_trace_csv(std::istream& in, const TraceOptions& options) {
  TraceLoad load;
  load.trace.events.reserve(options.reserve_events);
  Collector c{load, options};
  std::string line;
  int col_t = -1, col_key = -1, col_cost = -1, col_model = -1, col_tier = -1, col_tokens = -1;
  std::size_t columns = 0;
  bool header = false;
  while (std::getline(in, line)) {
    const std::size_t n = ++load.lines;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto cells = split_csv(line);
    if (!header) {
      header = true;
      columns = cells.size();
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto name = cells[i];
        const int idx = static_cast<int>(i);
        if (name == "t") col_t = idx;
        if (name == "key") col_key = idx;
        if (name == "cost") col_cost = idx;
        if (name == "model") col_model = idx;
        if (name == "tier") col_tier = idx;
        if (name == "tokens") col_tokens = idx;
      }
      if (col_t < 0 || col_key < 0) {
        c.error(
            n, "the header must name columns t and key (and optionally cost, model, tier, tokens)");
        return load;
      }
      continue;
    }
    if (cells.size() != columns) {
      c.error(n, "expected " + std::to_string(columns) + " columns, found " +
                     std::to_string(cells.size()));
      continue;
    }
    const auto t = number(cells[static_cast<std::size_t>(col_t)]);
    if (!t) {
      c.error(n, "t '" + std::string(cells[static_cast<std::size_t>(col_t)]) + "' is not a number");
      continue;
    }
    double cost = 1;
    if (col_cost >= 0) {
      const auto v = number(cells[static_cast<std::size_t>(col_cost)]);
      if (!v) {
        c.error(n, "cost '" + std::string(cells[static_cast<std::size_t>(col_cost)]) +
                       "' is not a number");
        continue;
      }
      cost = *v;
    }
    // An empty tokens cell means "not known" for this request, as a missing JSON field does.
    std::optional<double> tokens;
    if (col_tokens >= 0 && !cells[static_cast<std::size_t>(col_tokens)].empty()) {
      tokens = number(cells[static_cast<std::size_t>(col_tokens)]);
      if (!tokens) {
        c.error(n, "tokens '" + std::string(cells[static_cast<std::size_t>(col_tokens)]) +
                       "' is not a number");
        continue;
      }
    }
    c.accept(
        n, *t, cells[static_cast<std::size_t>(col_t)], cells[static_cast<std::size_t>(col_key)],
        cost, col_model >= 0 ? cells[static_cast<std::size_t>(col_model)] : std::string_view{},
        col_tier >= 0 ? cells[static_cast<std::size_t>(col_tier)] : std::string_view{}, tokens);
  }
  if (!header) c.error(0, "empty file: no header line");
  return load;
}

Expected<TraceLoad> load_trace_file(const std::string& path, const TraceOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("trace " + path + ": cannot be read");
  int ch = 0;
  while ((ch = in.peek()) != EOF && std::isspace(ch) != 0) in.get();
  const bool jsonl = ch == '{';
  in.clear();
  in.seekg(0);
  return jsonl ? parse_trace_jsonl(in, options) : parse_trace_csv(in, options);
}

}  // namespace limitscope::trace
