#include "core/metrics/go_format.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

#include "core/common/quoted_string.h"

namespace limitscope::metrics::gofmt {

namespace {

// Shortest round-trip decimal digits of a finite, non-zero |v| and its decimal exponent
// (value = 0.d1d2d3... x 10^(exp+1), i.e. d1.d2d3... x 10^exp).
struct Digits {
  std::string digits;
  int exp = 0;
};

Digits shortest_digits(double v) {
  std::array<char, 64> buf{};
  auto res = std::to_chars(buf.data(), buf.data() + buf.size(), std::fabs(v),
                           std::chars_format::scientific);
  const std::string_view s(buf.data(), static_cast<std::size_t>(res.ptr - buf.data()));
  Digits d;
  const std::size_t e = s.find('e');
  for (std::size_t i = 0; i < e; ++i) {
    if (s[i] != '.') d.digits += s[i];
  }
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), d.exp);
  return d;
}

std::string exponent_text(int exp, char e) {
  std::string out(1, e);
  out += exp < 0 ? '-' : '+';
  const int a = exp < 0 ? -exp : exp;
  if (a < 10) out += '0';
  out += std::to_string(a);
  return out;
}

std::string nonfinite(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "+Inf" : "-Inf";
}

std::string c_format(const char* fmt, double v) {
  std::array<char, 512> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), fmt, v);
  if (n < 0) return {};
  if (static_cast<std::size_t>(n) < buf.size())
    return std::string(buf.data(), static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), fmt, v);
  big.resize(static_cast<std::size_t>(n));
  return big;
}

