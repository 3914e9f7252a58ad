#include "ui/audits/audit_worker.h"

namespace limitscope::ui {

AuditWorker::AuditWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<AuditOutcome>();
}

void AuditWorker::runAudit(AuditKind kind, const audit::AuditSetup& setup, int run,
                           const std::shared_ptr<CancelToken>& cancel) {
  SteadyClock& clock = SteadyClock::instance();
  Expected<ResultTable> table = [&]() -> Expected<ResultTable> {
    switch (kind) {
      case AuditKind::replicas:
        return audit::run_replica_audit(setup, clock, *cancel);
      case AuditKind::retry_after:
        return audit::run_retry_after_audit(setup, clock);
      case AuditKind::clock:
        return audit::run_clock_audit(setup, clock);
    }
    return make_error("unknown audit");
  }();
  AuditOutcome out;
  out.kind = kind;
  out.run = run;
  if (table.ok()) {
    out.table = std::make_shared<const ResultTable>(std::move(*table));
  } else {
    out.table = make_error(table.error());
  }
  emit finished(out);
}

}  // namespace limitscope::ui
