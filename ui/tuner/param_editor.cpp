#include "ui/tuner/param_editor.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>

#include "ui/qt_text.h"
#include "ui/tuner/value_spin_box.h"

namespace limitscope::ui {

ParamEditor::ParamEditor(const QString& title, tuner::SettingForm& form, QWidget* parent)
    : QGroupBox(title, parent), m_form(form) {
  auto* grid = new QGridLayout(this);
  m_algorithm = new QComboBox(this);
  for (const Algorithm a : tuner::editable_algorithms())
    m_algorithm->addItem(qs(std::string(to_string(a))), static_cast<int>(a));
  grid->addWidget(new QLabel(tr("Algorithm"), this), 0, 0);
  grid->addWidget(m_algorithm, 0, 1, 1, 2);
  for (int f = 0; f < 2; ++f) {
    m_name[f] = new QLabel(this);
    m_slider[f] = new QSlider(Qt::Horizontal, this);
    m_slider[f]->setRange(0, tuner::kSliderSteps);
    // Six decimals kept, as many shown as the value has: a refill of 0.0005/s stays itself.
    m_spin[f] = new ValueSpinBox(6, this);
    // Wide open on purpose: zero and negative values are shown as problems, not clamped away.
    m_spin[f]->setRange(-1e12, 1e12);
    m_spin[f]->setMinimumWidth(110);
    m_spin[f]->setKeyboardTracking(false);
    m_problem[f] = new QLabel(this);
    m_problem[f]->setWordWrap(true);
    m_problem[f]->setStyleSheet(QStringLiteral("color: #d03030;"));
    m_problem[f]->hide();
    grid->addWidget(m_name[f], 1 + 2 * f, 0);
    grid->addWidget(m_slider[f], 1 + 2 * f, 1);
    grid->addWidget(m_spin[f], 1 + 2 * f, 2);
    grid->addWidget(m_problem[f], 2 + 2 * f, 0, 1, 3);
    connect(m_spin[f], &QDoubleSpinBox::valueChanged, this, [this, f] { onSpin(f); });
    connect(m_slider[f], &QSlider::valueChanged, this, [this, f] { onSlider(f); });
  }
  m_rateUnit = new QComboBox(this);
  for (const tuner::RatePeriod& p : tuner::rate_periods())
    m_rateUnit->addItem(qs(std::string(p.label)));
  grid->addWidget(m_rateUnit, 3, 3);
  // The unit is part of the value ("100 per minute" → "100 per hour"): the number stays, so
  // nothing is rounded by a conversion to the spin box's decimals.
  m_rateUnit->setToolTip(
      tr("Per second, minute, hour or day: the number stays when the unit changes"));
  connect(m_rateUnit, &QComboBox::currentIndexChanged, this, [this](int u) {
    if (u < 0 || u == m_form.rate_period()) return;
    m_form.set_rate_period(u);
    showLabels();
    if (!m_quiet) emit changed();
  });
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  grid->addWidget(m_note, 5, 0, 1, 3);
  grid->setColumnStretch(1, 1);
  connect(m_algorithm, &QComboBox::currentIndexChanged, this, [this] {
    m_form.set_algorithm(static_cast<Algorithm>(m_algorithm->currentData().toInt()));
    showLabels();
    if (!m_quiet) emit changed();
  });
  showForm();
}

void ParamEditor::showLabels() {
  for (int f = 0; f < 2; ++f) {
    m_name[f]->setText(qs(m_form.field_label(f)));
    const QString problem = qs(m_form.problem_text(f));
    m_problem[f]->setText(problem);
    m_problem[f]->setVisible(!problem.isEmpty());
  }
  m_rateUnit->setVisible(m_form.has_rate_period());
  m_note->setText(qs(m_form.note()));
  m_note->setVisible(!m_note->text().isEmpty());
}

void ParamEditor::showValue(int field, double value) {
  const QSignalBlocker b1(m_spin[field]);
  const QSignalBlocker b2(m_slider[field]);
  m_spin[field]->setValue(value);
  m_slider[field]->setValue(tuner::slider_position(value));
  m_form.set_value(field, m_spin[field]->value());
}

void ParamEditor::showForm() {
  m_quiet = true;
  {
    const QSignalBlocker b(m_algorithm);
    m_algorithm->setCurrentIndex(
        std::max(0, m_algorithm->findData(static_cast<int>(m_form.algorithm()))));
  }
  {
    const QSignalBlocker b(m_rateUnit);
    m_rateUnit->setCurrentIndex(m_form.rate_period());
  }
  for (int f = 0; f < 2; ++f) showValue(f, m_form.value(f));
  showLabels();
  m_quiet = false;
}

void ParamEditor::setParams(const LimitParams& params) {
  m_form.show(params);
  showForm();
}

void ParamEditor::setEditable(bool editable) {
  m_algorithm->setEnabled(editable);
  m_rateUnit->setEnabled(editable);
  for (int f = 0; f < 2; ++f) {
    m_slider[f]->setEnabled(editable);
    m_spin[f]->setReadOnly(!editable);
  }
}

QString ParamEditor::problemText(int field) const {
  return m_problem[field]->isVisibleTo(this) ? m_problem[field]->text() : QString();
}

void ParamEditor::onSpin(int field) {
  m_form.set_value(field, m_spin[field]->value());
  {
    const QSignalBlocker b(m_slider[field]);
    m_slider[field]->setValue(tuner::slider_position(m_spin[field]->value()));
  }
  showLabels();
  if (!m_quiet) emit changed();
}

void ParamEditor::onSlider(int field) {
  {
    const QSignalBlocker b(m_spin[field]);
    m_spin[field]->setValue(tuner::slider_value(m_slider[field]->value()));
  }
  m_form.set_value(field, m_spin[field]->value());
  showLabels();
  if (!m_quiet) emit changed();
}

}  // namespace limitscope::ui
