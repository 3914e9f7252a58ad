#pragma once
// Go's regexp as Prometheus's alert templates call it (`match` is regexp.MatchString,
// `reReplaceAll` is Regexp.ReplaceAllString), on RE2: Go's regexp syntax and semantics are
// RE2's, and neither backtracks, so a template's pattern costs time linear in its text.

#include <string>
#include <string_view>

#include "core/common/expected.h"

namespace limitscope::metrics::goregexp {

/// regexp.MatchString(pattern, text): whether `pattern` matches anywhere in `text`. A pattern
/// RE2 refuses (Go refuses the same: backreferences, lookaround, "a**") is an error naming it.
Expected<bool> match(std::string_view pattern, std::string_view text);

/// regexp.MustCompile(pattern).ReplaceAllString(text, replacement): every leftmost-first,
/// non-overlapping match replaced, an empty match right after a match left alone, and `$1`,
/// `${1}`, `$name`, `${name}` and `$$` in `replacement` expanded as Regexp.Expand does (a name
/// is as long as possible: `$1x` is `${1x}`; a group that does not exist or did not take part
/// expands to nothing; a malformed `$` stays as it is). Names are ASCII letters, digits and
/// `_` (RE2's group names are too).
Expected<std::string> replace_all(std::string_view pattern, std::string_view replacement,
                                  std::string_view text);

}  // namespace limitscope::metrics::goregexp
