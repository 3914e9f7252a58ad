// libFuzzer target for alert templates' regexes (core/metrics/go_regexp): any pattern,
// replacement and text (the input split at its first two NUL bytes) either fail with a message
// or give a result, and the result keeps what Go's ReplaceAllString keeps: replacing every
// match with itself ($0) gives the text back, a pattern that matches nowhere changes nothing,
// and an empty replacement never lengthens the text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/metrics/go_regexp.h"
#include "fuzz/fuzz_check.h"

using namespace limitscope::metrics;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const auto cut = [&in]() {
    const std::size_t nul = in.find('\0');
    const std::string_view part = in.substr(0, nul);
    in = nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
    return part;
  };
  const std::string_view pattern = cut();
  const std::string_view replacement = cut();
  const std::string_view text = in;

  const auto matched = goregexp::match(pattern, text);
  const auto replaced = goregexp::replace_all(pattern, replacement, text);
  check(matched.ok() == replaced.ok());
  if (!matched.ok()) {
    check(!matched.error().empty() && matched.error() == replaced.error());
    return 0;
  }
  const auto same = goregexp::replace_all(pattern, "$0", text);
  check(same.ok() && *same == text);
  if (!*matched) check(*replaced == text);
  const auto removed = goregexp::replace_all(pattern, "", text);
  check(removed.ok() && removed->size() <= text.size());
  return 0;
}
