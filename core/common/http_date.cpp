#include "core/common/http_date.h"

#include <array>
#include <cstdio>
#include <ctime>

namespace limitscope {
namespace {

constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

}  // namespace

std::string format_http_date(Nanos wall) {
  const std::time_t t = static_cast<std::time_t>(wall.count() / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf;
}

Expected<Nanos> parse_http_date(std::string_view text) {
  const std::string s(text.substr(0, 64));
  char day[4] = {};
  char month[4] = {};
  int mday = 0, year = 0, hh = 0, mm = 0, ss = 0;
  int consumed = 0;
  if (text.size() != 29 ||
      std::sscanf(s.c_str(), "%3[A-Za-z], %2d %3s %4d %2d:%2d:%2d GMT%n", day, &mday, month, &year,
                  &hh, &mm, &ss, &consumed) != 7 ||
      consumed != 29 || s[3] != ',') {
    return make_error("\"" + s + "\": not an HTTP date (like \"Tue, 01 Dec 2026 10:17:09 GMT\")");
  }
  int mon = -1;
  for (int i = 0; i < 12; ++i) {
    if (std::string_view(kMonths[static_cast<std::size_t>(i)]) == month) mon = i;
  }
  if (mon < 0 || mday < 1 || mday > 31 || hh > 23 || mm > 59 || ss > 60) {
    return make_error("\"" + s + "\": not an HTTP date (field out of range)");
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon;
  tm.tm_mday = mday;
  tm.tm_hour = hh;
  tm.tm_min = mm;
  tm.tm_sec = ss;
  return Nanos{static_cast<std::int64_t>(timegm(&tm)) * 1'000'000'000};
}

}  // namespace limitscope
