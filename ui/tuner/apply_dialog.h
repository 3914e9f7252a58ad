#pragma once
// The diff an operator confirms before a live rule changes: old -> new, what the change
// reaches, the 429s the loaded trace predicts for each, anything Redis would refuse, and the
// reason that goes into the audit entry (required).

#include <QDialog>

#include "core/tuner/candidate.h"

QT_BEGIN_NAMESPACE
class QDialogButtonBox;
class QLabel;
class QLineEdit;
QT_END_NAMESPACE

namespace limitscope::ui {

class ApplyDialog : public QDialog {
  Q_OBJECT
 public:
  /// @param target "redis://host:port rule R" (redacted), shown in the title line
  /// @param key_shown the override's key as the dashboard names it ("acme-prod (…)"); empty:
  ///        the preview's key as is
  ApplyDialog(const tuner::ChangePreview& preview, const QString& target, const QString& who,
              const QString& key_shown = {}, QWidget* parent = nullptr);

  QString reason() const;
  void setReason(const QString& reason);
  /// The whole diff as shown (for tests).
  QString diffText() const;
  bool canApply() const;

 private:
  void updateButtons();

  QLabel* m_diff = nullptr;
  QLineEdit* m_reason = nullptr;
  QDialogButtonBox* m_buttons = nullptr;
  bool m_refused = false;
};

}  // namespace limitscope::ui
