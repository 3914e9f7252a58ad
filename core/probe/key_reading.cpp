#include "core/probe/key_reading.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace limitscope::probe {

namespace {

std::string fmt(double v) {
  char buf[400];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return ec == std::errc{} ? std::string(buf, p) : std::string("0");
}

// A stored number: an integer reply or a string holding a finite number.
std::optional<double> number_of(const redis::Value& v) {
  return v.as_number();
}

std::string shown(const redis::Value& v) {
  std::string s = v.is_string() ? v.str : v.describe();
  if (s.size() > 40) s = s.substr(0, 40) + "...";
  return s;
}

void set_ttl(KeyReading& r, const redis::Value& pttl) {
  if (pttl.type != redis::Value::Type::integer) return;
  if (pttl.integer == -2) r.missing = true;
  if (pttl.integer >= 0) r.ttl_ms = pttl.integer;
}

void set_bucket(KeyReading& r, double level, std::optional<double> capacity) {
  if (capacity) level = std::clamp(level, 0.0, *capacity);
  r.level = level;
  r.capacity = capacity;
  if (capacity) r.fill = level / *capacity;
}

void set_window(KeyReading& r, double count, double limit) {
  r.count = count;
  r.limit = limit;
  r.occupancy = count / limit;
}

}  // namespace

std::optional<double> KeyReading::pressure() const {
  if (!error.empty() || missing) return std::nullopt;
  if (fill) return 1.0 - *fill;
  if (occupancy) return *occupancy;
  return std::nullopt;
}

void KeyReading::clear_figures() {
  level.reset();
  capacity.reset();
  fill.reset();
  count.reset();
  limit.reset();
  occupancy.reset();
  ttl_ms.reset();
  error.clear();
  missing = false;
}

void KeyReading::assign(const KeyReading& from) {
  if (identity == 0 || identity != from.identity) {
    *this = from;
    return;
  }
  level = from.level;
  capacity = from.capacity;
  fill = from.fill;
  count = from.count;
  limit = from.limit;
  occupancy = from.occupancy;
  ttl_ms = from.ttl_ms;
  if (error != from.error) error = from.error;
  missing = from.missing;
  pressure_rose_us = from.pressure_rose_us;
}

std::optional<std::int64_t> window_start_of(const std::string& key) {
  const auto us = key.rfind('_');
  if (us == std::string::npos || us + 1 >= key.size()) return std::nullopt;
  std::int64_t v = 0;
  const char* b = key.data() + us + 1;
  const char* e = key.data() + key.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc{} || p != e || v < 0) return std::nullopt;
  return v;
}

std::size_t read_commands(redis::CommandBatch& out, const LimiterProfile& profile,
                          const std::string& key, std::int64_t now_us, bool with_ttl) {
  switch (profile.kind) {
    case ProfileKind::token_bucket_hash:
      out.add({"HMGET", key, profile.tokens_field, profile.updated_field});
      break;
    case ProfileKind::sliding_window_zset: {
      // Requests in (now − W, now], in the profile's unit for scores.
      const double per = us_per_unit(profile.time_unit);
      const double now = static_cast<double>(now_us) / per;
      const double from = static_cast<double>(now_us - profile.window->count() / 1000) / per;
      out.add({"ZCOUNT", key, "(" + fmt(from), fmt(now)});
      break;
    }
    case ProfileKind::gcra_tat:
    case ProfileKind::counter_ttl:
    case ProfileKind::fixed_window_counter:
    case ProfileKind::limitscope:
      out.add({"GET", key});
      break;
  }
  if (with_ttl) out.add({"PTTL", key});
  return with_ttl ? 2 : 1;
}

KeyReading evaluate(const LimiterProfile& profile, const std::string& key,
                    std::span<const redis::Value> replies, std::int64_t now_us) {
  KeyReading r;
  r.key = key;
  r.profile = profile.name;
  r.kind = profile.kind;
  evaluate_into(r, profile, replies, now_us);
  return r;
}

