#pragma once
// The live rule's Apply and Undo: the diff dialog of the candidate against the live config (the
// trace's predicted 429s beside it, a key's own replayed on the Redis worker), then the
// compare-and-set write with its audit entry, or the undo of this session's last change. Core
// decides what is refused, what a change writes and what the status says
// (core/tuner/tuner_session.h, candidate.h); the rule comes from the live panel's fields
// (LiveRuleSource), and what to show goes to its status line (statusChanged).

#include <QPointer>
#include <optional>

#include "ui/tuner/apply_dialog.h"
#include "ui/tuner/live_writer.h"
#include "ui/tuner/tuner_worker.h"

namespace limitscope::ui {

class ApplyPanel : public LiveWriter {
  Q_OBJECT
 public:
  explicit ApplyPanel(const Parts& parts, QWidget* parent = nullptr);

  /// Opens the diff dialog (refused with a message when writes are not armed).
  void requestApply();
  ApplyDialog* applyDialog() const { return m_applyDialog; }
  void undo();
  /// The Redis worker's replies (wired by the tab): a written config (a read is the live
  /// panel's), a key's predicted counts.
  void onConfig(const ConfigResult& result);
  void onKeyCounts(const KeyCountsResult& result);

 signals:
  void applyFinished(bool ok, const QString& message);
  /// The diff dialog opened (at once, or once a key's predicted counts are computed).
  void applyDialogOpened();
  /// A write changed the session's live config: the live panel shows it.
  void liveWritten();

 private:
  /// Refuses Apply or Undo with `why` (applyFinished false).
  void refuse(const QString& why);
  void openApplyDialog(std::optional<tuner::Counts> current,
                       std::optional<tuner::Counts> candidate);

  QPointer<ApplyDialog> m_applyDialog;
};

}  // namespace limitscope::ui
