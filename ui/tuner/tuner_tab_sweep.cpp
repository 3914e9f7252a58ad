// The Tuner's sweep: the sweep panel's fields checked by core (tuner::check_sweep), the sweep on
// the job worker, its outcome on the heatmap and the recommendation beside it, a clicked cell
// loaded as the candidate, and the trace's first guess.

#include <QLabel>
#include <QTabWidget>
#include <QThread>

#include "core/tuner/candidate.h"
#include "ui/qt_text.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/sweep_panel.h"
#include "ui/tuner/trace_panel.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {

void TunerTab::setSweepAxes(double x_min, double x_max, int x_steps, double y_min, double y_max,
                            int y_steps) {
  m_sweepPanel->setAxes({x_min, x_max, x_steps, tuner::Spacing::log},
                        {y_min, y_max, y_steps, tuner::Spacing::log},
                        is_window_algorithm(m_candidate->params().algorithm));
}

void TunerTab::setMax429Constraint(std::optional<double> ratio) {
  m_sweepPanel->setMax429(ratio);
}

void TunerTab::setMaxKey429Constraint(std::optional<double> ratio) {
  m_sweepPanel->setMaxKey429(ratio);
}

void TunerTab::setWellBehaved429Constraint(std::optional<double> ratio) {
  m_sweepPanel->setWellBehaved429(ratio);
}

void TunerTab::setMaxKeySpendConstraint(std::optional<double> dollars_per_minute) {
  m_sweepPanel->setMaxKeySpend(dollars_per_minute);
}

void TunerTab::setSpendLimit(std::optional<double> share) {
  m_sweepPanel->setSpendLimit(share);
}

void TunerTab::setLogGrid(bool log) {
  m_sweepPanel->setLogGrid(log);
}

void TunerTab::showAdvice(const QString& text) {
  m_advice->setText(text);
  m_advice->setVisible(!text.isEmpty());
  // The label's width is fixed, so the height its wrapped text needs is known: the page (and
  // the splitter above it) then never gives it less.
  m_advice->setMinimumHeight(text.isEmpty() ? 0 : m_advice->heightForWidth(m_advice->width()));
}

void TunerTab::useFirstGuess() {
  if (!m_session.trace()) {
    m_sweepPanel->setText(tr("Load a trace first."));
    return;
  }
  const Algorithm algorithm = m_candidate->params().algorithm;
  if (const auto guess = m_session.first_guess_for(algorithm)) {
    applyFirstGuess(*guess);
    return;
  }
  // Another algorithm than the load's guess: its percentiles are a pass over the trace.
  study(m_session.trace(), {}, 0, TraceStudy::Purpose::guess);
}

void TunerTab::applyFirstGuess(const tuner::FirstGuess& guess) {
  m_candidate->setParams(guess.params);
  onCandidateChanged();
  m_sweepPanel->setText(
      tr("First guess: %1 (%2).").arg(qs(tuner::setting_text(guess.params)), qs(guess.basis)));
}

void TunerTab::runSweep() {
  const tuner::SharedTrace trace = m_session.trace();
  if (trace) m_lowerTabs->setCurrentIndex(0);
  auto request = tuner::check_sweep(
      trace.get(),
      m_sweepPanel->inputs(m_candidate->params(), std::max(1, QThread::idealThreadCount())));
  if (!request) {
    m_sweepPanel->setText(qs(request.error()));
    emit sweepFinished(false, m_sweepPanel->text());
    return;
  }
  startJob(tr("Sweeping"));
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, trace, r = *request, pr = m_pricing,
                                     cancel = m_cancel, current = m_current->params()] {
    if (w) w->runSweep(trace, r.spec, r.constraints, pr, cancel, current, r.max_spend_increase);
  });
}

void TunerTab::onSweep(const SweepOutcome& o) {
  endJob();
  if (!o.result) {
    m_sweepPanel->setText(o.cancelled ? tr("Sweep cancelled.")
                                      : tr("Sweep failed: %1").arg(o.error));
    m_tracePanel->setStatus(m_sweepPanel->text());
    emit sweepFinished(false, m_sweepPanel->text());
    return;
  }
  m_heatmap->setSweep(o.result, o.spec, o.recommendation);
  showAdvice(qs(o.advice.text()));
  const QString text =
      qs(tuner::sweep_summary(*o.result, o.advice, o.constraintProblem.toStdString()));
  m_sweepPanel->setText(text);
  m_tracePanel->setStatus(tr("Sweep done."));
  emit sweepFinished(true, text + QLatin1Char('\n') + m_advice->text());
  if (m_demo) {
    m_demo = false;
    connect(this, &TunerTab::whatIfUpdated, this, &TunerTab::demoReady, Qt::SingleShotConnection);
    loadCell(static_cast<int>(tuner::demo_cell(o.advice)));
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