void evaluate_into(KeyReading& r, const LimiterProfile& profile,
                   std::span<const redis::Value> replies, std::int64_t now_us) {
  r.clear_figures();
  const std::string& key = r.key;
  if (replies.empty()) {
    r.error = "incomplete reply";
    return;
  }
  const redis::Value& state = replies[0];
  if (replies.size() > 1) set_ttl(r, replies.back());
  if (state.is_error()) {
    r.error = state.str.starts_with("WRONGTYPE") ? "wrong type for profile " + profile.name + " (" +
                                                       std::string(to_string(profile.kind)) + ")"
                                                 : state.str;
    return;
  }
  const double per_unit_us = us_per_unit(profile.time_unit);
  switch (profile.kind) {
    case ProfileKind::token_bucket_hash: {
      if (!state.is_array() || state.elements.size() != 2) {
        r.error = "unexpected reply " + state.describe();
        return;
      }
      const auto& tokens_v = state.elements[0];
      const auto& updated_v = state.elements[1];
      if (tokens_v.is_nil() && updated_v.is_nil()) {
        r.missing = true;
        if (profile.capacity) set_bucket(r, *profile.capacity, profile.capacity);  // fresh: full
        return;
      }
      const auto tokens = number_of(tokens_v);
      if (!tokens) {
        r.error =
            "field " + profile.tokens_field + " holds '" + shown(tokens_v) + "', not a number";
        return;
      }
      if (!profile.capacity) {
        set_bucket(r, *tokens, std::nullopt);  // parameters unknown: the stored level
        return;
      }
      const auto updated = number_of(updated_v);
      if (!updated) {
        r.error =
            "field " + profile.updated_field + " holds '" + shown(updated_v) + "', not a time";
        return;
      }
      const double updated_us = *updated * per_unit_us;
      // A time ahead of the server's (clock skew of the writer): no refill yet, say so.
      const double dt_s = std::max(0.0, (static_cast<double>(now_us) - updated_us) / 1e6);
      if (updated_us > static_cast<double>(now_us) + 1e6) {
        r.error = "field " + profile.updated_field + " is " +
                  fmt((updated_us - static_cast<double>(now_us)) / 1e6) +
                  " s ahead of the server's time";
      }
      set_bucket(r, *tokens + profile.refill->per_second() * dt_s, profile.capacity);
      return;
    }
    case ProfileKind::sliding_window_zset: {
      if (state.type != redis::Value::Type::integer) {
        r.error = "unexpected reply " + state.describe();
        return;
      }
      set_window(r, static_cast<double>(state.integer), *profile.limit);
      return;
    }
    case ProfileKind::gcra_tat: {
      if (state.is_nil()) {
        r.missing = true;
        set_bucket(r, *profile.capacity, profile.capacity);
        return;
      }
      const auto tat = number_of(state);
      if (!tat) {
        r.error = "value '" + shown(state) + "' is not a time";
        return;
      }
      // T = 1/r; the bucket holds C·T of "credit": level = (C·T − (TAT − now)⁺) / T.
      const double t_us = profile.refill->interval_ns() / 1000.0;
      double ahead_us = *tat * per_unit_us - static_cast<double>(now_us);
      // Epoch ns do not fit a double exactly (1.7e18 > 2^53): subtract in integers first.
      if (const auto tat_int = state.as_integer(); tat_int && profile.time_unit == TimeUnit::ns) {
        ahead_us = static_cast<double>(*tat_int - now_us * 1000) / 1000.0;
      } else if (tat_int && profile.time_unit == TimeUnit::us) {
        ahead_us = static_cast<double>(*tat_int - now_us);
      }
      ahead_us = std::max(0.0, ahead_us);
      set_bucket(r, (*profile.capacity * t_us - ahead_us) / t_us, profile.capacity);
      return;
    }
    case ProfileKind::counter_ttl:
    case ProfileKind::fixed_window_counter: {
      if (state.is_nil()) {
        r.missing = true;
        set_window(r, 0, *profile.limit);
        return;
      }
      const auto count = number_of(state);
      if (!count) {
        r.error = "value '" + shown(state) + "' is not a count";
        return;
      }
      if (profile.kind == ProfileKind::fixed_window_counter) {
        const auto start = window_start_of(key);
        if (!start) {
          r.error = "key does not end with _<window start>";
          return;
        }
        const double end_us = static_cast<double>(*start) * per_unit_us +
                              static_cast<double>(profile.window->count()) / 1000.0;
        // A counter of a window that is over no longer limits anything.
        set_window(r, end_us <= static_cast<double>(now_us) ? 0.0 : *count, *profile.limit);
        return;
      }
      // rate-limiter-flexible: the key expires with its window (PTTL), so it always counts.
      set_window(r, *count, *profile.limit);
      return;
    }
    case ProfileKind::limitscope:
      r.error = "limitscope keys are read by the own-schema reader";
      return;
  }
}

}  // namespace limitscope::probe
