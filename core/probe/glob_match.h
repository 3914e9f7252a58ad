#pragma once
// Redis-style glob matching (the MATCH of SCAN, KEYS and PSUBSCRIBE): `*` any run, `?` one
// character, `[abc]`, `[a-z]`, `[^a]` classes, `\x` a literal x. Used to give each limiter key
// the first profile whose pattern it matches. Linear in practice: `*` backtracks only to its
// last position (the classic two-pointer algorithm), never exponentially.

#include <string_view>

namespace limitscope::probe {

bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace limitscope::probe
