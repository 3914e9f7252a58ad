#pragma once
// The Tuner's live-rule panel: the rule and its key prefix, the scope of a change (the whole
// rule or one key's override), a composite rule's limit, "Allow writes", Apply and Undo, Put
// in shadow and Clear shadow, and the live status. It binds them to the session's live rule:
// core (core/tuner/tuner_session.h, candidate.h) decides what is refused, what a change writes
// and what the status says; the Redis work runs on the Redis worker (live_panel_apply.cpp,
// live_panel_shadow.cpp).

#include <QGroupBox>
#include <QPointer>
#include <optional>

#include "core/redis/rule_config.h"
#include "core/tuner/tuner_session.h"
#include "ui/tuner/apply_dialog.h"
#include "ui/tuner/tuner_shared.h"

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
  explicit LivePanel(TunerShared& shared, QWidget* parent = nullptr);

  QString rule() const;
  /// Names the rule (what was read of another rule is forgotten); ruleSet.
  void setRule(const QString& rule);
  QString prefix() const;
  /// The connection, the prefix and the rule.
  RuleTarget target() const;
  /// The key whose override is set, or "" for the whole rule.
  QString overrideKey() const;
  /// Chooses the scope: "" the whole rule, else that key's override (the live setting shown).
  void setOverrideKey(const QString& key);
  /// "acme-prod (0123…:gpt-4.1)" for a key the dashboard names, else the key as is.
  QString keyShown(const QString& key) const;
  /// A composite rule's limit the candidate replaces ("" = the whole composite, or not a
  /// composite).
  QString compositeLimit() const;
  /// The rule's config as last read or written.
  const std::optional<redis::RuleConfig>& liveConfig() const { return m_shared.session.live(); }

  void readLiveConfig();
  /// "Allow writes to <url>": nothing is written to Redis unless this is on.
  void setWritesArmed(bool armed);
  /// Opens the diff dialog (refused with a message when writes are not armed).
  void requestApply();
  ApplyDialog* applyDialog() const { return m_applyDialog; }
  void undo();
  /// Stores the candidate as the rule's shadow config (what Apply would make of the whole
  /// rule), on the Redis worker: audited, compare-and-set on the shadow's version as last read
  /// or written; shadowFinished says how it went.
  void putInShadow();
  void clearShadow();
  /// Apply, Undo, shadow and the decision stream's button as core says (live_buttons).
  void updateLiveButtons();
  /// The Redis worker's replies (wired by the tab).
  void onConfig(const ConfigResult& result);
  void onShadow(const ShadowResult& result);
  void onKeyCounts(const KeyCountsResult& result);

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
  void configRead(const QString& message);
  void applyFinished(bool ok, const QString& message);
  /// Put in shadow or Clear shadow finished (the live status says the same).
  void shadowFinished(bool ok, const QString& message);
  /// The diff dialog opened (at once, or once a key's predicted counts are computed).
  void applyDialogOpened();
  /// The current editor shows the live setting of the scope (TunerShared::current).
  void liveSettingShown();
  /// Whether a rule's decision stream can be read (a connection).
  void streamAvailable(bool available);
  void ruleSet(const QString& rule);

 private:
  void onConfigWritten(const ConfigResult& result);
  /// The current setting is the live one for the scope (read-only), or typed when there is
  /// none (replacing a whole composite, a rule without a config).
  void showLiveSetting();
  /// Refuses Apply or Undo with `why` (applyFinished false).
  void refuse(const QString& why);
  void openApplyDialog(std::optional<tuner::Counts> current,
                       std::optional<tuner::Counts> candidate);
  /// The audit entry's who and why and the shadow's compare-and-set version, or nullopt after
  /// showing why `check` failed (shadowFinished false).
  std::optional<redis::ChangeInfo> shadowChange(const Status& check);
  QString who() const;

  TunerShared& m_shared;
  bool m_connected = false;
  QPointer<ApplyDialog> m_applyDialog;
  QString m_afterRead;  // why the config is being re-read, kept in front of what it says
  std::int64_t m_shadowVersion = 0;  // the rule's shadow version as last read or written
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
