#include "core/probe/glob_match.h"

#include <cstddef>

namespace limitscope::probe {

namespace {

// Matches one class "[...]" starting at p[i] == '[' against c; sets `end` to the index after
// the closing ']' (an unterminated class matches the '[' literally, as Redis does).
bool class_match(std::string_view p, std::size_t i, char c, std::size_t& end) {
  std::size_t j = i + 1;
  bool negate = false;
  if (j < p.size() && p[j] == '^') {
    negate = true;
    ++j;
  }
  bool matched = false;
  bool closed = false;
  while (j < p.size()) {
    if (p[j] == ']') {
      closed = true;
      ++j;
      break;
    }
    if (p[j] == '\\' && j + 1 < p.size()) {
      matched = matched || p[j + 1] == c;
      j += 2;
    } else if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
      char lo = p[j];
      char hi = p[j + 2];
      if (lo > hi) std::swap(lo, hi);
      matched = matched || (c >= lo && c <= hi);
      j += 3;
    } else {
      matched = matched || p[j] == c;
      ++j;
    }
  }
  if (!closed) {
    end = i + 1;
    return c == '[';
  }
  end = j;
  return matched != negate;
}

}  // namespace

bool glob_match(std::string_view p, std::string_view t) {
  std::size_t pi = 0;
  std::size_t ti = 0;
  std::size_t star = std::string_view::npos;  // pattern index after the last '*'
  std::size_t star_t = 0;                     // text index that '*' currently covers up to
  while (ti < t.size()) {
    if (pi < p.size()) {
      const char pc = p[pi];
      if (pc == '*') {
        while (pi < p.size() && p[pi] == '*') ++pi;
        star = pi;
        star_t = ti;
        continue;
      }
      if (pc == '?') {
        ++pi;
        ++ti;
        continue;
      }
      if (pc == '[') {
        std::size_t end = 0;
        if (class_match(p, pi, t[ti], end)) {
          pi = end;
          ++ti;
          continue;
        }
      } else if (pc == '\\' && pi + 1 < p.size()) {
        if (p[pi + 1] == t[ti]) {
          pi += 2;
          ++ti;
          continue;
        }
      } else if (pc == t[ti]) {
        ++pi;
        ++ti;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    // Let the last '*' swallow one more character and retry from there.
    pi = star;
    ti = ++star_t;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace limitscope::probe
