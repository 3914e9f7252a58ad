#pragma once
// What the live rule's writers share (ApplyPanel: Apply and Undo; ShadowPanel: the shadow): a
// row of buttons in the live rule's box, the session they read and change, the Redis worker
// that writes, the rule's fields they write from, and the two things they
// tell the live panel (what the status says; read the rule again after a conflict).

#include <QPointer>
#include <QWidget>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tuner/tuner_session.h"
#include "ui/tuner/live_rule.h"
#include "ui/tuner/tuner_worker.h"

QT_BEGIN_NAMESPACE
class QPushButton;
QT_END_NAMESPACE

namespace limitscope::ui {

class LiveWriter : public QWidget {
  Q_OBJECT
 public:
  /// What a writer works with, the same for each.
  struct Parts {
    /// the trace, the what-if series, the live config, the candidate written and the current
    /// setting it is compared with
    tuner::TunerSession& session;
    TunerWorker* redis;          ///< the worker that writes the rule
    const LiveRuleSource& rule;  ///< the live panel's fields
  };
  LiveWriter(const Parts& parts, QWidget* parent);
  /// Enables each button as core says (live_buttons).
  void setButtons(const tuner::LiveButtons& buttons);

 signals:
  /// What the live status says now.
  void statusChanged(const QString& text, bool error);
  /// The rule changed since it was read: the live panel reads it again, `why` before what it
  /// says.
  void rereadRequested(const QString& why);

 protected:
  /// A button at the end of the row that runs `action`, enabled by the field `enabled_by` of
  /// core's live_buttons.
  QPushButton* addButton(const QString& text, bool tuner::LiveButtons::*enabled_by,
                         std::function<void()> action);
  /// Shows why `write` failed (core's write_failed_text) on the status line and, when the
  /// version it compared had moved (a conflict), has the rule read again. @return the text
  QString showFailure(tuner::LiveWrite write, const JobError& error);
  /// The audit entry of a write: changeAuthor(), `reason`, and the version it compares
  /// (nullopt: whatever is stored).
  static redis::ChangeInfo change(std::string reason,
                                  std::optional<std::int64_t> expect_version = std::nullopt);

  tuner::TunerSession& m_session;
  QPointer<TunerWorker> m_redis;
  const LiveRuleSource& m_rule;

 private:
  std::vector<std::pair<QPushButton*, bool tuner::LiveButtons::*>> m_buttons;
};

}  // namespace limitscope::ui
