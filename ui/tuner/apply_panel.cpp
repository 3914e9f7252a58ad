// Apply and Undo: refused by core with the reason, or the diff dialog (the what-if series'
// totals, or a key's counts replayed on the Redis worker), then the write on the Redis worker
// and what core says of it.

#include "ui/tuner/apply_panel.h"

#include "core/tuner/candidate.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

ApplyPanel::ApplyPanel(const Parts& parts, QWidget* parent) : LiveWriter(parts, parent) {
  addButton(tr("Apply candidate…"), &tuner::LiveButtons::apply, [this] { requestApply(); });
  addButton(tr("Undo last change"), &tuner::LiveButtons::undo, [this] { undo(); });
}

void ApplyPanel::refuse(const QString& why) {
  emit statusChanged(why, true);
  emit applyFinished(false, why);
}

void ApplyPanel::requestApply() {
  const LiveRuleEntry rule = m_rule.liveRule();
  if (const Status check = tuner::check_apply(
          rule.inputs, m_session.setting(tuner::TunerSession::candidate).problems());
      !check.ok())
    return refuse(qs(check.error()));
  if (!rule.overrideKey.isEmpty() && m_session.trace()) {
    // That key's predicted counts come from a replay of its requests, off this thread.
    emit statusChanged(tr("Predicting %1's 429s on the trace…").arg(rule.overrideKey), false);
    QMetaObject::invokeMethod(
        m_redis, [w = m_redis, t = m_session.trace(), k = rule.overrideKey.toStdString(),
                  cur = m_session.setting(tuner::TunerSession::current).params(),
                  cand = m_session.setting(tuner::TunerSession::candidate).params(),
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

void ApplyPanel::onKeyCounts(const KeyCountsResult& r) {
  if (!m_session.key_counts_current(r.request)) return;  // a newer Apply was asked for
  if (!r.counts.ok()) return refuse(tr("Refused: %1").arg(r.counts.error().message));
  const std::optional<KeyCounts>& counts = *r.counts;
  if (!counts) {
    const QString key = m_rule.liveRule().overrideKey;
    emit statusChanged(tr("Key %1 has no requests in the loaded trace.")
                           .arg(qs(tuner::key_shown(m_session.key_names(), key.toStdString()))),
                       false);
    openApplyDialog(std::nullopt, std::nullopt);
    return;
  }
  openApplyDialog(counts->current, counts->candidate);
}

void ApplyPanel::openApplyDialog(std::optional<tuner::Counts> cur,
                                 std::optional<tuner::Counts> cand) {
  const LiveRuleEntry rule = m_rule.liveRule();
  const auto preview =
      tuner::preview_change(rule.target.rule.toStdString(), m_session.live(),
                            m_session.setting(tuner::TunerSession::candidate).params(), cur, cand,
                            rule.overrideKey.toStdString(), rule.compositeLimit.toStdString());
  if (m_applyDialog) m_applyDialog->deleteLater();
  m_applyDialog = new ApplyDialog(
      preview, tr("%1 rule %2").arg(qs(m_session.url_shown()), rule.target.rule), changeAuthor(),
      qs(tuner::key_shown(m_session.key_names(), rule.overrideKey.toStdString())), this);
  m_applyDialog->setAttribute(Qt::WA_DeleteOnClose);
  const redis::RuleConfig config = preview.config;
  const std::int64_t version = preview.expect_version;
  connect(m_applyDialog, &QDialog::accepted, this, [this, config, version, t = rule.target] {
    // Version 0: the rule must not exist yet.
    const redis::ChangeInfo change = LiveWriter::change(
        m_applyDialog ? m_applyDialog->reason().toStdString() : std::string(), version);
    emit statusChanged(tr("Writing version %1…").arg(version + 1), false);
    QMetaObject::invokeMethod(m_redis, [w = m_redis, t, config, change] {
      if (w) w->applyConfig(t, config, change);
    });
  });
  m_applyDialog->open();
  emit applyDialogOpened();
}

void ApplyPanel::undo() {
  const LiveRuleEntry rule = m_rule.liveRule();
  if (const Status check = tuner::check_undo(rule.inputs); !check.ok())
    return refuse(qs(check.error()));
  const redis::ChangeInfo change = LiveWriter::change("undo from the limitscope Tuner");
  emit statusChanged(tr("Undoing the last change…"), false);
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t = rule.target, change] {
    if (w) w->undoConfig(t, change);
  });
}

void ApplyPanel::onConfig(const ConfigResult& r) {
  if (r.op == ConfigResult::Op::read) return;  // the live panel's
  const bool undo = r.op == ConfigResult::Op::undo;
  if (r.live.ok()) {
    m_session.set_live(r.live->config);
    m_session.written(!undo);
    emit liveWritten();
    const QString text =
        qs(tuner::config_written_text(undo, m_session.live(), changeAuthor().toStdString()));
    emit statusChanged(text, false);
    emit applyFinished(true, text);
    return;
  }
  const auto write = undo ? tuner::LiveWrite::undo : tuner::LiveWrite::apply;
  emit applyFinished(false, showFailure(write, r.live.error()));
}

}  // namespace limitscope::ui
