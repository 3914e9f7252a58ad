#include "ui/tuner/live_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "core/redis/key_schema.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

LivePanel::LivePanel(tuner::TunerSession& session, TunerWorker* redis, QWidget* parent)
    : QGroupBox(tr("Live rule"), parent), m_session(session), m_redis(redis) {
  const bool connected = m_session.connected();
  const QString redis_shown = qs(m_session.url_shown());
  auto* form = m_form = new QFormLayout(this);
  auto* where =
      new QLabel(!connected ? tr("No Redis connection (start limitscope with --redis URL); "
                                 "the current setting is entered by hand.")
                            : tr("Redis %1").arg(redis_shown),
                 this);
  where->setWordWrap(true);
  form->addRow(where);
  m_rule = new QLineEdit(this);
  m_rule->setPlaceholderText(tr("rule name"));
  m_prefix = new QLineEdit(qs(std::string(redis::kDefaultPrefix)), this);
  auto* row = new QHBoxLayout;
  row->addWidget(m_rule, 2);
  row->addWidget(m_prefix, 1);
  m_readButton = new QPushButton(tr("Read config"), this);
  row->addWidget(m_readButton);
  form->addRow(tr("Rule, prefix"), row);
  auto* scopeRow = new QHBoxLayout;
  m_scope = new QComboBox(this);
  m_scope->addItems({tr("Whole rule"), tr("One key's override")});
  m_scope->setToolTip(
      tr("Apply to every key of the rule, or give one key its own parameters "
         "(stored in the rule's config, audited and undoable like any change)"));
  m_overrideKey = new QLineEdit(this);
  m_overrideKey->setPlaceholderText(tr("limited key, e.g. demo-pro-1"));
  m_overrideKey->setEnabled(false);
  scopeRow->addWidget(m_scope);
  scopeRow->addWidget(m_overrideKey, 1);
  form->addRow(tr("Scope"), scopeRow);
  m_limitBox = new QComboBox(this);
  m_limitBox->setToolTip(
      tr("The rule is a composite (every limit must admit): the candidate "
         "replaces this limit and the others stay"));
  m_limitLabel = new QLabel(tr("Limit"), this);
  form->addRow(m_limitLabel, m_limitBox);
  m_limitBox->hide();
  m_limitLabel->hide();
  // The scope, the key or the composite's limit changed: the live setting to show changed.
  const auto scopeChanged = [this] {
    showLiveSetting();
    updateLiveButtons();
  };
  connect(m_limitBox, &QComboBox::currentIndexChanged, this, scopeChanged);
  m_arm = new QCheckBox(
      !connected ? tr("Allow writes (no connection)") : tr("Allow writes to %1").arg(redis_shown),
      this);
  form->addRow(m_arm);
  m_status = new QLabel(tr("Read-only: nothing is written until writes are allowed."), this);
  m_status->setWordWrap(true);
  form->addRow(m_status);
  connect(m_readButton, &QPushButton::clicked, this, &LivePanel::readLiveConfig);
  connect(m_arm, &QCheckBox::toggled, this, &LivePanel::setWritesArmed);
  connect(m_scope, &QComboBox::currentIndexChanged, this, [this, scopeChanged](int index) {
    m_overrideKey->setEnabled(index == 1);
    scopeChanged();
  });
  connect(m_overrideKey, &QLineEdit::editingFinished, this, scopeChanged);
  connect(m_rule, &QLineEdit::textChanged, this, [this] {
    // What was read belongs to another rule.
    m_session.forget_live();
    emit currentSettingTyped();
    updateLiveButtons();
  });
}

QString LivePanel::rule() const {
  return m_rule->text().trimmed();
}

void LivePanel::setRule(const QString& rule) {
  m_rule->setText(rule);
  emit ruleSet(rule);
}

QString LivePanel::overrideKey() const {
  return m_scope->currentIndex() == 1 ? m_overrideKey->text().trimmed() : QString();
}

void LivePanel::setOverrideKey(const QString& key) {
  m_overrideKey->setText(key);
  m_scope->setCurrentIndex(key.isEmpty() ? 0 : 1);
  showLiveSetting();
}

LiveRuleEntry LivePanel::liveRule() const {
  LiveRuleEntry e;
  e.target = {qs(m_session.url()), m_prefix->text().trimmed(), rule()};
  e.inputs.connected = m_session.connected();
  e.inputs.armed = m_arm->isChecked();
  e.inputs.rule = rule().toStdString();
  e.inputs.key_scope = m_scope->currentIndex() == 1;
  e.inputs.override_key = overrideKey().toStdString();
  e.overrideKey = overrideKey();
  e.compositeLimit = compositeLimit();
  return e;
}

void LivePanel::addActionRow(QWidget* row) {
  m_form->insertRow(m_form->rowCount() - 1, row);  // above the status
}

void LivePanel::showLimits() {
  const auto& live = m_session.live();
  const QString selected = m_limitBox->currentData().toString();
  const bool composite = live && live->composite();
  m_limitBox->blockSignals(true);
  m_limitBox->clear();
  if (composite) {
    for (const auto& l : live->limits)
      m_limitBox->addItem(qs(l.name + ": " + l.params.describe()), qs(l.name));
    m_limitBox->addItem(tr("the whole composite, replaced by one limit"), QString());
    const int keep = m_limitBox->findData(selected);
    if (keep >= 0 && !selected.isEmpty()) m_limitBox->setCurrentIndex(keep);
  }
  m_limitBox->blockSignals(false);
  m_limitBox->setVisible(composite);
  m_limitLabel->setVisible(composite);
}

void LivePanel::chooseLimit(const QString& name) {
  const int i = m_limitBox->findData(name);
  if (i >= 0) m_limitBox->setCurrentIndex(i);
}

void LivePanel::setStatus(const QString& text, bool error) {
  m_status->setText(text);
  m_status->setStyleSheet(error ? QStringLiteral("color: #d03030;") : QString());
}

QString LivePanel::status() const {
  return m_status->text();
}

}  // namespace limitscope::ui
