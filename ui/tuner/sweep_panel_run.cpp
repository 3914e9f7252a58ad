// The sweep panel's work: its fields checked by core (tuner::check_sweep), the sweep on the job
// worker, its outcome on the heatmap and the recommendation beside it, a clicked cell loaded
// as the candidate, and the trace's first guess.

#include <QLabel>
#include <QThread>

#include "core/tuner/candidate.h"
#include "ui/qt_text.h"
#include "ui/tuner/sweep_heatmap.h"
#include "ui/tuner/sweep_panel.h"

namespace limitscope::ui {

void SweepPanel::setSweepAxes(double x_min, double x_max, int x_steps, double y_min, double y_max,
                              int y_steps) {
  setAxes({x_min, x_max, x_steps, tuner::Spacing::log},
          {y_min, y_max, y_steps, tuner::Spacing::log},
          m_session.setting(tuner::TunerSession::candidate).algorithm());
}

void SweepPanel::showAdvice(const QString& text) {
  m_advice->setText(text);
  m_advice->setVisible(!text.isEmpty());
  // The label's width is fixed, so the height its wrapped text needs is known: the page (and
  // the splitter above it) then never gives it less.
  m_advice->setMinimumHeight(text.isEmpty() ? 0 : m_advice->heightForWidth(m_advice->width()));
}

void SweepPanel::onTraceLoaded() {
  const tuner::TraceFacts& facts = m_session.facts();
  m_heatmap->clear();
  setText({});
  showAdvice({});
  setGuessTip(qs(facts.first_guess.basis));
  const auto& [x, y] = facts.axes;
  setSweepAxes(x.min, x.max, x.steps, y.min, y.max, steps(1));
}

void SweepPanel::onCandidateChanged() {
  if (m_heatmap->hasSweep()) m_heatmap->setSelected(-1);
}

void SweepPanel::useFirstGuess() {
  const auto step = tuner::first_guess_step(
      m_session, m_session.setting(tuner::TunerSession::candidate).algorithm());
  if (!step.ok()) {
    setText(qs(step.error()));
  } else if (*step) {
    applyFirstGuess(**step);
  } else {
    // Another algorithm than the load's guess: its percentiles are a pass over the trace.
    emit firstGuessWanted();
  }
}

void SweepPanel::onFirstGuessStudied(bool cancelled) {
  if (cancelled) {
    setText(tr("First guess cancelled."));
    return;
  }
  applyFirstGuess(m_session.facts().first_guess);
}

void SweepPanel::applyFirstGuess(const tuner::FirstGuess& guess) {
  emit candidateChosen(guess.params);
  setText(qs(tuner::first_guess_text(guess)));
}

void SweepPanel::runDemoSweep() {
  m_demo = true;
  runSweep();
}

void SweepPanel::runSweep() {
  const tuner::SharedTrace trace = m_session.trace();
  if (trace) emit sweepStarted();
  auto request = tuner::check_sweep(
      trace.get(), inputs(m_session.setting(tuner::TunerSession::candidate).params(),
                          std::max(1, QThread::idealThreadCount())));
  if (!request) {
    setText(qs(request.error()));
    emit sweepFinished(false, text());
    return;
  }
  const auto cancel = m_session.start_job();
  emit jobStarted(tr("Sweeping"));
  QMetaObject::invokeMethod(
      m_jobs, [w = m_jobs, trace, r = *request, pr = m_session.pricing(), cancel,
               current = m_session.setting(tuner::TunerSession::current).params()] {
        if (w) w->runSweep(trace, r.spec, r.constraints, pr, cancel, current, r.max_spend_increase);
      });
}

void SweepPanel::onSweep(const SweepOutcome& o) {
  if (!o.sweep.ok()) {
    const JobError& e = o.sweep.error();
    setText(qs(tuner::sweep_failed_text(e.cancelled(), e.message.toStdString())));
    emit jobEnded(text());
    emit sweepFinished(false, text());
    return;
  }
  const SweepDone& done = *o.sweep;
  m_heatmap->setSweep(done.result, done.spec, done.recommendation);
  showAdvice(qs(done.advice.text()));
  const QString summary = qs(tuner::sweep_summary(*done.result, done.advice, done.constraints));
  setText(summary);
  emit jobEnded(tr("Sweep done."));
  emit sweepFinished(true, summary + QLatin1Char('\n') + m_advice->text());
  if (m_demo) {
    m_demo = false;
    emit demoCellChosen(static_cast<int>(tuner::demo_cell(done.advice)));
  }
}

void SweepPanel::loadCell(int index) {
  const auto* r = m_heatmap->result();
  if (r == nullptr || index < 0 || index >= static_cast<int>(r->cells.size())) return;
  emit candidateChosen(r->cells[static_cast<std::size_t>(index)].params);
  m_heatmap->setSelected(index);
}

}  // namespace limitscope::ui
