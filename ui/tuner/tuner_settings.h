#pragma once
// The two settings as the operator entered them, read-only: the tab's two ParamEditors, which
// own them. A panel that needs a setting (the what-if of each, the sweep's base, the candidate
// Apply writes) reads it here; a panel that makes a new candidate or shows the live setting
// says so by a signal, and the tab sets the editor.

#include "ui/tuner/param_editor.h"

namespace limitscope::ui {

struct TunerSettings {
  const ParamEditor* current = nullptr;
  const ParamEditor* candidate = nullptr;
};

}  // namespace limitscope::ui
