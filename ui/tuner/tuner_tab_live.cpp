// The Tuner's live rule: reading its config, arming writes, Apply (diff, compare-and-set,
// audit entry) and Undo. Redis I/O runs on the Redis worker; core (tuner_session.h) decides
// what is refused and what the status says; this file asks and shows.

#include "core/tuner/candidate.h"
#include "ui/qt_text.h"
#include "ui/tuner/apply_dialog.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/trace_panel.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {

RuleTarget TunerTab::target() const {
  return {m_redisUrl, m_livePanel->prefix(), m_livePanel->rule()};
}

QString TunerTab::who() const {
  const QString user = qEnvironmentVariable("USER");
  return user.isEmpty() ? QStringLiteral("limitscope") : user;
}

QString TunerTab::liveStatusText() const {
  return m_livePanel->status();
}

bool TunerTab::writesArmed() const {
  return m_livePanel->armed();
}

void TunerTab::setRule(const QString& rule) {
  m_livePanel->setRule(rule);
  m_tracePanel->suggestStreamRule(rule);
}

void TunerTab::setKeyNames(const std::vector<KeyRow>& rows) {
  KeyNames names;
  for (const KeyRow& r : rows) {
    if (!r.name.empty() && r.name != r.api_key) names.set(r.api_key, r.name);  // hashes only
  }
  m_names = std::move(names);
}

QString TunerTab::keyShown(const QString& key) const {
  const std::string* name = m_names.find(key.toStdString());
  return name != nullptr ? qs(*name) + QStringLiteral(" (") + key + QLatin1Char(')') : key;
}

void TunerTab::setOverrideKey(const QString& key) {
  m_livePanel->setOverrideKey(key);
  showLiveSetting();
}

void TunerTab::setCompositeLimit(const QString& name) {
  m_livePanel->chooseLimit(name);
}

QString TunerTab::compositeLimit() const {
  return m_session.live() && m_session.live()->composite() ? m_livePanel->chosenLimit() : QString();
}

QString TunerTab::overrideKey() const {
  return m_livePanel->overrideKey();
}

// The current setting is the live one for the scope (read-only), or typed when there is none
// (replacing a whole composite, a rule without a config).
void TunerTab::showLiveSetting() {
  if (!m_session.live()) return;
  const auto live =
      m_session.live_setting(overrideKey().toStdString(), compositeLimit().toStdString());
  if (!live) {
    m_current->setEditable(true);
    return;
  }
  m_current->setParams(*live);
  m_current->setEditable(false);
  requestWhatIf(true);
}

void TunerTab::setLiveStatus(const QString& text, bool error) {
  m_livePanel->setStatus(text, error);
}

void TunerTab::refuse(const QString& why) {
  setLiveStatus(why, true);
  emit applyFinished(false, why);
}

void TunerTab::updateLiveButtons() {
  const auto buttons =
      tuner::live_buttons(m_livePanel->inputs(), m_candidate->isValid(), m_session.can_undo());
  m_livePanel->setButtons(buttons);
  m_tracePanel->setStreamEnabled(buttons.stream);
}

void TunerTab::readLiveConfig() {
  if (m_redisUrl.isEmpty() || m_livePanel->rule().isEmpty()) {
    setLiveStatus(tr("Give a Redis connection (--redis URL) and a rule name."), true);
    emit configRead(liveStatusText());
    return;
  }
  setLiveStatus(tr("Reading %1…").arg(m_livePanel->rule()), false);
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t = target()] {
    if (w) w->readConfig(t);
  });
}

void TunerTab::setWritesArmed(bool armed) {
  m_livePanel->setArmed(armed);  // re-enters through armToggled when it changes
  setLiveStatus(armed ? tr("Writes allowed to %1.").arg(m_redisShown)
                      : tr("Read-only: nothing is written until writes are allowed."),
                false);
  updateLiveButtons();
}

void TunerTab::requestApply() {
  if (const auto why = tuner::apply_refusal(m_livePanel->inputs(), m_candidate->problems()))
    return refuse(qs(*why));
  if (!overrideKey().isEmpty() && m_session.trace()) {
    // That key's predicted counts come from a replay of its requests, off this thread.
    setLiveStatus(tr("Predicting %1's 429s on the trace…").arg(overrideKey()), false);
    QMetaObject::invokeMethod(m_redis,
                              [w = m_redis, t = m_session.trace(), k = overrideKey().toStdString(),
                               cur = m_current->params(), cand = m_candidate->params(),
                               request = m_session.next_key_counts()] {
                                if (w) w->keyCounts(t, k, cur, cand, request);
                              });
    return;
  }
  // The preview's totals are the what-if series' (equal to replay on the loaded trace).
  std::optional<tuner::Counts> cur, cand;
  const auto& current = m_session.series(tuner::TunerSession::current);
  const auto& candidate = m_session.series(tuner::TunerSession::candidate);
  if (current && candidate) {
    cur = current->total;
    cand = candidate->total;
  }
  openApplyDialog(cur, cand);
}

