#include "core/metrics/prom_duration.h"

#include <array>
#include <limits>

namespace limitscope::metrics {

namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t ms;
};

// Largest first: the order the text must follow.
constexpr std::array<Unit, 7> kUnits{{{"y", 365LL * 24 * 3600 * 1000},
                                      {"w", 7LL * 24 * 3600 * 1000},
                                      {"d", 24LL * 3600 * 1000},
                                      {"h", 3600LL * 1000},
                                      {"m", 60LL * 1000},
                                      {"s", 1000},
                                      {"ms", 1}}};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

Expected<std::int64_t> parse_prom_duration(std::string_view text) {
  if (text.empty()) return make_error("empty duration string");
  if (text == "0") return std::int64_t{0};
  const auto invalid = [&] {
    return make_error("not a valid duration string: \"" + std::string(text) + "\"");
  };
  std::int64_t total = 0;
  std::size_t next_unit = 0;  // units must appear in kUnits order, each at most once
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_digit(text[i])) return invalid();
    std::int64_t n = 0;
    while (i < text.size() && is_digit(text[i])) {
      if (n > (std::numeric_limits<std::int64_t>::max() - 9) / 10) {
        return make_error("duration out of range: \"" + std::string(text) + "\"");
      }
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    std::size_t j = i;
    while (j < text.size() && !is_digit(text[j])) ++j;
    const std::string_view suffix = text.substr(i, j - i);
    std::size_t u = next_unit;
    while (u < kUnits.size() && kUnits[u].suffix != suffix) ++u;
    if (u == kUnits.size()) return invalid();
    if (n > std::numeric_limits<std::int64_t>::max() / kUnits[u].ms ||
        total > std::numeric_limits<std::int64_t>::max() - n * kUnits[u].ms) {
      return make_error("duration out of range: \"" + std::string(text) + "\"");
    }
    total += n * kUnits[u].ms;
    next_unit = u + 1;
    i = j;
  }
  return total;
}

std::string format_prom_duration(std::int64_t ms) {
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  for (std::size_t u = 0; u < kUnits.size(); ++u) {
    const bool exact_only = u < 2;  // "90d" reads better than "12w6d"
    if (exact_only && ms % kUnits[u].ms != 0) continue;
    const std::int64_t v = ms / kUnits[u].ms;
    if (v > 0) {
      out += std::to_string(v);
      out += kUnits[u].suffix;
      ms -= v * kUnits[u].ms;
    }
  }
  return out;
}

}  // namespace limitscope::metrics
