// The Tuner's live rule: reading its config, arming writes, Apply (diff, compare-and-set,
// audit entry) and Undo. Redis I/O runs on the Redis worker; this file only decides what to
// ask and shows the answers.

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "core/redis/key_schema.h"
#include "core/tuner/candidate.h"
#include "ui/tuner/apply_dialog.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

QWidget* TunerTab::buildLivePanel() {
  auto* box = new QGroupBox(tr("Live rule"), this);
  auto* form = new QFormLayout(box);
  auto* where = new QLabel(m_redisUrl.isEmpty()
                               ? tr("No Redis connection (start limitscope with --redis URL); "
                                    "the current setting is entered by hand.")
                               : tr("Redis %1").arg(m_redisShown),
                           box);
  where->setWordWrap(true);
  form->addRow(where);
  m_rule = new QLineEdit(box);
  m_rule->setPlaceholderText(tr("rule name"));
  m_prefix = new QLineEdit(QString::fromUtf8(redis::kDefaultPrefix.data(),
                                             static_cast<int>(redis::kDefaultPrefix.size())),
                           box);
  auto* row = new QHBoxLayout;
  row->addWidget(m_rule, 2);
  row->addWidget(m_prefix, 1);
  m_readButton = new QPushButton(tr("Read config"), box);
  row->addWidget(m_readButton);
  form->addRow(tr("Rule, prefix"), row);
  auto* scopeRow = new QHBoxLayout;
  m_scope = new QComboBox(box);
  m_scope->addItems({tr("Whole rule"), tr("One key's override")});
  m_scope->setToolTip(tr("Apply to every key of the rule, or give one key its own parameters "
                         "(stored in the rule's config, audited and undoable like any change)"));
  m_overrideKey = new QLineEdit(box);
  m_overrideKey->setPlaceholderText(tr("limited key, e.g. demo-pro-1"));
  m_overrideKey->setEnabled(false);
  scopeRow->addWidget(m_scope);
  scopeRow->addWidget(m_overrideKey, 1);
  form->addRow(tr("Scope"), scopeRow);
  m_limitBox = new QComboBox(box);
  m_limitBox->setToolTip(tr("The rule is a composite (every limit must admit): the candidate "
                            "replaces this limit and the others stay"));
  m_limitLabel = new QLabel(tr("Limit"), box);
  form->addRow(m_limitLabel, m_limitBox);
  m_limitBox->hide();
  m_limitLabel->hide();
  connect(m_limitBox, &QComboBox::currentIndexChanged, this, [this] {
    showLiveSetting();
    updateLiveButtons();
  });
  m_arm = new QCheckBox(m_redisUrl.isEmpty() ? tr("Allow writes (no connection)")
                                             : tr("Allow writes to %1").arg(m_redisShown),
                        box);
  form->addRow(m_arm);
  auto* buttons = new QHBoxLayout;
  m_applyButton = new QPushButton(tr("Apply candidate…"), box);
  m_undoButton = new QPushButton(tr("Undo last change"), box);
  buttons->addWidget(m_applyButton);
  buttons->addWidget(m_undoButton);
  form->addRow(buttons);
  m_liveStatus = new QLabel(tr("Read-only: nothing is written until writes are allowed."), box);
  m_liveStatus->setWordWrap(true);
  form->addRow(m_liveStatus);
  connect(m_readButton, &QPushButton::clicked, this, &TunerTab::readLiveConfig);
  connect(m_arm, &QCheckBox::toggled, this, &TunerTab::setWritesArmed);
  connect(m_applyButton, &QPushButton::clicked, this, &TunerTab::requestApply);
  connect(m_undoButton, &QPushButton::clicked, this, &TunerTab::undo);
  connect(m_scope, &QComboBox::currentIndexChanged, this, [this](int index) {
    m_overrideKey->setEnabled(index == 1);
    showLiveSetting();
    updateLiveButtons();
  });
  connect(m_overrideKey, &QLineEdit::editingFinished, this, &TunerTab::showLiveSetting);
  connect(m_redis, &TunerWorker::keyCountsReady, this, &TunerTab::onKeyCounts);
  connect(m_rule, &QLineEdit::textChanged, this, [this] {
    m_live.reset();
    m_canUndo = false;
    m_current->setEditable(true);
    updateLiveButtons();
  });
  return box;
}

