#pragma once
// The dashboard's Rollout tab (issue 19 item 3): one rule's staged rollout as Redis holds it
// (state, step, share, hold left, the guard and its last value, who started it, the audit
// stream), re-read every second, with Start, Pause, Resume and Abort, and optionally driving
// the rollout from here (a controller check per refresh, as `limitscope-cli rollout resume`
// does). Widgets only: every Redis call runs on a RolloutWorker thread, the texts and which
// actions make sense come from core (probe::RolloutConsole).

#include <QThread>
#include <QWidget>

#include "ui/rollout/rollout_worker.h"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTimer;
QT_END_NAMESPACE

namespace limitscope::ui {

class RolloutPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RolloutPanel(QWidget* parent = nullptr);
  ~RolloutPanel() override;

  /// A redis:// or redis+cluster:// URL, with its password if any (shown redacted).
  void setRedisUrl(const QString& url);
  void setRule(const QString& rule);
  /// The guard's default source: a gateway's /metrics, or a Prometheus server.
  void setGuardSource(const QString& metricsUrl, const QString& prometheusUrl);
  /// Who the audit entries name (default $USER).
  void setOperator(const QString& by) { m_by = by; }
  /// Starts watching the rule (also the Watch button).
  void watch();

  QString stateText() const;
  QString statusText() const;

 signals:
  /// A view or an error arrived (after each call to the worker).
  void updated();

 private:
  void onViewed(const RolloutViewPtr& view, const QString& action);
  void onFailed(const QString& message, const QString& action);
  void refresh();
  void setBusy(bool busy);

  QThread m_thread;
  RolloutWorker* m_worker = nullptr;
  QTimer* m_timer = nullptr;
  QString m_redisUrl;  // as given (may hold a password): only ever sent to the worker
  QString m_by;
  bool m_busy = false;
  bool m_watching = false;
  RolloutViewPtr m_view;

  QLineEdit* m_redis = nullptr;
  QLineEdit* m_rule = nullptr;
  QPushButton* m_watchButton = nullptr;
  QLabel* m_state = nullptr;
  QLabel* m_step = nullptr;
  QLabel* m_share = nullptr;
  QLabel* m_hold = nullptr;
  QLabel* m_guard = nullptr;
  QLabel* m_guardValue = nullptr;
  QLabel* m_startedBy = nullptr;
  QLabel* m_reason = nullptr;
  QLabel* m_shadow = nullptr;
  QLineEdit* m_actionReason = nullptr;
  QPushButton* m_pause = nullptr;
  QPushButton* m_resume = nullptr;
  QPushButton* m_abort = nullptr;
  QCheckBox* m_drive = nullptr;
  QLineEdit* m_steps = nullptr;
  QLineEdit* m_holdEdit = nullptr;
  QLineEdit* m_guardEdit = nullptr;
  QComboBox* m_sourceKind = nullptr;
  QLineEdit* m_source = nullptr;
  QPushButton* m_start = nullptr;
  QListWidget* m_history = nullptr;
  QLabel* m_status = nullptr;
};

}  // namespace limitscope::ui
