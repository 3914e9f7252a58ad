#pragma once
// The three default alert rules of DESIGN.md section 5 (resources/alerts/default-rules.yml),
// compiled into the library.

#include <string_view>

namespace limitscope::metrics {

/// The text of resources/alerts/default-rules.yml as it was at build time.
std::string_view default_rules_yaml();

}  // namespace limitscope::metrics
