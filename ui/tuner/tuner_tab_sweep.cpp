// The Tuner's sweep: the panel (axes, constraints, Run), the sweep job on the job worker, its
// outcome on the heatmap, and a clicked cell loaded as the candidate.

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QThread>

#include "core/tuner/candidate.h"
#include "core/tuner/advice.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {

namespace {

constexpr std::size_t kSweepMemoryCap = std::size_t{1} << 30;  // 1 GiB of sweep state

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

QWidget* TunerTab::buildSweepPanel() {
  auto* box = new QGroupBox(tr("Sweep"), this);
  auto* form = new QFormLayout(box);
  for (int a = 0; a < 2; ++a) {
    auto* row = new QHBoxLayout;
    for (int k = 0; k < 2; ++k) {
      auto* spin = new QDoubleSpinBox(box);
      spin->setRange(0.001, 1e9);
      spin->setDecimals(3);
      m_axis[2 * a + k] = spin;
      row->addWidget(spin);
      if (k == 0) row->addWidget(new QLabel(QStringLiteral("–"), box));
    }
    m_steps[a] = new QSpinBox(box);
    m_steps[a]->setRange(1, 64);
    m_steps[a]->setSuffix(tr(" steps"));
    row->addWidget(m_steps[a]);
    m_axisLabel[a] = new QLabel(box);
    form->addRow(m_axisLabel[a], row);
  }
  auto constraint = [&](QCheckBox*& check, QDoubleSpinBox*& spin, const QString& text,
                        double value) {
    auto* row = new QHBoxLayout;
    check = new QCheckBox(text, box);
    spin = new QDoubleSpinBox(box);
    spin->setRange(0, 100);
    spin->setDecimals(3);
    spin->setValue(value);
    spin->setSuffix(QStringLiteral(" %"));
    row->addWidget(check, 1);
    row->addWidget(spin);
    form->addRow(row);
  };
  constraint(m_useGood429, m_good429, tr("429 ratio of well-behaved keys ≤"), 0.1);
  constraint(m_useMax429, m_max429, tr("429 ratio of all requests ≤"), 1.0);
  constraint(m_useKey429, m_key429, tr("429 ratio of every key ≤"), 0.1);
  constraint(m_useKeySpend, m_keySpend, tr("Spend of the worst key per minute ≤"), 5);
  m_keySpend->setRange(0, 1e9);
  m_keySpend->setDecimals(2);
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
  m_goodFactor = new QDoubleSpinBox(box);
  m_goodFactor->setRange(1, 1000);
  m_goodFactor->setValue(5);
  m_goodFactor->setPrefix(tr("≤ "));
  m_goodFactor->setSuffix(tr(" × the median key's rate"));
  form->addRow(tr("Well-behaved key"), m_goodFactor);
  auto* note =
      new QLabel(tr("★ = the cheapest meeting these (dollars if priced, else cost)."), box);
  note->setToolTip(
      tr("Fewest dollars admitted when the trace has token counts and prices, "
         "else least cost admitted."));
  note->setWordWrap(true);
  form->addRow(note);
  m_logGrid = new QCheckBox(tr("Log-spaced grid (even ratios between settings)"), box);
  m_logGrid->setChecked(true);
  form->addRow(m_logGrid);
  auto* row = new QHBoxLayout;
  m_guessButton = new QPushButton(tr("First guess"), box);
  m_guessButton->setToolTip(tr("Load a trace: the candidate from the keys' rate percentiles"));
  connect(m_guessButton, &QPushButton::clicked, this, &TunerTab::useFirstGuess);
  row->addWidget(m_guessButton);
  auto* around = new QPushButton(tr("Around candidate"), box);
  connect(around, &QPushButton::clicked, this, [this] {
    const LimitParams p = m_candidate->params();
    const bool window = is_window_algorithm(p.algorithm);
    const double x = window ? static_cast<double>(p.window.count()) / 1e9 : p.capacity;
    const double y = window ? p.limit : p.refill.per_second();
    if (x > 0 && y > 0)
      setSweepAxes(x / 4, x * 4, m_steps[0]->value(), y / 4, y * 4, m_steps[1]->value());
  });
  m_sweepButton = new QPushButton(tr("Run sweep"), box);
  connect(m_sweepButton, &QPushButton::clicked, this, &TunerTab::runSweep);
  row->addWidget(around);
  row->addWidget(m_sweepButton);
  form->addRow(row);
  m_sweepLabel = new QLabel(box);
  m_sweepLabel->setWordWrap(true);
  form->addRow(m_sweepLabel);
  m_jobButtons.append(m_sweepButton);
  return box;
}

void TunerTab::setSweepAxes(double x_min, double x_max, int x_steps, double y_min, double y_max,
                            int y_steps) {
  m_axis[0]->setValue(x_min);
  m_axis[1]->setValue(x_max);
  m_axis[2]->setValue(y_min);
  m_axis[3]->setValue(y_max);
  m_steps[0]->setValue(x_steps);
  m_steps[1]->setValue(y_steps);
  const bool window = is_window_algorithm(m_candidate->params().algorithm);
  m_axisLabel[0]->setText(window ? tr("Window (s)") : tr("Capacity"));
  m_axisLabel[1]->setText(window ? tr("Limit") : tr("Refill (/s)"));
}

void TunerTab::setMax429Constraint(std::optional<double> ratio) {
  m_useMax429->setChecked(ratio.has_value());
  if (ratio) m_max429->setValue(*ratio * 100);
}

void TunerTab::setWellBehaved429Constraint(std::optional<double> ratio) {
  m_useGood429->setChecked(ratio.has_value());
  if (ratio) m_good429->setValue(*ratio * 100);
}

void TunerTab::setMaxKeySpendConstraint(std::optional<double> dollars_per_minute) {
  m_useKeySpend->setChecked(dollars_per_minute.has_value());
  if (dollars_per_minute) m_keySpend->setValue(*dollars_per_minute);
}

void TunerTab::showAdvice(const QString& text) {
  m_advice->setText(text);
  m_advice->setVisible(!text.isEmpty());
  // The label's width is fixed, so the height its wrapped text needs is known: the page (and
  // the splitter above it) then never gives it less.
  m_advice->setMinimumHeight(text.isEmpty() ? 0 : m_advice->heightForWidth(m_advice->width()));
}

void TunerTab::setSpendLimit(std::optional<double> share) {
  m_useSpendLimit->setChecked(share.has_value());
  if (share) m_spendIncrease->setValue(*share * 100);
}

void TunerTab::setLogGrid(bool log) { m_logGrid->setChecked(log); }

void TunerTab::useFirstGuess() {
  if (!m_trace) {
    m_sweepLabel->setText(tr("Load a trace first."));
    return;
  }
  if (m_firstGuess.params.algorithm != m_candidate->params().algorithm)
    m_firstGuess = tuner::first_guess(*m_trace, m_candidate->params().algorithm);
  m_candidate->setParams(m_firstGuess.params);
  onCandidateChanged();
  m_sweepLabel->setText(tr("First guess: %1 (%2).")
                            .arg(q(tuner::setting_text(m_firstGuess.params)), q(m_firstGuess.basis)));
}

void TunerTab::setMaxKey429Constraint(std::optional<double> ratio) {
  m_useKey429->setChecked(ratio.has_value());
  if (ratio) m_key429->setValue(*ratio * 100);
}

void TunerTab::runSweep() {
  if (!m_trace) {
    m_sweepLabel->setText(tr("Load a trace first."));
    emit sweepFinished(false, m_sweepLabel->text());
    return;
  }
  m_lowerTabs->setCurrentIndex(0);
  tuner::SweepSpec spec;
  spec.base = m_candidate->params();
  const auto spacing = m_logGrid->isChecked() ? tuner::Spacing::log : tuner::Spacing::linear;
  spec.x = {m_axis[0]->value(), m_axis[1]->value(), m_steps[0]->value(), spacing};
  spec.y = {m_axis[2]->value(), m_axis[3]->value(), m_steps[1]->value(), spacing};
  spec.threads = std::max(1, QThread::idealThreadCount());
  QString why;
  if (spec.x.min > spec.x.max || spec.y.min > spec.y.max)
    why = tr("each axis needs min ≤ max");
  else if ((spec.x.min == spec.x.max && spec.x.steps != 1) ||
           (spec.y.min == spec.y.max && spec.y.steps != 1))
    why = tr("an axis with min = max needs 1 step");
  const std::size_t bytes = tuner::sweep_state_bytes(*m_trace, spec);
  if (why.isEmpty() && bytes > kSweepMemoryCap) {
    why = tr("%1 keys × %2 settings need %3 MB of state, above the 1024 MB cap: fewer steps, or a "
             "shorter trace")
              .arg(m_trace->keys.size())
              .arg(spec.x.steps * spec.y.steps)
              .arg(static_cast<double>(bytes) / 1e6, 0, 'f', 0);
  }
  if (!why.isEmpty()) {
    m_sweepLabel->setText(tr("Sweep refused: %1.").arg(why));
    emit sweepFinished(false, m_sweepLabel->text());
    return;
  }
  tuner::OperatorConstraints c;
  if (m_useMax429->isChecked()) c.core.max_ratio_429 = m_max429->value() / 100;
  if (m_useKey429->isChecked()) c.core.max_worst_key_429 = m_key429->value() / 100;
  if (m_useGood429->isChecked()) c.max_well_behaved_429 = m_good429->value() / 100;
  if (m_useKeySpend->isChecked()) c.core.max_worst_key_spend_per_min = m_keySpend->value();
  c.well_behaved_factor = m_goodFactor->value();
  std::optional<double> spendLimit;
  if (m_useSpendLimit->isChecked()) spendLimit = m_spendIncrease->value() / 100;
  startJob(tr("Sweeping"));
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, t = m_trace, spec, c, pr = m_pricing, cancel = m_cancel,
                                     current = m_current->params(), spendLimit] {
    if (w) w->runSweep(t, spec, c, pr, cancel, current, spendLimit);
  });
}

