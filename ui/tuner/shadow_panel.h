#pragma once
// The live rule's shadow (issue 19 item 2): the candidate stored as the rule's shadow config —
// evaluated by every decision, never enforced — and cleared again. The same core path as
// `limitscope-cli shadow set|clear` (set_shadow/clear_shadow: audit entry, compare-and-set on
// the session's shadow version as last read or written), on the Redis worker; core says what
// is refused and what the status reads. The rule comes from the live panel's fields
// (LiveRuleSource), and what to show goes to its status line (statusChanged).

#include <QPointer>
#include <optional>

#include "core/redis/rule_config.h"
#include "ui/tuner/live_writer.h"
#include "ui/tuner/tuner_worker.h"

namespace limitscope::ui {

class ShadowPanel : public LiveWriter {
  Q_OBJECT
 public:
  explicit ShadowPanel(const Parts& parts, QWidget* parent = nullptr);

  /// Stores the candidate as the rule's shadow config (what Apply would make of the whole
  /// rule), on the Redis worker; shadowFinished says how it went.
  void putInShadow();
  void clearShadow();
  /// The Redis worker's reply (wired by the tab).
  void onShadow(const ShadowResult& result);

 signals:
  /// Put in shadow or Clear shadow finished (the live status says the same).
  void shadowFinished(bool ok, const QString& message);

 private:
  /// Shows why `check` failed (the status line, shadowFinished false); false when it passed.
  bool refused(const Status& check);
};

}  // namespace limitscope::ui
