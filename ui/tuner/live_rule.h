#pragma once
// The live rule as the live panel's fields give it, for the panels that write to it (Apply and
// Undo, the shadow): read when they act, through this narrow interface, so they never hold the
// live panel. The status line is the live panel's: the writers say what to show by signals,
// which the tab connects.

#include <QByteArray>
#include <QString>

#include "core/tuner/tuner_session.h"
#include "ui/qt_text.h"
#include "ui/tuner/tuner_worker.h"

namespace limitscope::ui {

struct LiveRuleEntry {
  RuleTarget target;         ///< the connection, the prefix and the rule (trimmed)
  tuner::LiveInputs inputs;  ///< the fields as core's checks take them
  QString overrideKey;       ///< the key whose override is set, or "" for the whole rule
  QString compositeLimit;    ///< a composite's limit the candidate replaces, or ""
};

class LiveRuleSource {
 public:
  virtual LiveRuleEntry liveRule() const = 0;

 protected:
  ~LiveRuleSource() = default;
};

/// Who the audit entry of a change names (core's change_author of $USER).
inline QString changeAuthor() {
  const QByteArray user = qgetenv("USER");
  return qs(tuner::change_author(user.isNull() ? nullptr : user.constData()));
}

}  // namespace limitscope::ui
