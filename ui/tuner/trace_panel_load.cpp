// The trace panel's loads: a file, a recording, the simulation's scenario or a rule's decision
// stream on a worker, the operator's choice on bad lines, the passes over the loaded trace on
// the job worker (tuner::study_trace), and the trace handed to the session.

#include <QPushButton>

#include "core/tuner/load_verdict.h"
#include "ui/qt_text.h"
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
  setStatus(qs(tuner::load_failed_text(cancelled, error.toStdString())));
  emit traceLoadFailed(cancelled ? QStringLiteral("cancelled") : error);
}

void TracePanel::onTraceLoaded(const TraceLoadResult& result) {
  endJob();
  if (!result.load.ok())
    return loadFailed(result.load.error().cancelled(), result.load.error().message);
  const LoadedTrace& r = *result.load;
  const tuner::LoadVerdict verdict =
      tuner::judge_load(result.source.toStdString(), r.trace.get(), r.errors, r.error_count);
  switch (verdict.next) {
    case tuner::LoadVerdict::Next::use:
      study(r.trace, result.source, 0, TraceStudy::Purpose::adopt);
      return;
    case tuner::LoadVerdict::Next::refuse:
      setStatus(qs(verdict.status));
      emit traceLoadFailed(status());
      return;
    case tuner::LoadVerdict::Next::ask:
      break;
  }
  m_waiting = {r, result.source};
  m_report = new QMessageBox(QMessageBox::Warning, tr("Trace has bad lines"), qs(verdict.question),
                             QMessageBox::Cancel, this);
  m_report->setInformativeText(qs(verdict.details));
  QPushButton* use = m_report->addButton(qs(verdict.use_label), QMessageBox::AcceptRole);
  use->setEnabled(verdict.can_use);
  m_report->setAttribute(Qt::WA_DeleteOnClose);
  connect(m_report, &QMessageBox::buttonClicked, this,
          [this, use, refused = qs(verdict.refused)](QAbstractButton* b) {
            const auto [w, source] = std::exchange(m_waiting, {});
            if (b == use) {
              study(w.trace, source, w.error_count, TraceStudy::Purpose::adopt);
            } else {
              setStatus(refused);
              emit traceLoadFailed(status());
            }
          });
  m_report->open();
  setStatus(qs(verdict.status));
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
  QMetaObject::invokeMethod(
      m_jobs, [w = m_jobs, s, a = m_session.setting(tuner::TunerSession::candidate).algorithm(),
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
  } else if (m_session.take_facts(s.trace, s.facts)) {  // else a newer trace came meanwhile
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
