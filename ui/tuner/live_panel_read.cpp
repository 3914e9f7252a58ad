// The live panel's work: reading the rule's config on the Redis worker, the live setting of the
// scope, arming writes, and the buttons core allows. Core (tuner_session.h) decides what is
// refused and what the status says; this file asks and shows.

#include <QCheckBox>
#include <QComboBox>
#include <QPushButton>

#include "ui/qt_text.h"
#include "ui/tuner/live_panel.h"

namespace limitscope::ui {

QString LivePanel::keyShown(const QString& key) const {
  return qs(tuner::key_shown(m_session.key_names(), key.toStdString()));
}

QString LivePanel::compositeLimit() const {
  const auto& live = m_session.live();
  return live && live->composite() ? m_limitBox->currentData().toString() : QString();
}

void LivePanel::showLiveSetting() {
  if (!m_session.live()) return;
  const auto live =
      m_session.live_setting(overrideKey().toStdString(), compositeLimit().toStdString());
  if (!live) {
    emit currentSettingTyped();
    return;
  }
  emit liveSettingShown(*live);
}

void LivePanel::updateLiveButtons() {
  const auto buttons = tuner::live_buttons(
      liveRule().inputs, m_session.setting(tuner::TunerSession::candidate).valid(),
      m_session.can_undo());
  m_readButton->setEnabled(buttons.read);
  m_arm->setEnabled(buttons.arm);
  emit buttonsChanged(buttons);
  emit streamAvailable(buttons.stream);
}

void LivePanel::readLiveConfig() {
  if (const Status check = tuner::check_read(liveRule().inputs); !check.ok()) {
    setStatus(qs(check.error()), true);
    emit configRead(status());
    return;
  }
  setStatus(tr("Reading %1…").arg(rule()), false);
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t = liveRule().target] {
    if (w) w->readConfig(t);
  });
}

void LivePanel::rereadAfter(const QString& why) {
  m_afterRead = why;
  readLiveConfig();
}

void LivePanel::setWritesArmed(bool armed) {
  if (m_arm->isChecked() != armed) m_arm->setChecked(armed);  // re-enters through toggled
  setStatus(armed ? tr("Writes allowed to %1.").arg(qs(m_session.url_shown()))
                  : tr("Read-only: nothing is written until writes are allowed."),
            false);
  updateLiveButtons();
}

void LivePanel::onConfig(const ConfigResult& r) {
  if (r.op != ConfigResult::Op::read) return;  // a write: ApplyPanel's
  if (!r.live.ok()) {
    setStatus(tr("Reading the config failed: %1").arg(r.live.error().message), true);
    emit configRead(status());
    return;
  }
  const LiveConfig& live = *r.live;
  m_session.set_live(live.config);
  m_session.set_shadow_version(live.shadow_version);
  showLimits();
  if (!live.config) emit currentSettingTyped();
  showLiveSetting();
  QString text = qs(tuner::config_read_text(rule().toStdString(), live.config));
  const bool after = !m_afterRead.isEmpty();
  if (after) text = std::exchange(m_afterRead, {}) + QLatin1Char(' ') + text;
  setStatus(text, after);
  updateLiveButtons();
  emit configRead(status());
}

void LivePanel::showWritten() {
  showLimits();
  showLiveSetting();
  updateLiveButtons();
}

}  // namespace limitscope::ui
