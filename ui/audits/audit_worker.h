#pragma once
// Runs the audits (core/audit/audit_runs.h) off the GUI thread: scrapes, Redis reads and the
// wait between two scrapes all happen here. Each audit's finished table comes back in a queued
// signal; a failure comes back as its message in the same Expected.

#include <QObject>
#include <memory>

#include "core/audit/audit_runs.h"
#include "core/common/expected.h"
#include "core/common/result_table.h"

namespace limitscope::ui {

enum class AuditKind { replicas, retry_after, clock };

struct AuditOutcome {
  AuditKind kind = AuditKind::replicas;
  int run = 0;  ///< the run it belongs to (older runs' outcomes are stale)
  /// The audit's finished table, or why it failed.
  Expected<std::shared_ptr<const ResultTable>> table = make_error("the audit has not run");
};

class AuditWorker : public QObject {
  Q_OBJECT
 public:
  explicit AuditWorker(QObject* parent = nullptr);

  /// Runs `kind` with `setup` (called on the worker's thread); emits finished.
  /// @param cancel ends the wait between two scrapes of the replica audit
  void runAudit(AuditKind kind, const audit::AuditSetup& setup, int run,
                const std::shared_ptr<CancelToken>& cancel);

 signals:
  void finished(const limitscope::ui::AuditOutcome& outcome);
};

}  // namespace limitscope::ui

Q_DECLARE_METATYPE(limitscope::ui::AuditOutcome)