RuleTarget TunerTab::target() const {
  return {m_redisUrl, m_prefix->text().trimmed(), m_rule->text().trimmed()};
}

QString TunerTab::who() const {
  const QString user = qEnvironmentVariable("USER");
  return user.isEmpty() ? QStringLiteral("limitscope") : user;
}

QString TunerTab::liveStatusText() const {
  return m_liveStatus->text();
}
bool TunerTab::writesArmed() const {
  return m_arm->isChecked();
}

void TunerTab::setRule(const QString& rule) {
  m_rule->setText(rule);
  if (m_streamRule->text().isEmpty()) m_streamRule->setText(rule);
}

void TunerTab::setKeyNames(const std::vector<KeyRow>& rows) {
  KeyNames names;
  for (const KeyRow& r : rows) {
    if (!r.name.empty() && r.name != r.api_key) names.set(r.api_key, r.name);  // hashes only
  }
  m_names = std::move(names);
}

QString TunerTab::keyShown(const QString& key) const {
  const std::string k = key.toStdString();
  const std::string* name = m_names.find(k);
  return name != nullptr ? QString::fromStdString(*name) + QStringLiteral(" (") + key + QLatin1Char(')') : key;
}

void TunerTab::setOverrideKey(const QString& key) {
  m_overrideKey->setText(key);
  m_scope->setCurrentIndex(key.isEmpty() ? 0 : 1);
  showLiveSetting();
}

// The composite rule's limits (the selection kept by name), or hidden for other rules.
void TunerTab::fillLimitBox() {
  const QString selected = m_limitBox->currentData().toString();
  const bool composite = m_live && m_live->composite();
  m_limitBox->blockSignals(true);
  m_limitBox->clear();
  if (composite) {
    for (const auto& l : m_live->limits) {
      m_limitBox->addItem(QString::fromStdString(l.name + ": " + l.params.describe()),
                          QString::fromStdString(l.name));
    }
    m_limitBox->addItem(tr("the whole composite, replaced by one limit"), QString());
    const int keep = m_limitBox->findData(selected);
    if (keep >= 0 && !selected.isEmpty()) m_limitBox->setCurrentIndex(keep);
  }
  m_limitBox->blockSignals(false);
  m_limitBox->setVisible(composite);
  m_limitLabel->setVisible(composite);
}

void TunerTab::setCompositeLimit(const QString& name) {
  const int i = m_limitBox->findData(name);
  if (i >= 0) m_limitBox->setCurrentIndex(i);
}

QString TunerTab::compositeLimit() const {
  return m_live && m_live->composite() ? m_limitBox->currentData().toString() : QString();
}

QString TunerTab::overrideKey() const {
  return m_scope->currentIndex() == 1 ? m_overrideKey->text().trimmed() : QString();
}

// The current setting is the live one for the scope: the key's override (or the rule's limit
// it falls back to), or the rule's limit.
void TunerTab::showLiveSetting() {
  if (!m_live) return;
  if (m_live->composite()) {
    const QString name = compositeLimit();
    for (const auto& l : m_live->limits) {
      if (QString::fromStdString(l.name) == name) {
        m_current->setParams(l.params);
        m_current->setEditable(false);
        requestWhatIf(true);
        return;
      }
    }
    m_current->setEditable(true);  // replacing the whole composite: compare against an entry
    return;
  }
  m_current->setParams(m_live->params_for(overrideKey().toStdString()));
  m_current->setEditable(false);
  requestWhatIf(true);
}

