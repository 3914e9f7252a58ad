#include "core/probe/limiter_profile.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/probe/glob_match.h"

namespace limitscope::probe {

using nlohmann::json;

namespace {

struct KindName {
  ProfileKind kind;
  std::string_view name;
};
constexpr KindName kKinds[] = {
    {ProfileKind::limitscope, "limitscope"},
    {ProfileKind::token_bucket_hash, "token_bucket_hash"},
    {ProfileKind::sliding_window_zset, "sliding_window_zset"},
    {ProfileKind::gcra_tat, "gcra_tat"},
    {ProfileKind::counter_ttl, "counter_ttl"},
    {ProfileKind::fixed_window_counter, "fixed_window_counter"},
};

std::string kind_list() {
  std::string out;
  for (const auto& k : kKinds) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

// Throws this with the JSON path; parse_profiles turns it into an Error.
struct ProfileError {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw ProfileError{path + ": " + reason};
}

std::string string_field(const json& obj, const std::string& path, const char* name) {
  const auto it = obj.find(name);
  if (it == obj.end()) fail(path + "." + name, "required");
  if (!it->is_string() || it->get<std::string>().empty()) {
    fail(path + "." + name, "must be a non-empty string");
  }
  return it->get<std::string>();
}

std::optional<double> positive_number(const json& obj, const std::string& path, const char* name) {
  const auto it = obj.find(name);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0) {
    fail(path + "." + name, "must be a number > 0");
  }
  return it->get<double>();
}

LimiterProfile parse_one(const json& p, const std::string& path) {
  if (!p.is_object()) fail(path, "must be an object");
  for (const auto& [k, v] : p.items()) {
    static const char* kKnown[] = {"name",     "match",  "kind",   "fields", "time_unit",
                                   "capacity", "refill", "window", "limit"};
    bool known = false;
    for (const char* n : kKnown) known = known || k == n;
    if (!known) fail(path + "." + k, "unknown field");
  }
  LimiterProfile out;
  out.name = string_field(p, path, "name");
  out.match = string_field(p, path, "match");
  const std::string kind = string_field(p, path, "kind");
  const auto parsed_kind = parse_profile_kind(kind);
  if (!parsed_kind) fail(path + ".kind", "'" + kind + "' is not one of " + kind_list());
  out.kind = *parsed_kind;

  if (auto it = p.find("time_unit"); it != p.end()) {
    const auto unit = it->is_string() ? parse_time_unit(it->get<std::string>()) : std::nullopt;
    if (!unit) fail(path + ".time_unit", "must be one of s, ms, us, ns");
    out.time_unit = *unit;
  }
  if (auto it = p.find("fields"); it != p.end()) {
    if (!it->is_object()) fail(path + ".fields", "must be an object");
    for (const auto& [k, v] : it->items()) {
      if (k != "tokens" && k != "updated")
        fail(path + ".fields." + k, "unknown field (tokens, updated)");
      if (!v.is_string() || v.get<std::string>().empty()) {
        fail(path + ".fields." + k, "must be a non-empty string");
      }
    }
    out.tokens_field = it->value("tokens", out.tokens_field);
    out.updated_field = it->value("updated", out.updated_field);
  }
  out.capacity = positive_number(p, path, "capacity");
  out.limit = positive_number(p, path, "limit");
  if (auto it = p.find("refill"); it != p.end()) {
    if (!it->is_string()) fail(path + ".refill", "must be a rate with a unit, e.g. \"10/s\"");
    auto rate = parse_rate(it->get<std::string>());
    if (!rate) fail(path + ".refill", rate.error());
    out.refill = *rate;
  }
  if (auto it = p.find("window"); it != p.end()) {
    if (!it->is_string()) fail(path + ".window", "must be a duration with a unit, e.g. \"60s\"");
    auto d = parse_duration(it->get<std::string>());
    if (!d) fail(path + ".window", d.error());
    out.window = *d;
  }

  const std::string for_kind = "required for kind " + kind;
  switch (out.kind) {
    case ProfileKind::limitscope:
      break;
    case ProfileKind::token_bucket_hash:
      if (out.capacity.has_value() != out.refill.has_value()) {
        fail(path, "capacity and refill go together (give both, or neither to show stored tokens)");
      }
      break;
    case ProfileKind::gcra_tat:
      if (!out.capacity) fail(path + ".capacity", for_kind);
      if (!out.refill) fail(path + ".refill", for_kind);
      break;
    case ProfileKind::sliding_window_zset:
    case ProfileKind::fixed_window_counter:
      if (!out.window) fail(path + ".window", for_kind);
      if (!out.limit) fail(path + ".limit", for_kind);
      break;
    case ProfileKind::counter_ttl:
      if (!out.limit) fail(path + ".limit", for_kind);
      break;
  }
  return out;
}

}  // namespace

std::string_view to_string(ProfileKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

std::optional<ProfileKind> parse_profile_kind(std::string_view text) {
  for (const auto& k : kKinds) {
    if (k.name == text) return k.kind;
  }
  return std::nullopt;
}

std::string_view to_string(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::s:
      return "s";
    case TimeUnit::ms:
      return "ms";
    case TimeUnit::us:
      return "us";
    case TimeUnit::ns:
      return "ns";
  }
  return "?";
}

std::optional<TimeUnit> parse_time_unit(std::string_view text) {
  if (text == "s") return TimeUnit::s;
  if (text == "ms") return TimeUnit::ms;
  if (text == "us") return TimeUnit::us;
  if (text == "ns") return TimeUnit::ns;
  return std::nullopt;
}

double us_per_unit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::s:
      return 1e6;
    case TimeUnit::ms:
      return 1e3;
    case TimeUnit::us:
      return 1;
    case TimeUnit::ns:
      return 1e-3;
  }
  return 1;
}