void TunerTab::onSweep(const SweepOutcome& o) {
  endJob();
  if (!o.result) {
    m_sweepLabel->setText(o.cancelled ? tr("Sweep cancelled.")
                                      : tr("Sweep failed: %1").arg(o.error));
    m_status->setText(m_sweepLabel->text());
    emit sweepFinished(false, m_sweepLabel->text());
    return;
  }
  m_heatmap->setSweep(o.result, o.spec, o.recommendation);
  const bool priced = o.result->all.priced;
  QString text = tr("%1 settings; %2 on the Pareto frontier (fewer 429s vs %3); %4 of %5 keys "
                    "well-behaved. ")
                     .arg(o.result->all.cells.size())
                     .arg(o.recommendation.frontier.size())
                     .arg(priced ? tr("fewer dollars admitted") : tr("less admitted cost"))
                     .arg(o.result->well_behaved_keys)
                     .arg(o.result->keys);
  if (!o.constraintProblem.isEmpty()) {
    text += tr("The worst key's spend limit cannot be judged: %1. ").arg(o.constraintProblem);
  }
  showAdvice(q(o.advice.text()));
  text += tr("The recommendation is beside the heatmap. Click a cell to make it the candidate.");
  m_sweepLabel->setText(text);
  m_status->setText(tr("Sweep done."));
  emit sweepFinished(true, text + QLatin1Char('\n') + m_advice->text());
  if (m_demo) {
    m_demo = false;
    // The ★, else the cell the spend limit excluded (the picture then shows why), else the
    // frontier's first.
    const auto cell =
        o.recommendation.best       ? *o.recommendation.best
        : o.advice.excluded_by_spend ? *o.advice.excluded_by_spend
                                     : (o.recommendation.frontier.empty() ? 0 : o.recommendation.frontier.front());
    connect(this, &TunerTab::whatIfUpdated, this, &TunerTab::demoReady, Qt::SingleShotConnection);
    loadCell(static_cast<int>(cell));
  }
}

void TunerTab::loadCell(int index) {
  const auto* r = m_heatmap->result();
  if (r == nullptr || index < 0 || index >= static_cast<int>(r->cells.size())) return;
  m_candidate->setParams(r->cells[static_cast<std::size_t>(index)].params);
  onCandidateChanged();
  m_heatmap->setSelected(index);
}

}  // namespace limitscope::ui