void TunerTab::setLiveStatus(const QString& text, bool error) {
  m_liveStatus->setText(text);
  m_liveStatus->setStyleSheet(error ? QStringLiteral("color: #d03030;") : QString());
}

void TunerTab::updateLiveButtons() {
  const bool connected = !m_redisUrl.isEmpty();
  const bool named = !m_rule->text().trimmed().isEmpty();
  m_readButton->setEnabled(connected && named);
  m_arm->setEnabled(connected);
  m_streamButton->setEnabled(connected);
  const bool armed = m_arm->isChecked();
  m_applyButton->setEnabled(connected && named && armed && m_candidate->isValid());
  m_undoButton->setEnabled(connected && named && armed && m_canUndo);
}

void TunerTab::readLiveConfig() {
  if (m_redisUrl.isEmpty() || m_rule->text().trimmed().isEmpty()) {
    setLiveStatus(tr("Give a Redis connection (--redis URL) and a rule name."), true);
    emit configRead(m_liveStatus->text());
    return;
  }
  setLiveStatus(tr("Reading %1…").arg(m_rule->text().trimmed()), false);
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t = target()] {
    if (w) w->readConfig(t);
  });
}

void TunerTab::setWritesArmed(bool armed) {
  if (m_arm->isChecked() != armed) m_arm->setChecked(armed);  // re-enters through toggled
  setLiveStatus(armed ? tr("Writes allowed to %1.").arg(m_redisShown)
                      : tr("Read-only: nothing is written until writes are allowed."),
                false);
  updateLiveButtons();
}

void TunerTab::requestApply() {
  if (m_redisUrl.isEmpty() || !m_arm->isChecked()) {
    setLiveStatus(
        tr("Refused: writes to the live rule are not allowed. Tick \"Allow writes\" first."), true);
    emit applyFinished(false, m_liveStatus->text());
    return;
  }
  if (!m_candidate->isValid()) {
    setLiveStatus(tr("Refused: the candidate is not valid: %1")
                      .arg(q(m_candidate->problems().front().message)),
                  true);
    emit applyFinished(false, m_liveStatus->text());
    return;
  }
  if (m_scope->currentIndex() == 1 && overrideKey().isEmpty()) {
    setLiveStatus(tr("Refused: name the key whose override to set."), true);
    emit applyFinished(false, m_liveStatus->text());
    return;
  }
  if (!overrideKey().isEmpty() && m_trace) {
    // That key's predicted counts come from a replay of its requests, off this thread.
    setLiveStatus(tr("Predicting %1's 429s on the trace…").arg(overrideKey()), false);
    const int request = ++m_keyCountsRequest;
    QMetaObject::invokeMethod(m_redis, [w = m_redis, t = m_trace, k = overrideKey().toStdString(),
                                        cur = m_current->params(), cand = m_candidate->params(),
                                        request] {
      if (w) w->keyCounts(t, k, cur, cand, request);
    });
    return;
  }
  // The preview's totals are the what-if series' (equal to replay on the loaded trace).
  std::optional<tuner::Counts> cur, cand;
  if (m_currentSeries && m_candidateSeries) {
    cur = m_currentSeries->total;
    cand = m_candidateSeries->total;
  }
  openApplyDialog(cur, cand);
}

void TunerTab::onKeyCounts(const KeyCountsResult& r) {
  if (r.request != m_keyCountsRequest) return;  // a newer Apply was asked for
  if (!r.error.isEmpty()) {
    setLiveStatus(tr("Refused: %1").arg(r.error), true);
    emit applyFinished(false, m_liveStatus->text());
    return;
  }
  if (!r.current) setLiveStatus(tr("Key %1 has no requests in the loaded trace.").arg(keyShown(overrideKey())), false);
  openApplyDialog(r.current, r.candidate);
}