void TunerTab::onKeyCounts(const KeyCountsResult& r) {
  if (!m_session.key_counts_current(r.request)) return;  // a newer Apply was asked for
  if (!r.error.isEmpty()) return refuse(tr("Refused: %1").arg(r.error));
  if (!r.current)
    setLiveStatus(tr("Key %1 has no requests in the loaded trace.").arg(keyShown(overrideKey())),
                  false);
  openApplyDialog(r.current, r.candidate);
}

void TunerTab::openApplyDialog(std::optional<tuner::Counts> cur,
                               std::optional<tuner::Counts> cand) {
  const auto preview = tuner::preview_change(
      m_livePanel->rule().toStdString(), m_session.live(), m_candidate->params(), cur, cand,
      overrideKey().toStdString(), compositeLimit().toStdString());
  if (m_applyDialog) m_applyDialog->deleteLater();
  m_applyDialog = new ApplyDialog(preview, tr("%1 rule %2").arg(m_redisShown, m_livePanel->rule()),
                                  who(), keyShown(overrideKey()), this);
  m_applyDialog->setAttribute(Qt::WA_DeleteOnClose);
  const redis::RuleConfig config = preview.config;
  const std::int64_t version = preview.expect_version;
  connect(m_applyDialog, &QDialog::accepted, this, [this, config, version] {
    redis::ChangeInfo change;
    change.by = who().toStdString();
    change.reason = m_applyDialog ? m_applyDialog->reason().toStdString() : std::string();
    change.expect_version = version;  // 0: the rule must not exist yet
    setLiveStatus(tr("Writing version %1…").arg(version + 1), false);
    QMetaObject::invokeMethod(m_redis, [w = m_redis, t = target(), config, change] {
      if (w) w->applyConfig(t, config, change);
    });
  });
  m_applyDialog->open();
  emit applyDialogOpened();
}

void TunerTab::undo() {
  if (const auto why = tuner::undo_refusal(m_livePanel->inputs())) return refuse(qs(*why));
  redis::ChangeInfo change;
  change.by = who().toStdString();
  change.reason = "undo from the limitscope Tuner";
  setLiveStatus(tr("Undoing the last change…"), false);
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t = target(), change] {
    if (w) w->undoConfig(t, change);
  });
}

void TunerTab::onConfig(const ConfigResult& r) {
  if (r.op != ConfigResult::Op::read) return onConfigWritten(r);
  if (!r.error.isEmpty()) {
    setLiveStatus(tr("Reading the config failed: %1").arg(r.error), true);
    emit configRead(liveStatusText());
    return;
  }
  m_session.set_live(r.config);
  m_shadowVersion = r.shadow_version;
  m_livePanel->showLimits(m_session.live());
  if (!r.config) m_current->setEditable(true);  // the current setting is typed
  showLiveSetting();
  QString text = qs(tuner::config_read_text(m_livePanel->rule().toStdString(), r.config));
  const bool after = !m_afterRead.isEmpty();
  if (after) text = std::exchange(m_afterRead, {}) + QLatin1Char(' ') + text;
  setLiveStatus(text, after);
  updateLiveButtons();
  emit configRead(liveStatusText());
}

void TunerTab::onConfigWritten(const ConfigResult& r) {
  const bool undo = r.op == ConfigResult::Op::undo;
  if (r.error.isEmpty()) {
    m_session.set_live(r.config);
    m_session.written(!undo);
    m_livePanel->showLimits(m_session.live());
    showLiveSetting();
    setLiveStatus(qs(tuner::config_written_text(undo, m_session.live(), who().toStdString())),
                  false);
    updateLiveButtons();
    emit applyFinished(true, liveStatusText());
    return;
  }
  if (!r.conflict) return refuse(tr("%1 failed: %2").arg(undo ? tr("Undo") : tr("Apply"), r.error));
  const QString message =
      tr("Not written: the rule changed since it was read (someone else applied a version). "
         "Nothing was changed; the live config is being reloaded — check it and apply again.");
  m_afterRead = message;
  readLiveConfig();
  setLiveStatus(message, true);
  emit applyFinished(false, message);
}

}  // namespace limitscope::ui
