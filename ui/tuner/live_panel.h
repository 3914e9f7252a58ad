#pragma once
// The Tuner's live-rule panel: the rule and its key prefix, Read config, the scope of a change
// (the whole rule or one key's override), a composite rule's limit, "Allow writes", and the
// live status. It binds them to the session's live rule: core (core/tuner/tuner_session.h)
// decides what is refused and what the status says; the read runs on the Redis worker. The
// writers sit in its box but own their buttons and handlers: ApplyPanel (Apply, Undo) and
// ShadowPanel (Put in shadow, Clear shadow) read the fields through LiveRuleSource and tell
// the status line what to say by signals, which the tab connects.

#include <QGroupBox>
#include <QPointer>
#include <optional>

#include "core/redis/rule_config.h"
#include "core/tuner/tuner_session.h"
#include "ui/tuner/live_rule.h"
#include "ui/tuner/tuner_worker.h"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
QT_END_NAMESPACE

namespace limitscope::ui {

class LivePanel : public QGroupBox, public LiveRuleSource {
  Q_OBJECT
 public:
  /// @param session the connection, the live rule's config and shadow version, the key names,
  ///        the candidate (whose validity Apply's button follows)
  /// @param redis the worker that reads the rule
  LivePanel(tuner::TunerSession& session, TunerWorker* redis, QWidget* parent = nullptr);

  QString rule() const;
  /// Names the rule (what was read of another rule is forgotten); ruleSet.
  void setRule(const QString& rule);
  /// The key whose override is set, or "" for the whole rule.
  QString overrideKey() const;
  /// Chooses the scope: "" the whole rule, else that key's override (the live setting shown).
  void setOverrideKey(const QString& key);
  /// "acme-prod (0123…:gpt-4.1)" for a key the dashboard names, else the key as is.
  QString keyShown(const QString& key) const;
  /// A composite rule's limit the candidate replaces ("" = the whole composite, or not a
  /// composite).
  QString compositeLimit() const;
  void chooseLimit(const QString& name);
  /// The rule's config as last read or written.
  const std::optional<redis::RuleConfig>& liveConfig() const { return m_session.live(); }
  /// The fields: the target, core's inputs, the scope and the composite's limit.
  LiveRuleEntry liveRule() const override;
  /// A row of buttons in the box, above the status (the writers').
  void addActionRow(QWidget* row);

  void readLiveConfig();
  /// Reads the config again after a write found it changed: `why` stays in front of what the
  /// read says.
  void rereadAfter(const QString& why);
  /// "Allow writes to <url>": nothing is written to Redis unless this is on.
  void setWritesArmed(bool armed);
  /// The buttons as core says (live_buttons): Read, Allow writes here, the rest by
  /// buttonsChanged and streamAvailable.
  void updateLiveButtons();
  /// The Redis worker's reply to a read (wired by the tab; writes are ApplyPanel's).
  void onConfig(const ConfigResult& result);
  /// A write changed the session's live config: its limits, its setting and the buttons.
  void showWritten();
  void setStatus(const QString& text, bool error);
  QString status() const;

 signals:
  void configRead(const QString& message);
  /// The live setting of the scope, for the current editor to show (read-only).
  void liveSettingShown(const LimitParams& params);
  /// There is no live setting for the scope (no config, or a whole composite replaced): the
  /// current setting is typed.
  void currentSettingTyped();
  /// Which writers' buttons work (ApplyPanel, ShadowPanel).
  void buttonsChanged(const tuner::LiveButtons& buttons);
  /// Whether a rule's decision stream can be read (a connection).
  void streamAvailable(bool available);
  void ruleSet(const QString& rule);

 private:
  /// The current setting is the live one for the scope (read-only), or typed when there is
  /// none (replacing a whole composite, a rule without a config).
  void showLiveSetting();
  /// Lists a composite rule's limits (keeping the one chosen, by name); hidden for other rules.
  void showLimits();

  tuner::TunerSession& m_session;
  QPointer<TunerWorker> m_redis;
  QString m_afterRead;  // why the config is being re-read, kept in front of what it says
  QFormLayout* m_form = nullptr;
  QLineEdit* m_rule = nullptr;
  QLineEdit* m_prefix = nullptr;
  QComboBox* m_scope = nullptr;
  QLineEdit* m_overrideKey = nullptr;
  QComboBox* m_limitBox = nullptr;
  QLabel* m_limitLabel = nullptr;
  QPushButton* m_readButton = nullptr;
  QCheckBox* m_arm = nullptr;
  QLabel* m_status = nullptr;
};

}  // namespace limitscope::ui