void TunerTab::openApplyDialog(std::optional<tuner::Counts> cur, std::optional<tuner::Counts> cand) {
  const auto preview = tuner::preview_change(m_rule->text().trimmed().toStdString(), m_live,
                                             m_candidate->params(), cur, cand,
                                             overrideKey().toStdString(),
                                             compositeLimit().toStdString());
  if (m_applyDialog) m_applyDialog->deleteLater();
  m_applyDialog = new ApplyDialog(preview, tr("%1 rule %2").arg(m_redisShown, m_rule->text().trimmed()), who(),
                                  keyShown(overrideKey()), this);
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
  if (m_redisUrl.isEmpty() || !m_arm->isChecked()) {
    setLiveStatus(
        tr("Refused: writes to the live rule are not allowed. Tick \"Allow writes\" first."), true);
    emit applyFinished(false, m_liveStatus->text());
    return;
  }
  redis::ChangeInfo change;
  change.by = who().toStdString();
  change.reason = "undo from the limitscope Tuner";
  setLiveStatus(tr("Undoing the last change…"), false);
  QMetaObject::invokeMethod(m_redis, [w = m_redis, t = target(), change] {
    if (w) w->undoConfig(t, change);
  });
}

void TunerTab::onConfig(const ConfigResult& r) {
  if (r.op == ConfigResult::Op::read) {
    if (!r.error.isEmpty()) {
      setLiveStatus(tr("Reading the config failed: %1").arg(r.error), true);
      emit configRead(m_liveStatus->text());
      return;
    }
    m_live = r.config;
    fillLimitBox();
    if (!m_live) {
      m_current->setEditable(true);
      setLiveStatus(tr("Rule %1 has no config yet: Apply creates it (version 1). The current "
                       "setting is entered.")
                        .arg(m_rule->text().trimmed()),
                    false);
    } else if (m_live->composite()) {
      showLiveSetting();
      setLiveStatus(tr("Rule %1 is a composite (%2, version %3): choose the limit to tune; "
                       "Apply replaces that limit and keeps the others.")
                        .arg(m_rule->text().trimmed(), q(m_live->describe()))
                        .arg(m_live->version),
                    false);
    } else {
      showLiveSetting();  // the live setting, not an entry
      setLiveStatus(tr("Live: %1 (version %2, by %3).")
                        .arg(q(m_live->describe()))
                        .arg(m_live->version)
                        .arg(q(m_live->updated_by)),
                    false);
    }
    if (!m_afterRead.isEmpty()) {
      setLiveStatus(std::exchange(m_afterRead, {}) + QLatin1Char(' ') + m_liveStatus->text(), true);
    }
    updateLiveButtons();
    emit configRead(m_liveStatus->text());
    return;
  }
  const bool undo = r.op == ConfigResult::Op::undo;
  if (!r.error.isEmpty()) {
    if (r.conflict) {
      setLiveStatus(
          tr("Not written: the rule changed since it was read (someone else applied a version). "
             "Nothing was changed; the live config is being reloaded — check it and apply again."),
          true);
      const QString message = m_liveStatus->text();
      m_afterRead = message;
      readLiveConfig();
      m_liveStatus->setText(message);
      emit applyFinished(false, message);
    } else {
      setLiveStatus(tr("%1 failed: %2").arg(undo ? tr("Undo") : tr("Apply"), r.error), true);
      emit applyFinished(false, m_liveStatus->text());
    }
    return;
  }
  m_live = r.config;
  fillLimitBox();
  m_canUndo = !undo;
  showLiveSetting();
  setLiveStatus(
      tr("%1: %2 is live as version %3 (audited, by %4).")
          .arg(undo ? tr("Undone") : tr("Applied"), q(m_live ? m_live->describe() : std::string()))
          .arg(m_live ? m_live->version : 0)
          .arg(who()),
      false);
  updateLiveButtons();
  emit applyFinished(true, m_liveStatus->text());
}

}  // namespace limitscope::ui
