// The live panel's shadow actions (issue 19 item 2): the candidate stored as the rule's shadow
// config — evaluated by every decision, never enforced — and cleared again. The same core path
// as `limitscope-cli shadow set|clear` (set_shadow/clear_shadow: audit entry, compare-and-set
// on the shadow's version as last read or written), on the Redis worker; core says what is
// refused and what the status reads.

#include "core/tuner/candidate.h"
#include "ui/qt_text.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"

namespace limitscope::ui {

namespace {

constexpr const char* kShadowReason = "shadow from the limitscope Tuner";

}  // namespace

std::optional<redis::ChangeInfo> LivePanel::shadowChange(const Status& check) {
  if (!check.ok()) {
    setStatus(qs(check.error()), true);
    emit shadowFinished(false, status());
    return std::nullopt;
  }
  redis::ChangeInfo change;
  change.by = who().toStdString();
  change.reason = kShadowReason;
  change.expect_version = m_shadowVersion;
  return change;
}

void LivePanel::putInShadow() {
  // What Apply would make of the whole rule (a composite's chosen limit replaced).
  const auto plan = tuner::preview_change(rule().toStdString(), m_shared.session.live(),
                                          m_shared.candidate->params(), std::nullopt, std::nullopt,
                                          {}, compositeLimit().toStdString());
  Status check = tuner::check_shadow(inputs(), m_shared.candidate->problems());
  if (check.ok() && !plan.check.ok()) check = make_error("Refused: " + plan.check.error());
  const auto change = shadowChange(check);
  if (!change) return;
  setStatus(tr("Writing shadow version %1…").arg(m_shadowVersion + 1), false);
  QMetaObject::invokeMethod(m_shared.redis,
                            [w = m_shared.redis, t = target(), config = plan.config, c = *change] {
                              if (w) w->setShadow(t, config, c);
                            });
}

void LivePanel::clearShadow() {
  const auto change = shadowChange(tuner::check_undo(inputs()));
  if (!change) return;
  setStatus(tr("Clearing the shadow…"), false);
  QMetaObject::invokeMethod(m_shared.redis, [w = m_shared.redis, t = target(), c = *change] {
    if (w) w->clearShadow(t, c);
  });
}

void LivePanel::onShadow(const ShadowResult& r) {
  const std::string name = rule().toStdString();
  if (r.error.isEmpty()) {
    m_shadowVersion = r.version;
    setStatus(qs(r.cleared ? tuner::shadow_cleared_text(name, r.version, who().toStdString())
                           : tuner::shadow_written_text(name, *r.shadow, who().toStdString())),
              false);
    emit shadowFinished(true, status());
    return;
  }
  QString message =
      tr("%1 failed: %2").arg(r.cleared ? tr("Clear shadow") : tr("Put in shadow"), r.error);
  if (r.conflict) {
    message =
        tr("Not written: the rule's shadow changed since it was read (someone else set or cleared "
           "it). Nothing was changed; the config is being reloaded — check it and try again.");
    m_afterRead = message;
    readLiveConfig();
  }
  setStatus(message, true);
  emit shadowFinished(false, message);
}

}  // namespace limitscope::ui
