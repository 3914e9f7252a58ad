#include "ui/tuner/sweep_panel.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

#include "ui/qt_text.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/value_spin_box.h"

namespace limitscope::ui {

namespace {

constexpr int kAdviceWidth = 340;  // px: about 50 characters a line beside the heatmap

}  // namespace

SweepPanel::SweepPanel(tuner::TunerSession& session, TunerWorker* jobs, QWidget* parent)
    : QGroupBox(tr("Sweep"), parent), m_session(session), m_jobs(jobs) {
  auto* form = new QFormLayout(this);
  for (int a = 0; a < 2; ++a) {
    auto* row = new QHBoxLayout;
    for (int k = 0; k < 2; ++k) {
      auto* spin = new ValueSpinBox(6, this);
      spin->setRange(0.000001, 1e9);
      m_axis[2 * a + k] = spin;
      row->addWidget(spin);
      if (k == 0) row->addWidget(new QLabel(QStringLiteral("–"), this));
    }
    m_steps[a] = new QSpinBox(this);
    m_steps[a]->setRange(1, 64);
    m_steps[a]->setSuffix(tr(" steps"));
    if (a == 0) connect(m_steps[a], &QSpinBox::valueChanged, this, &SweepPanel::xStepsChanged);
    row->addWidget(m_steps[a]);
    m_axisLabel[a] = new QLabel(this);
    form->addRow(m_axisLabel[a], row);
  }
  // A ratio's percentage to a thousandth of a percent (0.1 % shows as "0.1 %"); dollars in cents.
  auto constraint = [&](QCheckBox*& check, QDoubleSpinBox*& spin, const QString& text, double value,
                        bool dollars = false) {
    auto* row = new QHBoxLayout;
    check = new QCheckBox(text, this);
    spin = dollars ? new QDoubleSpinBox(this) : new ValueSpinBox(3, this);
    spin->setRange(0, 100);
    spin->setValue(value);
    spin->setSuffix(QStringLiteral(" %"));
    row->addWidget(check, 1);
    row->addWidget(spin);
    form->addRow(row);
  };
  constraint(m_useGood429, m_good429, tr("429 ratio of well-behaved keys ≤"), 0.1);
  constraint(m_useMax429, m_max429, tr("429 ratio of all requests ≤"), 1.0);
  constraint(m_useKey429, m_key429, tr("429 ratio of every key ≤"), 0.1);
  constraint(m_useKeySpend, m_keySpend, tr("Spend of the worst key per minute ≤"), 5, true);
  m_keySpend->setRange(0, 1e9);
  m_keySpend->setPrefix(QStringLiteral("$"));
  m_keySpend->setSuffix(tr(" / min"));
  m_useKeySpend->setToolTip(
      tr("The most dollars one key had admitted within any minute of the "
         "trace (needs token counts and model prices)"));
  m_useGood429->setChecked(true);
  constraint(m_useSpendLimit, m_spendIncrease, tr("Spend ≤ the current setting's +"), 10);
  m_spendIncrease->setRange(0, 100000);
  m_spendIncrease->setDecimals(1);
  m_useSpendLimit->setToolTip(
      tr("Dollars admitted on the trace (cost units when unpriced) at most this much more than "
         "the current setting admits"));
  m_useSpendLimit->setChecked(true);
  m_goodFactor = new ValueSpinBox(2, this);
  m_goodFactor->setRange(1, 1000);
  m_goodFactor->setValue(5);
  m_goodFactor->setPrefix(tr("≤ "));
  m_goodFactor->setSuffix(tr(" × the median key's rate"));
  form->addRow(tr("Well-behaved key"), m_goodFactor);
  auto* note =
      new QLabel(tr("★ = the cheapest meeting these (dollars if priced, else cost)."), this);
  note->setToolTip(
      tr("Fewest dollars admitted when the trace has token counts and prices, "
         "else least cost admitted."));
  note->setWordWrap(true);
  form->addRow(note);
  m_logGrid = new QCheckBox(tr("Log-spaced grid (even ratios between settings)"), this);
  m_logGrid->setChecked(true);
  form->addRow(m_logGrid);
  auto* row = new QHBoxLayout;
  m_guessButton = new QPushButton(tr("First guess"), this);
  m_guessButton->setToolTip(tr("Load a trace: the candidate from the keys' rate percentiles"));
  connect(m_guessButton, &QPushButton::clicked, this, &SweepPanel::useFirstGuess);
  row->addWidget(m_guessButton);
  auto* around = new QPushButton(tr("Around candidate"), this);
  connect(around, &QPushButton::clicked, this, [this] {
    if (auto axes = tuner::axes_around(m_session.setting(tuner::TunerSession::candidate).params(),
                                       steps(0), steps(1)))
      setSweepAxes(axes->first.min, axes->first.max, axes->first.steps, axes->second.min,
                   axes->second.max, axes->second.steps);
  });
  m_sweepButton = new QPushButton(tr("Run sweep"), this);
  connect(m_sweepButton, &QPushButton::clicked, this, &SweepPanel::runSweep);
  row->addWidget(around);
  row->addWidget(m_sweepButton);
  form->addRow(row);
  m_sweepLabel = new QLabel(this);
  m_sweepLabel->setWordWrap(true);
  form->addRow(m_sweepLabel);
  // The results, which the tab lays out elsewhere: the heatmap, and beside it the
  // recommendation in full (word-wrapped at a fixed width, its page at least as tall as its
  // text: see showAdvice()).
  m_heatmap = new SweepHeatmap(this);
  connect(m_heatmap, &SweepHeatmap::cellClicked, this, &SweepPanel::loadCell);
  m_advice = new QLabel(this);
  m_advice->setObjectName(QStringLiteral("sweepAdvice"));
  m_advice->setWordWrap(true);
  m_advice->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  m_advice->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_advice->setFrameShape(QFrame::StyledPanel);
  m_advice->setMargin(4);
  m_advice->setFixedWidth(kAdviceWidth);
  m_advice->hide();
}

void SweepPanel::setAxes(const tuner::SweepAxis& x, const tuner::SweepAxis& y,
                         Algorithm algorithm) {
  m_axis[0]->setValue(x.min);
  m_axis[1]->setValue(x.max);
  m_axis[2]->setValue(y.min);
  m_axis[3]->setValue(y.max);
  m_steps[0]->setValue(x.steps);
  m_steps[1]->setValue(y.steps);
  const auto [x_title, y_title] = tuner::sweep_axis_titles(algorithm);
  m_axisLabel[0]->setText(qs(x_title));
  m_axisLabel[1]->setText(qs(y_title));
}

int SweepPanel::steps(int axis) const {
  return m_steps[axis]->value();
}

tuner::SweepInputs SweepPanel::inputs(const LimitParams& base, int threads) const {
  // Percentages are divided by 100 (ratios), dollars by 1.
  const auto checked = [](const QCheckBox* use, const QDoubleSpinBox* spin, double divisor) {
    return use->isChecked() ? std::optional<double>(spin->value() / divisor) : std::nullopt;
  };
  tuner::SweepInputs in;
  in.base = base;
  const auto spacing = m_logGrid->isChecked() ? tuner::Spacing::log : tuner::Spacing::linear;
  in.x = {m_axis[0]->value(), m_axis[1]->value(), m_steps[0]->value(), spacing};
  in.y = {m_axis[2]->value(), m_axis[3]->value(), m_steps[1]->value(), spacing};
  in.threads = threads;
  in.max_429 = checked(m_useMax429, m_max429, 100);
  in.max_key_429 = checked(m_useKey429, m_key429, 100);
  in.max_well_behaved_429 = checked(m_useGood429, m_good429, 100);
  in.max_key_spend_per_min = checked(m_useKeySpend, m_keySpend, 1);
  in.well_behaved_factor = m_goodFactor->value();
  in.max_spend_increase = checked(m_useSpendLimit, m_spendIncrease, 100);
  return in;
}

namespace {

void set_constraint(QCheckBox* use, QDoubleSpinBox* spin, std::optional<double> value,
                    double scale) {
  use->setChecked(value.has_value());
  if (value) spin->setValue(*value * scale);
}

}  // namespace

void SweepPanel::setMax429(std::optional<double> ratio) {
  set_constraint(m_useMax429, m_max429, ratio, 100);
}

void SweepPanel::setMaxKey429(std::optional<double> ratio) {
  set_constraint(m_useKey429, m_key429, ratio, 100);
}

void SweepPanel::setWellBehaved429(std::optional<double> ratio) {
  set_constraint(m_useGood429, m_good429, ratio, 100);
}

void SweepPanel::setMaxKeySpend(std::optional<double> dollars_per_minute) {
  set_constraint(m_useKeySpend, m_keySpend, dollars_per_minute, 1);
}

void SweepPanel::setSpendLimit(std::optional<double> share) {
  set_constraint(m_useSpendLimit, m_spendIncrease, share, 100);
}

void SweepPanel::setLogGrid(bool log) {
  m_logGrid->setChecked(log);
}

void SweepPanel::setText(const QString& text) {
  m_sweepLabel->setText(text);
}

QString SweepPanel::text() const {
  return m_sweepLabel->text();
}

void SweepPanel::setGuessTip(const QString& tip) {
  m_guessButton->setToolTip(tip);
}

}  // namespace limitscope::ui
