#pragma once
// Reading an enum back from the name its to_string() gives it, so that each enum's names are
// written once (in its to_string) and parsing can never disagree with printing.

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace limitscope {

/// The one of `values` whose to_string() is `name`, with '_' in `name` read as '-' (so
/// "token_bucket" names the token-bucket algorithm); nullopt when none is.
template <class E>
std::optional<E> parse_dashed_name(std::string_view name, std::initializer_list<E> values) {
  std::string dashed(name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (E v : values) {
    if (to_string(v) == dashed) return v;
  }
  return std::nullopt;
}

}  // namespace limitscope
