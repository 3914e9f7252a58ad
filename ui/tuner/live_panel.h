#pragma once
// The Tuner's live-rule panel: the rule and its key prefix, the scope of a change (the whole
// rule or one key's override), a composite rule's limit, "Allow writes", Apply and Undo, Put
// in shadow and Clear shadow, and the live status. It only binds: the tab decides
// (core/tuner/tuner_session.h) and runs the Redis work on its worker.

#include <QGroupBox>
#include <optional>

#include "core/redis/rule_config.h"
#include "core/tuner/tuner_session.h"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
QT_END_NAMESPACE

namespace limitscope::ui {

class LivePanel : public QGroupBox {
  Q_OBJECT
 public:
  /// @param redis_shown the connection, redacted ("" when the app has none)
  LivePanel(bool connected, const QString& redis_shown, QWidget* parent = nullptr);

  QString rule() const;
  void setRule(const QString& rule);
  QString prefix() const;
  /// The key whose override is set, or "" for the whole rule.
  QString overrideKey() const;
  /// Chooses the scope: "" the whole rule, else that key's override.
  void setOverrideKey(const QString& key);
  /// The fields as the core's checks take them.
  tuner::LiveInputs inputs() const;
  /// Lists a composite rule's limits (keeping the one chosen, by name); hidden for other rules.
  void showLimits(const std::optional<redis::RuleConfig>& live);
  /// The composite's limit chosen ("" = the whole composite).
  QString chosenLimit() const;
  void chooseLimit(const QString& name);
  bool armed() const;
  void setArmed(bool armed);
  void setButtons(const tuner::LiveButtons& buttons);
  void setStatus(const QString& text, bool error);
  QString status() const;

 signals:
  void readClicked();
  void armToggled(bool armed);
  void applyClicked();
  void undoClicked();
  void shadowClicked();
  void clearShadowClicked();
  /// The scope, the key or the composite's limit changed: the live setting to show changed.
  void scopeChanged();
  void ruleEdited();

 private:
  bool m_connected = false;
  QLineEdit* m_rule = nullptr;
  QLineEdit* m_prefix = nullptr;
  QComboBox* m_scope = nullptr;
  QLineEdit* m_overrideKey = nullptr;
  QComboBox* m_limitBox = nullptr;
  QLabel* m_limitLabel = nullptr;
  QPushButton* m_readButton = nullptr;
  QCheckBox* m_arm = nullptr;
  QPushButton* m_applyButton = nullptr;
  QPushButton* m_undoButton = nullptr;
  QPushButton* m_shadowButton = nullptr;
  QPushButton* m_clearShadowButton = nullptr;
  QLabel* m_status = nullptr;
};

}  // namespace limitscope::ui
