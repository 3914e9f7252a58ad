#pragma once
// Text from core (UTF-8 std::string) into Qt, the one way widgets, models and workers convert
// it.

#include <QString>
#include <string>

namespace limitscope::ui {

/// core's UTF-8 text as a QString.
inline QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace limitscope::ui