// Go converts an out-of-range float to int64 as the amd64 instruction does: the minimum.
std::int64_t go_int64(double v) {
  if (std::isnan(v) || v >= 9223372036854775808.0 || v < -9223372036854775808.0) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::string format_float_v(double v) {
  if (!std::isfinite(v)) return nonfinite(v);
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  const Digits d = shortest_digits(v);
  std::string out = v < 0 ? "-" : "";
  if (d.exp < -4 || d.exp >= 6) {
    out += d.digits[0];
    if (d.digits.size() > 1) out += "." + d.digits.substr(1);
    return out + exponent_text(d.exp, 'e');
  }
  if (d.exp < 0) {
    return out + "0." + std::string(static_cast<std::size_t>(-d.exp - 1), '0') + d.digits;
  }
  const auto int_len = static_cast<std::size_t>(d.exp) + 1;
  if (d.digits.size() <= int_len)
    return out + d.digits + std::string(int_len - d.digits.size(), '0');
  return out + d.digits.substr(0, int_len) + "." + d.digits.substr(int_len);
}

std::string format_float_upper_e(double v) {
  if (!std::isfinite(v)) return nonfinite(v);
  if (v == 0) return std::signbit(v) ? "-0E+00" : "0E+00";
  const Digits d = shortest_digits(v);
  std::string out = v < 0 ? "-" : "";
  out += d.digits[0];
  if (d.digits.size() > 1) out += "." + d.digits.substr(1);
  return out + exponent_text(d.exp, 'E');
}

std::string format_g4(double v) {
  if (!std::isfinite(v)) return nonfinite(v);
  return c_format("%.4g", v);
}

namespace {

std::string type_name(const PrintfArg& a) {
  switch (a.index()) {
    case 0:
      return "int";
    case 1:
      return "float64";
    case 2:
      return "string";
    default:
      return "bool";
  }
}

std::string plain_value(const PrintfArg& a) {
  if (const auto* i = std::get_if<std::int64_t>(&a)) return std::to_string(*i);
  if (const auto* f = std::get_if<double>(&a)) return format_float_v(*f);
  if (const auto* s = std::get_if<std::string>(&a)) return *s;
  return std::get<bool>(a) ? "true" : "false";
}

std::string go_quote(std::string_view s) {
  std::string out;
  append_quoted(out, s, ControlEscape::go_hex);
  return out;
}

struct Spec {
  std::string flags;
  int width = -1;
  int precision = -1;
  char verb = 'v';
};

std::string pad(std::string s, const Spec& spec, bool zero_ok) {
  if (spec.width < 0 || static_cast<int>(s.size()) >= spec.width) return s;
  const auto fill = static_cast<std::size_t>(spec.width) - s.size();
  if (spec.flags.find('-') != std::string::npos) return s + std::string(fill, ' ');
  if (zero_ok && spec.flags.find('0') != std::string::npos) {
    const std::size_t sign = (!s.empty() && (s[0] == '-' || s[0] == '+' || s[0] == ' ')) ? 1 : 0;
    return s.substr(0, sign) + std::string(fill, '0') + s.substr(sign);
  }
  return std::string(fill, ' ') + s;
}

std::string c_spec(const Spec& spec, std::string_view length, char verb) {
  std::string f = "%" + spec.flags;
  if (spec.width >= 0) f += std::to_string(spec.width);
  if (spec.precision >= 0) f += "." + std::to_string(spec.precision);
  f += length;
  f += verb;
  return f;
}

std::string bad_verb(const Spec& spec, const PrintfArg& a) {
  return std::string("%!") + spec.verb + "(" + type_name(a) + "=" + plain_value(a) + ")";
}

std::string format_one(const Spec& spec, const PrintfArg& a) {
  const char verb = spec.verb;
  if (const auto* f = std::get_if<double>(&a)) {
    switch (verb) {
      case 'v':
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G': {
        if (!std::isfinite(*f)) {
          // Go keeps the sign of an infinity always, and shows one on NaN only when asked.
          const bool plus = spec.flags.find('+') != std::string::npos;
          const bool space = spec.flags.find(' ') != std::string::npos;
          std::string s = nonfinite(*f);
          if (s == "+Inf" && space && !plus) s = " Inf";
          if (s == "NaN" && plus) s = "+NaN";
          if (s == "NaN" && space && !plus) s = " NaN";
          return pad(s, spec, false);
        }
        if (verb == 'v' && spec.precision < 0) {
          std::string s = format_float_v(*f);
          if (spec.flags.find('+') != std::string::npos && *f >= 0) s = "+" + s;
          return pad(s, spec, true);
        }
        const char cverb = verb == 'v' ? 'g' : verb;
        if ((cverb == 'g' || cverb == 'G') && spec.precision < 0) {
          // Go's %g without precision is the shortest representation, not C's 6 digits.
          std::string s = format_float_v(*f);
          if (cverb == 'G') {
            for (char& c : s) c = c == 'e' ? 'E' : c;
          }
          if (spec.flags.find('+') != std::string::npos && *f >= 0) s = "+" + s;
          return pad(s, spec, true);
        }
        return c_format(c_spec(spec, "", cverb).c_str(), *f);
      }
      default:
        return bad_verb(spec, a);
    }
  }
  if (const auto* i = std::get_if<std::int64_t>(&a)) {
    switch (verb) {
      case 'v':
      case 'd': {
        std::array<char, 128> buf{};
        std::snprintf(buf.data(), buf.size(), c_spec(spec, "ll", 'd').c_str(),
                      static_cast<long long>(*i));
        return buf.data();
      }
      case 'x':
      case 'X': {
        std::string s;
        const bool neg = *i < 0;
        std::uint64_t u = neg ? 0 - static_cast<std::uint64_t>(*i) : static_cast<std::uint64_t>(*i);
        const char* digs = verb == 'x' ? "0123456789abcdef" : "0123456789ABCDEF";
        do {
          s.insert(s.begin(), digs[u % 16]);
          u /= 16;
        } while (u != 0);
        return pad((neg ? "-" : "") + s, spec, true);
      }
      default:
        return bad_verb(spec, a);
    }
  }
  if (const auto* s = std::get_if<std::string>(&a)) {
    switch (verb) {
      case 'v':
      case 's': {
        std::string t = *s;
        if (spec.precision >= 0 && static_cast<std::size_t>(spec.precision) < t.size()) {
          t.resize(static_cast<std::size_t>(spec.precision));
        }
        return pad(t, spec, false);
      }
      case 'q':
        return pad(go_quote(*s), spec, false);
      default:
        return bad_verb(spec, a);
    }
  }
  if (verb == 'v' || verb == 't') return pad(plain_value(a), spec, false);
  return bad_verb(spec, a);
}

}  // namespace

std::string sprintf(std::string_view format, const std::vector<PrintfArg>& args) {
  std::string out;
  std::size_t next = 0;
  std::size_t i = 0;
  while (i < format.size()) {
    const char c = format[i];
    if (c != '%') {
      out += c;
      ++i;
      continue;
    }
    ++i;
    Spec spec;
    while (i < format.size() &&
           std::string_view("+-# 0").find(format[i]) != std::string_view::npos) {
      spec.flags += format[i++];
    }
    auto read_int = [&](int& v) {
      if (i < format.size() && format[i] >= '0' && format[i] <= '9') {
        v = 0;
        while (i < format.size() && format[i] >= '0' && format[i] <= '9' && v < 10000) {
          v = v * 10 + (format[i++] - '0');
        }
      }
    };
    read_int(spec.width);
    if (i < format.size() && format[i] == '.') {
      ++i;
      spec.precision = 0;
      read_int(spec.precision);
    }
    if (i >= format.size()) {
      out += "%!(NOVERB)";
      break;
    }
    spec.verb = format[i++];
    if (spec.verb == '%') {
      out += '%';
      continue;
    }
    if (next >= args.size()) {
      out += std::string("%!") + spec.verb + "(MISSING)";
      continue;
    }
    out += format_one(spec, args[next++]);
  }
  if (next < args.size()) {
    out += "%!(EXTRA ";
    for (std::size_t k = next; k < args.size(); ++k) {
      if (k > next) out += ", ";
      out += type_name(args[k]) + "=" + plain_value(args[k]);
    }
    out += ")";
  }
  return out;
}

