#pragma once
// Internal to the exposition parser (exposition_parser.cpp): the grammar's character classes,
// number parsing as Prometheus's Go code does it, the series hash, sample-name suffixes and the
// parser's per-family bookkeeping. Split out so the parser file holds the parser; everything
// here is inline, so the hot loops compile as before.

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/expected.h"
#include "core/metrics/exposition_parser.h"
#include "core/metrics/series_hash_set.h"

namespace limitscope::metrics::exposition_detail {

// Character classes of the exposition grammar, as 256-entry tables (the hot loops index them).
struct CharTables {
  std::array<bool, 256> name_start{};   // [a-zA-Z_:]
  std::array<bool, 256> name_char{};    // [a-zA-Z0-9_:]
  std::array<bool, 256> label_start{};  // [a-zA-Z_]
  std::array<bool, 256> label_char{};   // [a-zA-Z0-9_]
  constexpr CharTables() {
    for (int c = 0; c < 256; ++c) {
      const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      const bool digit = c >= '0' && c <= '9';
      label_start[static_cast<std::size_t>(c)] = alpha;
      label_char[static_cast<std::size_t>(c)] = alpha || digit;
      name_start[static_cast<std::size_t>(c)] = alpha || c == ':';
      name_char[static_cast<std::size_t>(c)] = alpha || digit || c == ':';
    }
  }
};
inline constexpr CharTables kChars;

inline std::size_t uc(char c) {
  return static_cast<unsigned char>(c);
}
inline bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

inline bool valid_metric_name(std::string_view s) {
  if (s.empty() || !kChars.name_start[uc(s[0])]) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return kChars.name_char[uc(c)]; });
}

// Go's strconv.ParseFloat (which Prometheus uses) accepts a leading '+', "Inf", "NaN"
// in any case; std::from_chars accepts all of that except the '+'.
inline bool parse_double(std::string_view tok, double& out) {
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (b != e && *b == '+') {
    ++b;
    if (b == e || *b == '-' || *b == '+') return false;
  }
  if (b == e) return false;
  auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e;
}

inline bool parse_int64(std::string_view tok, std::int64_t& out) {
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (b != e && *b == '+') {
    ++b;
    if (b == e || *b == '-') return false;
  }
  if (b == e) return false;
  auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e;
}

inline std::uint64_t load64(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// A fast string hash, 8 bytes per step; mix64 finishes it. Not for adversaries who can
// see the seed: a collision only merges two series in the duplicate check.
[[gnu::always_inline]] inline std::uint64_t hash_bytes(std::string_view s,
                                                       std::uint64_t h = 0x243f6a8885a308d3ULL) {
  const char* p = s.data();
  std::size_t n = s.size();
  h ^= n;
  while (n >= 8) {
    h = (h ^ load64(p)) * 0x9fb21c651e98df25ULL;
    h ^= h >> 32;
    p += 8;
    n -= 8;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  h = (h ^ tail) * 0x9fb21c651e98df25ULL;
  return h ^ (h >> 29);
}

// A label's contribution to its series hash. Series hashes add these up, so the order of
// labels in the text does not matter ({a,b} and {b,a} are one series).
[[gnu::always_inline]] inline std::uint64_t label_hash(std::string_view name,
                                                       std::string_view value) {
  return mix64(hash_bytes(value, hash_bytes(name)));
}

// True when any byte of w is '"' or '\\' (the classic "has zero byte" test on w ^ pattern).
inline bool has_quote_or_backslash(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  const std::uint64_t q = w ^ (kOnes * '"');
  const std::uint64_t b = w ^ (kOnes * '\\');
  return (((q - kOnes) & ~q) | ((b - kOnes) & ~b)) & kHighs;
}

// How a sample name relates to its family name.
enum class Role { kPlain, kBucket, kSum, kCount, kTotal, kCreated, kGSum, kGCount, kInfo };

struct Suffix {
  std::string_view text;
  Role role;
};
constexpr Suffix kSuffixes[] = {
    {"_bucket", Role::kBucket}, {"_sum", Role::kSum},         {"_count", Role::kCount},
    {"_total", Role::kTotal},   {"_created", Role::kCreated}, {"_gsum", Role::kGSum},
    {"_gcount", Role::kGCount}, {"_info", Role::kInfo},
};

inline bool role_allowed(MetricType t, Role r) {
  switch (t) {
    case MetricType::kUnknown:
    case MetricType::kGauge:
    case MetricType::kStateSet:
      return r == Role::kPlain;
    case MetricType::kCounter:
      return r == Role::kPlain || r == Role::kTotal || r == Role::kCreated;
    case MetricType::kHistogram:
      return r == Role::kBucket || r == Role::kSum || r == Role::kCount || r == Role::kCreated;
    case MetricType::kGaugeHistogram:
      return r == Role::kBucket || r == Role::kGSum || r == Role::kGCount;
    case MetricType::kSummary:
      return r == Role::kPlain || r == Role::kSum || r == Role::kCount || r == Role::kCreated;
    case MetricType::kInfo:
      return r == Role::kInfo;
  }
  return false;
}

inline std::optional<MetricType> parse_type(std::string_view s, bool om) {
  if (s == "counter") return MetricType::kCounter;
  if (s == "gauge") return MetricType::kGauge;
  if (s == "histogram") return MetricType::kHistogram;
  if (s == "summary") return MetricType::kSummary;
  if (!om) {
    if (s == "untyped") return MetricType::kUnknown;
    return std::nullopt;
  }
  if (s == "unknown") return MetricType::kUnknown;
  if (s == "gaugehistogram") return MetricType::kGaugeHistogram;
  if (s == "info") return MetricType::kInfo;
  if (s == "stateset") return MetricType::kStateSet;
  return std::nullopt;
}

// True when s is well-formed UTF-8 (no overlong form, no surrogate, nothing above U+10FFFF),
// as Go's utf8.ValidString, which Prometheus applies to label values. ASCII runs are skipped 8
// bytes at a time.
inline bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && (load64(s.data() + i) & 0x8080808080808080ULL) == 0) {
      i += 8;
      continue;
    }
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return false;
    }
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return false;
    for (std::size_t k = 2; k < len; ++k) {
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return false;
    }
    i += len;
  }
  return true;
}

inline std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 60;  // keep messages one short line
  std::string out = "\"";
  for (char c : s.substr(0, kShown)) {
    if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += '?';
    } else {
      out += c;
    }
  }
  if (s.size() > kShown) out += "...";
  out += '"';
  return out;
}

struct FamilyState {
  bool has_help = false;
  bool has_unit = false;
  bool has_samples = false;
};

// The cumulative buckets of one histogram series (one label set minus `le`) seen so far.
struct BucketGroup {
  bool active = false;
  std::uint64_t key = 0;
  double last_le = 0;
  double last_count = 0;
  bool saw_inf = false;
  std::size_t last_line = 0;
  std::size_t family = 0;
};

// Unescapes a HELP text (\\ and \n; \" too in OpenMetrics).
// @return the text, or why it is invalid
inline Expected<std::string> unescape_help(std::string_view text, bool om) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 1 == text.size()) return make_error("HELP text ends with a lone backslash");
    const char e = text[++i];
    if (e == '\\') {
      out += '\\';
    } else if (e == 'n') {
      out += '\n';
    } else if (e == '"' && om) {
      out += '"';
    } else {
      return make_error(std::string("invalid escape sequence \\") + e + " in HELP text");
    }
  }
  return out;
}

}  // namespace limitscope::metrics::exposition_detail
