#include "core/limiter/rate.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace limitscope {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Nanoseconds in one named unit; 0 when the unit is unknown.
std::int64_t unit_nanos(std::string_view unit) {
  constexpr std::int64_t kSec = 1'000'000'000;
  if (unit == "ns") return 1;
  if (unit == "us") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s" || unit == "sec" || unit == "second" || unit == "seconds") return kSec;
  if (unit == "m" || unit == "min" || unit == "minute" || unit == "minutes") return 60 * kSec;
  if (unit == "h" || unit == "hour" || unit == "hours") return 3600 * kSec;
  if (unit == "d" || unit == "day" || unit == "days") return 86400 * kSec;
  return 0;
}

bool parse_number(std::string_view s, double& out) {
  if (s.empty()) return false;
  const auto* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

}  // namespace

Expected<Nanos> parse_duration(std::string_view text) {
  const std::string_view s = trim(text);
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  double n = 0;
  if (i == 0 || !parse_number(s.substr(0, i), n)) {
    return make_error("duration \"" + std::string(text) +
                      "\": expected a number then a unit, like 60s");
  }
  const std::string_view unit = s.substr(i);
  if (unit.empty()) {
    return make_error("duration \"" + std::string(text) + "\": missing unit (ms, s, m, h, d)");
  }
  const std::int64_t per = unit_nanos(unit);
  if (per == 0) {
    return make_error("duration \"" + std::string(text) + "\": unknown unit \"" +
                      std::string(unit) + "\"");
  }
  const double ns = n * static_cast<double>(per);
  if (!(ns >= 1) || ns > 9.2e18) {
    return make_error("duration \"" + std::string(text) +
                      "\": must be positive and below 290 years");
  }
  return Nanos{static_cast<std::int64_t>(std::llround(ns))};
}

Expected<Rate> parse_rate(std::string_view text) {
  const std::string_view s = trim(text);
  const auto slash = s.find('/');
  if (slash == std::string_view::npos) {
    return make_error("rate \"" + std::string(text) +
                      "\": missing unit; write it as N/unit, like 100/min or 50/s");
  }
  double amount = 0;
  if (!parse_number(trim(s.substr(0, slash)), amount)) {
    return make_error("rate \"" + std::string(text) + "\": \"" +
                      std::string(trim(s.substr(0, slash))) + "\" is not a finite number");
  }
  if (!(amount > 0)) {
    return make_error("rate \"" + std::string(text) + "\": amount must be greater than 0");
  }
  const std::string_view unit = trim(s.substr(slash + 1));
  Nanos period{unit_nanos(unit)};
  if (period.count() == 0) {
    // "100/10s": a duration as the period.
    auto d = parse_duration(unit);
    if (!d) {
      return make_error("rate \"" + std::string(text) + "\": unknown unit \"" + std::string(unit) +
                        "\" (use ms, s, min, h, d or a duration like 10s)");
    }
    period = *d;
  }
  return Rate{amount, period};
}

std::string format_duration(Nanos d) {
  struct U {
    std::int64_t ns;
    const char* name;
  };
  static constexpr U kUnits[] = {{86400'000'000'000LL, "d"}, {3600'000'000'000LL, "h"},
                                 {60'000'000'000LL, "m"},    {1'000'000'000LL, "s"},
                                 {1'000'000LL, "ms"},        {1'000LL, "us"}};
  for (const auto& u : kUnits) {
    if (d.count() != 0 && d.count() % u.ns == 0) return std::to_string(d.count() / u.ns) + u.name;
  }
  return std::to_string(d.count()) + "ns";
}

std::string Rate::to_string() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", amount);
  // The periods a rate is usually written in keep their short names; any other is a duration.
  struct Named {
    std::int64_t ns;
    const char* unit;
  };
  static constexpr Named kPeriods[] = {{1'000'000'000LL, "s"},
                                       {60'000'000'000LL, "min"},
                                       {3600'000'000'000LL, "h"},
                                       {86400'000'000'000LL, "d"}};
  for (const auto& p : kPeriods) {
    if (period.count() == p.ns) return std::string(buf) + "/" + p.unit;
  }
  return std::string(buf) + "/" + format_duration(period);
}

}  // namespace limitscope
