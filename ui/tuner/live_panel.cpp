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
#include "ui/tuner/param_editor.h"

namespace limitscope::ui {

LivePanel::LivePanel(TunerShared& shared, QWidget* parent)
    : QGroupBox(tr("Live rule"), parent),
      m_shared(shared),
      m_connected(!shared.redisUrl.isEmpty()) {
  const bool connected = m_connected;
  const QString& redis_shown = shared.redisShown;
  auto* form = new QFormLayout(this);
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
  auto* buttons = new QHBoxLayout;
  m_applyButton = new QPushButton(tr("Apply candidate…"), this);
  m_undoButton = new QPushButton(tr("Undo last change"), this);
  buttons->addWidget(m_applyButton);
  buttons->addWidget(m_undoButton);
  form->addRow(buttons);
  auto* shadowButtons = new QHBoxLayout;
  m_shadowButton = new QPushButton(tr("Put in shadow"), this);
  m_shadowButton->setToolTip(
      tr("Store the candidate as the rule's shadow config (audited, compare-and-set): every "
         "decision evaluates it and none enforces it; the dashboard shows what it would refuse"));
  m_clearShadowButton = new QPushButton(tr("Clear shadow"), this);
  shadowButtons->addWidget(m_shadowButton);
  shadowButtons->addWidget(m_clearShadowButton);
  form->addRow(shadowButtons);
  m_status = new QLabel(tr("Read-only: nothing is written until writes are allowed."), this);
  m_status->setWordWrap(true);
  form->addRow(m_status);
  connect(m_readButton, &QPushButton::clicked, this, &LivePanel::readLiveConfig);
  connect(m_arm, &QCheckBox::toggled, this, &LivePanel::setWritesArmed);
  connect(m_applyButton, &QPushButton::clicked, this, &LivePanel::requestApply);
  connect(m_undoButton, &QPushButton::clicked, this, &LivePanel::undo);
  connect(m_shadowButton, &QPushButton::clicked, this, &LivePanel::putInShadow);
  connect(m_clearShadowButton, &QPushButton::clicked, this, &LivePanel::clearShadow);
  connect(m_scope, &QComboBox::currentIndexChanged, this, [this, scopeChanged](int index) {
    m_overrideKey->setEnabled(index == 1);
    scopeChanged();
  });
  connect(m_overrideKey, &QLineEdit::editingFinished, this, scopeChanged);
  connect(m_rule, &QLineEdit::textChanged, this, [this] {
    // What was read belongs to another rule.
    m_shared.session.forget_live();
    m_shadowVersion = 0;
    m_shared.current->setEditable(true);
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

QString LivePanel::prefix() const {
  return m_prefix->text().trimmed();
}

QString LivePanel::overrideKey() const {
  return m_scope->currentIndex() == 1 ? m_overrideKey->text().trimmed() : QString();
}

void LivePanel::setOverrideKey(const QString& key) {
  m_overrideKey->setText(key);
  m_scope->setCurrentIndex(key.isEmpty() ? 0 : 1);
  showLiveSetting();
}

tuner::LiveInputs LivePanel::inputs() const {
  tuner::LiveInputs in;
  in.connected = m_connected;
  in.armed = m_arm->isChecked();
  in.rule = rule().toStdString();
  in.key_scope = m_scope->currentIndex() == 1;
  in.override_key = overrideKey().toStdString();
  return in;
}

void LivePanel::showLimits(const std::optional<redis::RuleConfig>& live) {
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

QString LivePanel::chosenLimit() const {
  return m_limitBox->currentData().toString();
}

void LivePanel::chooseLimit(const QString& name) {
  const int i = m_limitBox->findData(name);
  if (i >= 0) m_limitBox->setCurrentIndex(i);
}

bool LivePanel::armed() const {
  return m_arm->isChecked();
}

void LivePanel::setArmed(bool armed) {
  if (m_arm->isChecked() != armed) m_arm->setChecked(armed);
}

void LivePanel::setButtons(const tuner::LiveButtons& b) {
  m_readButton->setEnabled(b.read);
  m_arm->setEnabled(b.arm);
  m_applyButton->setEnabled(b.apply);
  m_undoButton->setEnabled(b.undo);
  m_shadowButton->setEnabled(b.shadow);
  m_clearShadowButton->setEnabled(b.clear_shadow);
}

void LivePanel::setStatus(const QString& text, bool error) {
  m_status->setText(text);
  m_status->setStyleSheet(error ? QStringLiteral("color: #d03030;") : QString());
}

QString LivePanel::status() const {
  return m_status->text();
}

}  // namespace limitscope::ui