std::string LimiterProfile::describe() const {
  std::ostringstream s;
  s << name << ": " << to_string(kind) << " " << match;
  if (capacity) s << " C=" << *capacity;
  if (refill) s << " r=" << refill->to_string();
  if (limit) s << " L=" << *limit;
  if (window) s << " W=" << format_duration(*window);
  return s.str();
}

Expected<std::vector<LimiterProfile>> parse_profiles(std::string_view json_text) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    return make_error(std::string("profiles: not valid JSON: ") + e.what());
  } catch (const json::out_of_range& e) {
    // A number beyond double (1e999) is valid JSON the parser cannot hold.
    return make_error(std::string("profiles: a number is out of range: ") + e.what());
  }
  try {
    if (!doc.is_object()) fail("(document)", "must be an object with a \"profiles\" array");
    const auto it = doc.find("profiles");
    if (it == doc.end() || !it->is_array()) fail("profiles", "required, an array");
    std::vector<LimiterProfile> out;
    for (std::size_t i = 0; i < it->size(); ++i) {
      out.push_back(parse_one((*it)[i], "profiles[" + std::to_string(i) + "]"));
      for (std::size_t j = 0; j + 1 < out.size(); ++j) {
        if (out[j].name == out.back().name) {
          fail("profiles[" + std::to_string(i) + "].name",
               "'" + out.back().name + "' is used twice");
        }
      }
    }
    return out;
  } catch (const ProfileError& e) {
    return make_error(e.message);
  }
}

Expected<std::vector<LimiterProfile>> load_profiles_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("profiles file " + path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  auto parsed = parse_profiles(text.str());
  if (!parsed) return make_error("profiles file " + path + ": " + parsed.error());
  return parsed;
}

std::vector<LimiterProfile> builtin_profiles() {
  LimiterProfile own;
  own.name = "limitscope";
  own.match = "limitscope:{*}:s:*";
  own.kind = ProfileKind::limitscope;
  // A token bucket kept in a hash by another gateway: its fields and the unit of its time.
  const auto hash_bucket = [](std::string name, std::string match, std::string updated_field,
                              TimeUnit unit) {
    LimiterProfile p;
    p.name = std::move(name);
    p.match = std::move(match);
    p.kind = ProfileKind::token_bucket_hash;
    p.tokens_field = "tokens";
    p.updated_field = std::move(updated_field);
    p.time_unit = unit;
    return p;
  };
  std::vector<LimiterProfile> out{
      own, hash_bucket("rl-hash", "rl:*", "ts", TimeUnit::ms),
      hash_bucket("token-bucket-hash", "rate_limit:token_bucket:*", "last_update", TimeUnit::s)};
  for (auto& p : out) p.builtin = true;
  return out;
}

std::string profile_to_json(const LimiterProfile& p) {
  json j{{"name", p.name}, {"match", p.match}, {"kind", std::string(to_string(p.kind))}};
  if (p.kind == ProfileKind::token_bucket_hash) {
    j["fields"] = {{"tokens", p.tokens_field}, {"updated", p.updated_field}};
  }
  if (p.kind != ProfileKind::limitscope && p.kind != ProfileKind::counter_ttl) {
    j["time_unit"] = std::string(to_string(p.time_unit));
  }
  if (p.capacity) j["capacity"] = *p.capacity;
  if (p.refill) j["refill"] = p.refill->to_string();
  if (p.window) j["window"] = format_duration(*p.window);
  if (p.limit) j["limit"] = *p.limit;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const LimiterProfile* match_profile(const std::vector<LimiterProfile>& profiles,
                                    std::string_view key) {
  for (const auto& p : profiles) {
    if (glob_match(p.match, key)) return &p;
  }
  return nullptr;
}

}  // namespace limitscope::probe