Expected<double> parse_float(std::string_view text) {
  const auto bad = [&] {
    return make_error("strconv.ParseFloat: parsing \"" + std::string(text) + "\": invalid syntax");
  };
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "inf" || lower == "infinity") {
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (lower == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s.empty() || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.')) return bad();
  double v = 0;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (res.ec == std::errc::result_out_of_range) {
    return make_error("strconv.ParseFloat: parsing \"" + std::string(text) +
                      "\": value out of range");
  }
  if (res.ec != std::errc() || res.ptr != s.data() + s.size()) return bad();
  return neg ? -v : v;
}

std::string humanize(double v) {
  if (v == 0 || !std::isfinite(v)) return format_g4(v);
  static constexpr std::array<const char*, 8> kBig{"k", "M", "G", "T", "P", "E", "Z", "Y"};
  static constexpr std::array<const char*, 8> kSmall{"m", "u", "n", "p", "f", "a", "z", "y"};
  std::string prefix;
  if (std::fabs(v) >= 1) {
    for (const char* p : kBig) {
      if (std::fabs(v) < 1000) break;
      prefix = p;
      v /= 1000;
    }
    return format_g4(v) + prefix;
  }
  for (const char* p : kSmall) {
    if (std::fabs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return format_g4(v) + prefix;
}

std::string humanize1024(double v) {
  if (std::fabs(v) <= 1 || !std::isfinite(v)) return format_g4(v);
  static constexpr std::array<const char*, 8> kBin{"ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
  std::string prefix;
  for (const char* p : kBin) {
    if (std::fabs(v) < 1024) break;
    prefix = p;
    v /= 1024;
  }
  return format_g4(v) + prefix;
}

std::string humanize_duration(double v) {
  if (!std::isfinite(v)) return format_g4(v);
  if (v == 0) return format_g4(v) + "s";
  if (std::fabs(v) >= 1) {
    std::string sign;
    if (v < 0) {
      sign = "-";
      v = -v;
    }
    const std::int64_t duration = go_int64(v);
    const std::int64_t seconds = duration % 60;
    const std::int64_t minutes = (duration / 60) % 60;
    const std::int64_t hours = (duration / 60 / 60) % 24;
    const std::int64_t days = duration / 60 / 60 / 24;
    const auto n = [](std::int64_t x) { return std::to_string(x); };
    if (days != 0)
      return sign + n(days) + "d " + n(hours) + "h " + n(minutes) + "m " + n(seconds) + "s";
    if (hours != 0) return sign + n(hours) + "h " + n(minutes) + "m " + n(seconds) + "s";
    if (minutes != 0) return sign + n(minutes) + "m " + n(seconds) + "s";
    return sign + format_g4(v) + "s";
  }
  static constexpr std::array<const char*, 8> kSmall{"m", "u", "n", "p", "f", "a", "z", "y"};
  std::string prefix;
  for (const char* p : kSmall) {
    if (std::fabs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return format_g4(v) + prefix + "s";
}

std::string humanize_percentage(double ratio) {
  return format_g4(ratio * 100) + "%";
}

std::string humanize_timestamp(double unix_seconds) {
  if (!std::isfinite(unix_seconds)) return format_g4(unix_seconds);
  // Prometheus rounds through model.Time: milliseconds, truncated toward zero.
  const std::int64_t ms = go_int64(unix_seconds * 1e9) / 1'000'000;
  std::int64_t secs = ms / 1000;
  std::int64_t frac_ms = ms % 1000;
  if (frac_ms < 0) {
    frac_ms += 1000;
    secs -= 1;
  }
  const auto t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 64> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%d %H:%M:%S", &tm);
  std::string out = buf.data();
  if (frac_ms != 0) {
    std::string f = std::to_string(frac_ms);
    f = std::string(3 - f.size(), '0') + f;
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out + " +0000 UTC";
}

}  // namespace limitscope::metrics::gofmt
