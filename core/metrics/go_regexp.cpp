#include "core/metrics/go_regexp.h"

#include <re2/re2.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace limitscope::metrics::goregexp {
namespace {

// A template's pattern is a short piece of configuration; a longer one is refused before RE2
// builds a program for it.
constexpr std::size_t kMaxPatternBytes = 4096;

// Patterns kept compiled: a template runs its few patterns at every expansion of every alert
// (each evaluation, each notification), and compiling costs far more than matching a label
// value. When full, the set starts again: the patterns of a rule file are few.
constexpr std::size_t kCachedPatterns = 256;

Expected<std::shared_ptr<const re2::RE2>> compile(std::string_view pattern) {
  if (pattern.size() > kMaxPatternBytes) {
    return make_error("error parsing regexp: the pattern is " + std::to_string(pattern.size()) +
                      " bytes, more than the " + std::to_string(kMaxPatternBytes) + " allowed");
  }
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const re2::RE2>> cache;
  {
    const std::lock_guard lock(mutex);
    if (const auto it = cache.find(std::string(pattern)); it != cache.end()) return it->second;
  }
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re =
      std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {  // not kept: an error is reported again each time, as it was
    return make_error("error parsing regexp: " + re->error() + ": `" + std::string(pattern) + "`");
  }
  const std::lock_guard lock(mutex);
  if (cache.size() >= kCachedPatterns) cache.clear();
  cache.emplace(std::string(pattern), re);
  return std::shared_ptr<const re2::RE2>(std::move(re));
}

bool is_name_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The bytes of the UTF-8 character at `pos` (1 for a byte that does not start a valid one),
// as Go's utf8.DecodeRuneInString steps.
std::size_t rune_width(std::string_view s, std::size_t pos) {
  const auto lead = static_cast<unsigned char>(s[pos]);
  std::size_t n = 1;
  if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
  } else if (lead >= 0xE0) {
    n = 3;
  } else if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  }
  if (n == 1 || lead > 0xF4 || pos + n > s.size()) return 1;
  for (std::size_t i = 1; i < n; ++i) {
    if ((static_cast<unsigned char>(s[pos + i]) & 0xC0) != 0x80) return 1;
  }
  return n;
}

// What follows a `$` in a replacement: a group's number (or -1) and its name, and how many
// bytes the reference takes; nothing when it is malformed (Go's regexp.extract).
struct Reference {
  std::string name;
  int number = -1;
  std::size_t length = 0;
};

std::optional<Reference> reference_at(std::string_view s) {
  std::size_t i = 0;
  const bool brace = !s.empty() && s[0] == '{';
  if (brace) i = 1;
  const std::size_t start = i;
  while (i < s.size() && is_name_byte(s[i])) ++i;
  if (i == start) return std::nullopt;
  Reference ref;
  ref.name = std::string(s.substr(start, i - start));
  if (brace) {
    if (i >= s.size() || s[i] != '}') return std::nullopt;
    ++i;
  }
  ref.length = i;
  long long number = 0;
  for (const char c : ref.name) {
    if (c < '0' || c > '9' || number >= 100'000'000) {
      number = -1;
      break;
    }
    number = number * 10 + (c - '0');
  }
  if (ref.name.size() > 1 && ref.name[0] == '0') number = -1;  // no leading zeros
  ref.number = static_cast<int>(number);
  return ref;
}

void expand(std::string& out, std::string_view replacement, const re2::RE2& re,
            const std::vector<re2::StringPiece>& groups) {
  const std::map<std::string, int>& names = re.NamedCapturingGroups();
  auto append_group = [&](int index) {
    if (index < 0 || static_cast<std::size_t>(index) >= groups.size()) return;
    const re2::StringPiece& g = groups[static_cast<std::size_t>(index)];
    if (g.data() != nullptr) out.append(g.data(), g.size());
  };
  std::size_t i = 0;
  while (i < replacement.size()) {
    const std::size_t dollar = replacement.find('$', i);
    if (dollar == std::string_view::npos) break;
    out.append(replacement.substr(i, dollar - i));
    i = dollar + 1;
    if (i < replacement.size() && replacement[i] == '$') {
      out += '$';
      ++i;
      continue;
    }
    const auto ref = reference_at(replacement.substr(i));
    if (!ref) {
      out += '$';
      continue;
    }
    i += ref->length;
    if (ref->number >= 0) {
      append_group(ref->number);
    } else if (const auto it = names.find(ref->name); it != names.end()) {
      append_group(it->second);
    }
  }
  if (i < replacement.size()) out.append(replacement.substr(i));
}

}  // namespace

Expected<bool> match(std::string_view pattern, std::string_view text) {
  auto re = compile(pattern);
  if (!re) return Error{re.error()};
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), **re);
}

Expected<std::string> replace_all(std::string_view pattern, std::string_view replacement,
                                  std::string_view text) {
  auto compiled = compile(pattern);
  if (!compiled) return Error{compiled.error()};
  const re2::RE2& re = **compiled;
  const re2::StringPiece subject(text.data(), text.size());
  std::vector<re2::StringPiece> groups(static_cast<std::size_t>(re.NumberOfCapturingGroups()) + 1);
  std::string out;
  std::size_t last_end = 0;  // where the text not yet copied starts
  std::size_t search = 0;
  while (search <= text.size()) {
    if (!re.Match(subject, search, text.size(), re2::RE2::UNANCHORED, groups.data(),
                  static_cast<int>(groups.size()))) {
      break;
    }
    const auto begin = static_cast<std::size_t>(groups[0].data() - text.data());
    const std::size_t end = begin + groups[0].size();
    out.append(text.substr(last_end, begin - last_end));
    // An empty match right after the previous match is not replaced (Go: otherwise a pattern
    // matching both the empty and a longer string would be replaced twice there).
    if (end > last_end || begin == 0) expand(out, replacement, re, groups);
    last_end = end;
    // Go steps at least one character past where it searched.
    const std::size_t width = search < text.size() ? rune_width(text, search) : 0;
    if (search + width > end) {
      search += width;
    } else if (search + 1 > end) {
      ++search;
    } else {
      search = end;
    }
  }
  out.append(text.substr(last_end));
  return out;
}

}  // namespace limitscope::metrics::goregexp
