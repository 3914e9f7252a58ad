// The trace panel's loads: a file, a recording, the simulation's scenario or a rule's decision
// stream on a worker, the operator's choice on bad lines, the passes over the loaded trace on
// the job worker (tuner::study_trace), and the trace handed to the session.

#include <QPushButton>

#include "ui/qt_text.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/trace_panel.h"

namespace limitscope::ui {

void TracePanel::cancelWork() {
  m_session.cancel_job();
}

void TracePanel::loadTraceFile(const QString& path) {
  startJob(tr("Loading"));
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, path, c = m_session.job_cancel()] {
    if (w) w->loadFile(path, c);
  });
}

void TracePanel::loadRecording(const QString& path) {
  startJob(tr("Loading"));
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, path, c = m_session.job_cancel()] {
    if (w) w->loadRecording(path, c);
  });
}

void TracePanel::loadScenario(const QString& name, double seconds, quint64 seed) {
  startJob(tr("Simulating"));
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, name, seconds, seed, c = m_session.job_cancel()] {
    if (w) w->loadScenario(name, seconds, seed, c);
  });
}

void TracePanel::loadDecisionStream(RuleTarget target) {
  target.rule = target.rule.trimmed();
  if (const Status check = tuner::check_stream(m_session.connected(), target.rule.toStdString());
      !check.ok()) {
    setStatus(qs(check.error()));
    emit traceLoadFailed(status());
    return;
  }
  startJob(tr("Reading stream"));
  QMetaObject::invokeMethod(m_redis, [w = m_redis, target, c = m_session.job_cancel()] {
    if (w) w->loadStream(target, c);
  });
}

void TracePanel::loadFailed(bool cancelled, const QString& error) {
  setStatus(cancelled ? tr("Load cancelled; the previous trace stays.") : error);
  emit traceLoadFailed(cancelled ? QStringLiteral("cancelled") : error);
}

void TracePanel::onTraceLoaded(const TraceLoadResult& r) {
  endJob();
  if (!r.error.isEmpty()) return loadFailed(r.cancelled, r.error);
  if (r.error_count == 0) {
    if (!r.trace || r.trace->events.empty()) {
      setStatus(tr("%1: no events; nothing loaded.").arg(r.source));
      emit traceLoadFailed(status());
      return;
    }
    study(r.trace, r.source, 0, TraceStudy::Purpose::adopt);
    return;
  }
  // Bad lines: nothing is used until the operator says so.
  m_waiting = r;
  const std::size_t good = r.trace ? r.trace->events.size() : 0;
  m_report = new QMessageBox(
      QMessageBox::Warning, tr("Trace has bad lines"),
      tr("%1 has %2 bad line(s) and %3 good one(s). Nothing is loaded unless you choose "
         "to use the good lines.")
          .arg(r.source)
          .arg(r.error_count)
          .arg(good),
      QMessageBox::Cancel, this);
  m_report->setInformativeText(qs(tuner::bad_lines_text(r.errors, r.error_count)));
  QPushButton* use =
      m_report->addButton(tr("Use the %1 good lines").arg(good), QMessageBox::AcceptRole);
  use->setEnabled(good > 0);
  m_report->setAttribute(Qt::WA_DeleteOnClose);
  connect(m_report, &QMessageBox::buttonClicked, this, [this, use](QAbstractButton* b) {
    TraceLoadResult w = std::exchange(m_waiting, {});
    if (b == use) {
      study(w.trace, w.source, w.error_count, TraceStudy::Purpose::adopt);
    } else {
      setStatus(tr("Nothing loaded: %1 has bad lines.").arg(w.source));
      emit traceLoadFailed(status());
    }
  });
  m_report->open();
  setStatus(tr("%1 bad line(s): choose in the report.").arg(r.error_count));
  emit loadReportShown();
}

void TracePanel::setTrace(TracePtr trace, const QString& source) {
  study(std::move(trace), source, 0, TraceStudy::Purpose::adopt);
}

void TracePanel::study(TracePtr trace, const QString& source, std::size_t skipped,
                       TraceStudy::Purpose purpose) {
  startJob(purpose == TraceStudy::Purpose::adopt ? tr("Reading the trace") : tr("First guess"));
  TraceStudy s;
  s.purpose = purpose;
  s.trace = std::move(trace);
  s.source = source;
  s.skipped = skipped;
  QMetaObject::invokeMethod(m_jobs, [w = m_jobs, s, a = m_candidate.params().algorithm,
                                     n = m_studySteps, c = m_session.job_cancel()] {
    if (w) w->studyTrace(s, a, n, c);
  });
}

void TracePanel::onTraceStudied(const TraceStudy& s) {
  endJob();
  if (s.cancelled && s.purpose == TraceStudy::Purpose::adopt) {
    loadFailed(true, {});
  } else if (s.cancelled) {
    emit firstGuessStudied(true);
  } else if (s.purpose == TraceStudy::Purpose::adopt) {
    adoptTrace(s);
  } else if (s.trace == m_session.trace()) {  // else a newer trace came meanwhile
    m_session.set_facts(s.facts);
    emit firstGuessStudied(false);
  }
}

void TracePanel::adoptTrace(const TraceStudy& s) {
  m_session.adopt(s.trace, s.facts);  // replies in flight for the previous one go stale
  const tuner::TraceFacts& facts = m_session.facts();
  setTraceText(
      qs(tuner::trace_summary(s.source.toStdString(), *s.trace, facts.largest_cost, s.skipped)));
  setStatus(tr("Loaded."));
  emit traceLoaded(s.source);  // the tab's wiring: the editors' largest cost, the sweep, ...
}

}  // namespace limitscope::ui
