#pragma once
// The dashboard's Audits tab: the questions no limiter answers (docs/audits.md), each run on
// an AuditWorker thread against the sources the dashboard watches (filled in by setSources;
// the operator may add replicas' /metrics, a rule, a policy), each shown as a verdict over a
// table with tenant names where they are known. Widgets only: the audits and their tables are
// core/audit.

#include <QPointer>
#include <QThread>
#include <QWidget>
#include <array>
#include <memory>
#include <optional>

#include "core/sources/live_source_factory.h"
#include "ui/audits/audit_worker.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
QT_END_NAMESPACE

namespace limitscope::ui {

class ResultBox;

class AuditsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AuditsPanel(QWidget* parent = nullptr);
  ~AuditsPanel() override;

  /// The dashboard's live sources: their /metrics, Prometheus, Redis (with its password, never
  /// shown), credentials and key names become the audits' sources.
  void setSources(const LiveSpec& spec);
  /// Every replica's /metrics (the dashboard watches one; a replica audit wants them all).
  void setMetricsUrls(const QStringList& urls);
  void setPrometheusUrl(const QString& url);
  /// A redis:// or redis+cluster:// URL, with its password if any (shown redacted).
  void setRedisUrl(const QString& url);
  void setRule(const QString& rule);
  void setPolicyFile(const QString& path);
  void setKeyNamesFile(const QString& path);
  /// The replica audit's window: nullopt counts since each gateway started, else two scrapes
  /// this many seconds apart.
  void setReplicaInterval(std::optional<double> seconds);
  void setClockThreshold(double seconds);

  /// Runs every audit the sources allow; the others say what they need. Emits auditsFinished
  /// when the last one reported.
  void runAudits();
  void cancel();
  bool isRunning() const { return m_outstanding > 0; }

  ResultBox* replicasBox() const { return m_boxes[0]; }
  ResultBox* retryAfterBox() const { return m_boxes[1]; }
  ResultBox* clockBox() const { return m_boxes[2]; }
  QString statusText() const;

 signals:
  void auditsFinished();

 private:
  audit::AuditSetup setup() const;
  void onFinished(const AuditOutcome& outcome);

  std::array<QThread, 3> m_threads;
  std::array<QPointer<AuditWorker>, 3> m_workers;
  std::array<ResultBox*, 3> m_boxes{};
  std::shared_ptr<CancelToken> m_cancel;
  int m_run = 0;
  int m_outstanding = 0;
  QString m_redisUrl;  // as given (may hold a password): only ever sent to the worker
  http::HttpAuth m_metricsAuth, m_prometheusAuth;

  QLineEdit* m_metrics = nullptr;
  QLineEdit* m_prometheus = nullptr;
  QLineEdit* m_redis = nullptr;
  QLineEdit* m_rule = nullptr;
  QLineEdit* m_policy = nullptr;
  QLineEdit* m_keyNames = nullptr;
  QComboBox* m_window = nullptr;
  QDoubleSpinBox* m_interval = nullptr;
  QDoubleSpinBox* m_threshold = nullptr;
  QPushButton* m_runButton = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QLabel* m_status = nullptr;
};

}  // namespace limitscope::ui
