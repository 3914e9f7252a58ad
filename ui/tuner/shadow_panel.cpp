// Put in shadow and Clear shadow: refused by core with the reason, or written on the Redis
// worker, and what core says of it.

#include "ui/tuner/shadow_panel.h"

#include <QPushButton>

#include "core/tuner/candidate.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

namespace {

constexpr const char* kShadowReason = "shadow from the limitscope Tuner";

}  // namespace

ShadowPanel::ShadowPanel(const Parts& parts, QWidget* parent) : LiveWriter(parts, parent) {
  addButton(tr("Put in shadow"), &tuner::LiveButtons::shadow, [this] { putInShadow(); })
      ->setToolTip(tr(
          "Store the candidate as the rule's shadow config (audited, compare-and-set): every "
          "decision evaluates it and none enforces it; the dashboard shows what it would refuse"));
  addButton(tr("Clear shadow"), &tuner::LiveButtons::clear_shadow, [this] { clearShadow(); });
}

bool ShadowPanel::refused(const Status& check) {
  if (check.ok()) return false;
  emit statusChanged(qs(check.error()), true);
  emit shadowFinished(false, qs(check.error()));
  return true;
}

void ShadowPanel::putInShadow() {
  const LiveRuleEntry rule = m_rule.liveRule();
  // What Apply would make of the whole rule (a composite's chosen limit replaced).
  const auto plan = tuner::shadow_plan(rule.inputs, m_session.live(),
                                       m_session.setting(tuner::TunerSession::candidate).params(),
                                       m_session.setting(tuner::TunerSession::candidate).problems(),
                                       rule.compositeLimit.toStdString());
  if (!plan.ok()) {
    refused(make_error(plan.error()));
    return;
  }
  const redis::ChangeInfo c = change(kShadowReason, m_session.shadow_version());
  emit statusChanged(tr("Writing shadow version %1…").arg(m_session.shadow_version() + 1), false);
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t = rule.target, config = *plan, c] {
    if (w) w->setShadow(t, config, c);
  });
}

void ShadowPanel::clearShadow() {
  const LiveRuleEntry rule = m_rule.liveRule();
  if (refused(tuner::check_undo(rule.inputs))) return;
  const redis::ChangeInfo c = change(kShadowReason, m_session.shadow_version());
  emit statusChanged(tr("Clearing the shadow…"), false);
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t = rule.target, c] {
    if (w) w->clearShadow(t, c);
  });
}

void ShadowPanel::onShadow(const ShadowResult& r) {
  const std::string name = m_rule.liveRule().target.rule.toStdString();
  const std::string by = changeAuthor().toStdString();
  if (r.written.ok()) {
    const ShadowWritten& w = *r.written;
    m_session.set_shadow_version(w.version);
    const QString text = qs(r.cleared ? tuner::shadow_cleared_text(name, w.version, by)
                                      : tuner::shadow_written_text(name, *w.shadow, by));
    emit statusChanged(text, false);
    emit shadowFinished(true, text);
    return;
  }
  const auto write = r.cleared ? tuner::LiveWrite::clear_shadow : tuner::LiveWrite::put_shadow;
  emit shadowFinished(false, showFailure(write, r.written.error()));
}

}  // namespace limitscope::ui
