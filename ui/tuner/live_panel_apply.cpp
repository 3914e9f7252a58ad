// The live panel's work: reading the rule's config, arming writes, Apply (diff, compare-and-set,
// audit entry) and Undo. Redis I/O runs on the Redis worker; core (tuner_session.h) decides
// what is refused and what the status says; this file asks and shows.

#include "core/tuner/candidate.h"
#include "ui/qt_text.h"
#include "ui/tuner/apply_dialog.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"

namespace limitscope::ui {

RuleTarget LivePanel::target() const {
  return {m_shared.redisUrl, prefix(), rule()};
}

QString LivePanel::who() const {
  const QByteArray user = qgetenv("USER");
  return qs(tuner::change_author(user.isNull() ? nullptr : user.constData()));
}

QString LivePanel::keyShown(const QString& key) const {
  return qs(tuner::key_shown(m_shared.names, key.toStdString()));
}

QString LivePanel::compositeLimit() const {
  const auto& live = m_shared.session.live();
  return live && live->composite() ? chosenLimit() : QString();
}

void LivePanel::showLiveSetting() {
  if (!m_shared.session.live()) return;
  const auto live =
      m_shared.session.live_setting(overrideKey().toStdString(), compositeLimit().toStdString());
  if (!live) {
    m_shared.current->setEditable(true);
    return;
  }
  m_shared.current->setParams(*live);
  m_shared.current->setEditable(false);
  emit liveSettingShown();
}

void LivePanel::refuse(const QString& why) {
  setStatus(why, true);
  emit applyFinished(false, why);
}

void LivePanel::updateLiveButtons() {
  const auto buttons =
      tuner::live_buttons(inputs(), m_shared.candidate->isValid(), m_shared.session.can_undo());
  setButtons(buttons);
  emit streamAvailable(buttons.stream);
}

void LivePanel::readLiveConfig() {
  if (const Status check = tuner::check_read(inputs()); !check.ok()) {
    setStatus(qs(check.error()), true);
    emit configRead(status());
    return;
  }
  setStatus(tr("Reading %1…").arg(rule()), false);
  QMetaObject::invokeMethod(m_shared.redis, [w = m_shared.redis, t = target()] {
    if (w) w->readConfig(t);
  });
}

void LivePanel::setWritesArmed(bool armed) {
  setArmed(armed);  // re-enters through the box's toggled when it changes
  setStatus(armed ? tr("Writes allowed to %1.").arg(m_shared.redisShown)
                  : tr("Read-only: nothing is written until writes are allowed."),
            false);
  updateLiveButtons();
}

void LivePanel::requestApply() {
  if (const Status check = tuner::check_apply(inputs(), m_shared.candidate->problems());
      !check.ok())
    return refuse(qs(check.error()));
  if (!overrideKey().isEmpty() && m_shared.session.trace()) {
    // That key's predicted counts come from a replay of its requests, off this thread.
    setStatus(tr("Predicting %1's 429s on the trace…").arg(overrideKey()), false);
    QMetaObject::invokeMethod(
        m_shared.redis,
        [w = m_shared.redis, t = m_shared.session.trace(), k = overrideKey().toStdString(),
         cur = m_shared.current->params(), cand = m_shared.candidate->params(),
         request = m_shared.session.next_key_counts()] {
          if (w) w->keyCounts(t, k, cur, cand, request);
        });
    return;
  }
  // The preview's totals are the what-if series' (equal to replay on the loaded trace).
  std::optional<tuner::Counts> cur, cand;
  const auto& current = m_shared.session.series(tuner::TunerSession::current);
  const auto& candidate = m_shared.session.series(tuner::TunerSession::candidate);
  if (current && candidate) {
    cur = current->total;
    cand = candidate->total;
  }
  openApplyDialog(cur, cand);
}

void LivePanel::onKeyCounts(const KeyCountsResult& r) {
  if (!m_shared.session.key_counts_current(r.request)) return;  // a newer Apply was asked for
  if (!r.error.isEmpty()) return refuse(tr("Refused: %1").arg(r.error));
  if (!r.current)
    setStatus(tr("Key %1 has no requests in the loaded trace.").arg(keyShown(overrideKey())),
              false);
  openApplyDialog(r.current, r.candidate);
}

void LivePanel::openApplyDialog(std::optional<tuner::Counts> cur,
                                std::optional<tuner::Counts> cand) {
  const auto preview = tuner::preview_change(
      rule().toStdString(), m_shared.session.live(), m_shared.candidate->params(), cur, cand,
      overrideKey().toStdString(), compositeLimit().toStdString());
  if (m_applyDialog) m_applyDialog->deleteLater();
  m_applyDialog = new ApplyDialog(preview, tr("%1 rule %2").arg(m_shared.redisShown, rule()), who(),
                                  keyShown(overrideKey()), this);
  m_applyDialog->setAttribute(Qt::WA_DeleteOnClose);
  const redis::RuleConfig config = preview.config;
  const std::int64_t version = preview.expect_version;
  connect(m_applyDialog, &QDialog::accepted, this, [this, config, version] {
    redis::ChangeInfo change;
    change.by = who().toStdString();
    change.reason = m_applyDialog ? m_applyDialog->reason().toStdString() : std::string();
    change.expect_version = version;  // 0: the rule must not exist yet
    setStatus(tr("Writing version %1…").arg(version + 1), false);
    QMetaObject::invokeMethod(m_shared.redis, [w = m_shared.redis, t = target(), config, change] {
      if (w) w->applyConfig(t, config, change);
    });
  });
  m_applyDialog->open();
  emit applyDialogOpened();
}

void LivePanel::undo() {
  if (const Status check = tuner::check_undo(inputs()); !check.ok())
    return refuse(qs(check.error()));
  redis::ChangeInfo change;
  change.by = who().toStdString();
  change.reason = "undo from the limitscope Tuner";
  setStatus(tr("Undoing the last change…"), false);
  QMetaObject::invokeMethod(m_shared.redis, [w = m_shared.redis, t = target(), change] {
    if (w) w->undoConfig(t, change);
  });
}

void LivePanel::onConfig(const ConfigResult& r) {
  if (r.op != ConfigResult::Op::read) return onConfigWritten(r);
  if (!r.error.isEmpty()) {
    setStatus(tr("Reading the config failed: %1").arg(r.error), true);
    emit configRead(status());
    return;
  }
  m_shared.session.set_live(r.config);
  m_shadowVersion = r.shadow_version;
  showLimits(m_shared.session.live());
  if (!r.config) m_shared.current->setEditable(true);  // the current setting is typed
  showLiveSetting();
  QString text = qs(tuner::config_read_text(rule().toStdString(), r.config));
  const bool after = !m_afterRead.isEmpty();
  if (after) text = std::exchange(m_afterRead, {}) + QLatin1Char(' ') + text;
  setStatus(text, after);
  updateLiveButtons();
  emit configRead(status());
}

void LivePanel::onConfigWritten(const ConfigResult& r) {
  const bool undo = r.op == ConfigResult::Op::undo;
  if (r.error.isEmpty()) {
    m_shared.session.set_live(r.config);
    m_shared.session.written(!undo);
    showLimits(m_shared.session.live());
    showLiveSetting();
    setStatus(qs(tuner::config_written_text(undo, m_shared.session.live(), who().toStdString())),
              false);
    updateLiveButtons();
    emit applyFinished(true, status());
    return;
  }
  if (!r.conflict) return refuse(tr("%1 failed: %2").arg(undo ? tr("Undo") : tr("Apply"), r.error));
  const QString message =
      tr("Not written: the rule changed since it was read (someone else applied a version). "
         "Nothing was changed; the live config is being reloaded — check it and apply again.");
  m_afterRead = message;
  readLiveConfig();
  setStatus(message, true);
  emit applyFinished(false, message);
}

}  // namespace limitscope::ui
