#include "core/probe/profile_detect.h"

#include <cmath>

#include "core/probe/key_reading.h"

namespace limitscope::probe {

namespace {

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

const char* const kTokenFields[] = {"tokens",    "tokens_left", "remaining",
                                    "available", "allowance",   "bucket"};
const char* const kTimeFields[] = {"ts",         "timestamp", "last_update", "last_refill",
                                   "updated_at", "updated",   "last",        "time"};

}  // namespace

std::optional<TimeUnit> time_unit_of(double value, std::int64_t now_us) {
  constexpr double kDayUs = 86'400e6;
  for (TimeUnit u : {TimeUnit::s, TimeUnit::ms, TimeUnit::us, TimeUnit::ns}) {
    if (std::abs(value * us_per_unit(u) - static_cast<double>(now_us)) < kDayUs) return u;
  }
  return std::nullopt;
}

std::string pattern_for(const std::string& key) {
  const auto cut = key.find_last_of(":_");
  if (cut == std::string::npos) return key;
  return key.substr(0, cut + 1) + "*";
}

std::optional<ProfileProposal> propose_profile(const KeySample& s, std::int64_t now_us) {
  ProfileProposal p;
  p.profile.name = "proposed-" + pattern_for(s.key);
  p.profile.match = pattern_for(s.key);
  if (s.type == "hash") {
    std::string tokens_field;
    std::string time_field;
    for (const char* f : kTokenFields) {
      if (tokens_field.empty() && s.fields.count(f) && number(s.fields.at(f))) tokens_field = f;
    }
    for (const char* f : kTimeFields) {
      if (time_field.empty() && s.fields.count(f) && number(s.fields.at(f))) time_field = f;
    }
    if (tokens_field.empty() || time_field.empty()) return std::nullopt;
    const auto unit = time_unit_of(*number(s.fields.at(time_field)), now_us);
    if (!unit) return std::nullopt;
    p.profile.kind = ProfileKind::token_bucket_hash;
    p.profile.tokens_field = tokens_field;
    p.profile.updated_field = time_field;
    p.profile.time_unit = *unit;
    p.needs = {"capacity", "refill"};
    p.evidence = "hash with fields " + tokens_field + ", " + time_field + " (" +
                 std::string(to_string(*unit)) + " since the epoch)";
    return p;
  }
  if (s.type == "zset") {
    if (!s.newest_score) return std::nullopt;
    const auto unit = time_unit_of(*s.newest_score, now_us);
    if (!unit) return std::nullopt;
    p.profile.kind = ProfileKind::sliding_window_zset;
    p.profile.time_unit = *unit;
    p.needs = {"window", "limit"};
    p.evidence = "sorted set whose scores are times (" + std::string(to_string(*unit)) + ")";
    return p;
  }
  if (s.type == "string") {
    const auto v = number(s.value);
    if (!v) return std::nullopt;
    if (const auto unit = time_unit_of(*v, now_us)) {
      p.profile.kind = ProfileKind::gcra_tat;
      p.profile.time_unit = *unit;
      p.needs = {"capacity", "refill"};
      p.evidence = "string holding a time (" + std::string(to_string(*unit)) + "): a GCRA TAT";
      return p;
    }
    if (const auto start = window_start_of(s.key);
        start && time_unit_of(static_cast<double>(*start), now_us)) {
      p.profile.kind = ProfileKind::fixed_window_counter;
      p.profile.time_unit = *time_unit_of(static_cast<double>(*start), now_us);
      p.needs = {"window", "limit"};
      p.evidence = "counter whose key ends with a window start";
      return p;
    }
    if (s.pttl_ms > 0 && *v >= 0) {
      p.profile.kind = ProfileKind::counter_ttl;
      p.needs = {"limit"};
      p.evidence = "counter with a TTL (the window's end)";
      return p;
    }
  }
  return std::nullopt;
}

redis::Result<KeySample> sample_key(redis::Connection& c, const std::string& key) {
  KeySample s;
  s.key = key;
  auto type = c.command({"TYPE", key});
  if (!type) return type.error();
  s.type = type->str;
  std::vector<std::vector<std::string>> cmds;
  if (s.type == "hash") {
    cmds.push_back({"HGETALL", key});
  } else if (s.type == "string") {
    cmds.push_back({"GET", key});
  } else if (s.type == "zset") {
    cmds.push_back({"ZRANGE", key, "-1", "-1", "WITHSCORES"});
  } else {
    return s;
  }
  cmds.push_back({"PTTL", key});
  auto r = c.pipeline(cmds);
  if (!r) return r.error();
  const redis::Value& v = (*r)[0];
  if (s.type == "hash" && v.is_array()) {
    for (std::size_t i = 0; i + 1 < v.elements.size() && s.fields.size() < 64; i += 2) {
      s.fields[v.elements[i].str] = v.elements[i + 1].str;
    }
  } else if (s.type == "string" && v.is_string()) {
    s.value = v.str.substr(0, 64);
  } else if (s.type == "zset" && v.is_array() && v.elements.size() == 2) {
    s.newest_score = v.elements[1].as_number();
  }
  if ((*r)[1].type == redis::Value::Type::integer) s.pttl_ms = (*r)[1].integer;
  return s;
}

}  // namespace limitscope::probe
