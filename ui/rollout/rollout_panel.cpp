#include "ui/rollout/rollout_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "core/probe/rollout_guard.h"
#include "core/redis/key_schema.h"
#include "ui/redis_url_text.h"

namespace limitscope::ui {
namespace {

constexpr int kRefreshMs = 1000;

// A field's value; long ones (the guard, a reason) wrap.
QLabel* value_label(const char* name, QWidget* parent, bool wrap = false) {
  auto* l = new QLabel(QStringLiteral("—"), parent);
  l->setObjectName(QLatin1String(name));
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setWordWrap(wrap);
  l->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  return l;
}

QString text(const std::string& s) {
  return s.empty() ? QStringLiteral("—") : QString::fromStdString(s);
}

}  // namespace

RolloutPanel::RolloutPanel(QWidget* parent) : QWidget(parent) {
  m_by = qEnvironmentVariable("USER", QStringLiteral("limitscope"));
  m_worker = new RolloutWorker;
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  connect(m_worker, &RolloutWorker::viewed, this, &RolloutPanel::onViewed);
  connect(m_worker, &RolloutWorker::failed, this, &RolloutPanel::onFailed);
  m_thread.setObjectName(QStringLiteral("rollout"));
  m_thread.start();

  auto* root = new QVBoxLayout(this);
  auto* target = new QGroupBox(tr("Rule"), this);
  auto* targetRow = new QHBoxLayout(target);
  m_redis = new QLineEdit(target);
  m_redis->setPlaceholderText(tr("redis://host:6379 or redis+cluster://host:port,…"));
  connect(m_redis, &QLineEdit::textEdited, this, [this](const QString& t) { m_redisUrl = t; });
  m_rule = new QLineEdit(target);
  m_rule->setPlaceholderText(tr("rule, e.g. gw-free"));
  m_rule->setMaximumWidth(240);
  m_watchButton = new QPushButton(tr("Watch"), target);
  m_watchButton->setObjectName(QStringLiteral("rolloutWatch"));
  connect(m_watchButton, &QPushButton::clicked, this, &RolloutPanel::watch);
  connect(m_rule, &QLineEdit::returnPressed, this, &RolloutPanel::watch);
  targetRow->addWidget(new QLabel(tr("Redis"), target));
  targetRow->addWidget(m_redis, 2);
  targetRow->addWidget(new QLabel(tr("Rule"), target));
  targetRow->addWidget(m_rule, 1);
  targetRow->addWidget(m_watchButton);
  root->addWidget(target);

  auto* now = new QGroupBox(tr("Rollout"), this);
  auto* nowLayout = new QVBoxLayout(now);
  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  m_state = value_label("rolloutState", now);
  QFont bold = m_state->font();
  bold.setBold(true);
  m_state->setFont(bold);
  m_step = value_label("rolloutStep", now);
  m_share = value_label("rolloutShare", now);
  m_hold = value_label("rolloutHold", now);
  m_guard = value_label("rolloutGuard", now, true);
  m_guardValue = value_label("rolloutGuardValue", now);
  m_startedBy = value_label("rolloutStartedBy", now);
  m_reason = value_label("rolloutReason", now, true);
  m_shadow = value_label("rolloutShadow", now, true);
  form->addRow(tr("State"), m_state);
  form->addRow(tr("Step"), m_step);
  form->addRow(tr("Share"), m_share);
  form->addRow(tr("Hold"), m_hold);
  form->addRow(tr("Guard"), m_guard);
  form->addRow(tr("Guard's last value"), m_guardValue);
  form->addRow(tr("Started by"), m_startedBy);
  form->addRow(tr("Last change"), m_reason);
  form->addRow(tr("Shadow (candidate)"), m_shadow);
  nowLayout->addLayout(form);
  auto* actions = new QHBoxLayout;
  m_actionReason = new QLineEdit(now);
  m_actionReason->setPlaceholderText(tr("why (audited)"));
  m_pause = new QPushButton(tr("Pause"), now);
  m_pause->setObjectName(QStringLiteral("rolloutPause"));
  m_pause->setToolTip(
      tr("Hold the current step: the share stays enforced and the guard still watches; "
         "the hold timer stops until Resume"));
  m_resume = new QPushButton(tr("Resume"), now);
  m_resume->setObjectName(QStringLiteral("rolloutResume"));
  m_abort = new QPushButton(tr("Abort"), now);
  m_abort->setObjectName(QStringLiteral("rolloutAbort"));
  m_abort->setToolTip(tr("Every key back to the live config at the next decision"));
  m_drive = new QCheckBox(tr("Drive from this dashboard"), now);
  m_drive->setObjectName(QStringLiteral("rolloutDrive"));
  m_drive->setToolTip(
      tr("Check the guard and step the rollout every second, as "
         "`limitscope-cli rollout resume` does"));
  const auto reason = [this] { return m_actionReason->text().trimmed(); };
  connect(m_pause, &QPushButton::clicked, this, [this, reason] {
    setBusy(true);
    QMetaObject::invokeMethod(
        m_worker, "pause", Qt::QueuedConnection, Q_ARG(QString, m_by),
        Q_ARG(QString, reason().isEmpty() ? tr("paused from the dashboard") : reason()));
  });
  connect(m_resume, &QPushButton::clicked, this, [this] {
    setBusy(true);
    QMetaObject::invokeMethod(m_worker, "resume", Qt::QueuedConnection, Q_ARG(QString, m_by));
  });
  connect(m_abort, &QPushButton::clicked, this, [this, reason] {
    setBusy(true);
    QMetaObject::invokeMethod(
        m_worker, "abort", Qt::QueuedConnection, Q_ARG(QString, m_by),
        Q_ARG(QString, reason().isEmpty() ? tr("aborted from the dashboard") : reason()));
  });
  actions->addWidget(m_actionReason, 1);
  actions->addWidget(m_pause);
  actions->addWidget(m_resume);
  actions->addWidget(m_abort);
  actions->addWidget(m_drive);
  nowLayout->addLayout(actions);
  root->addWidget(now);

  auto* plan = new QGroupBox(tr("Start a rollout of the shadow"), this);
  auto* planForm = new QFormLayout(plan);
  planForm->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  m_steps = new QLineEdit(QStringLiteral("1,10,50,100"), plan);
  m_steps->setObjectName(QStringLiteral("rolloutSteps"));
  m_holdEdit = new QLineEdit(QStringLiteral("5m"), plan);
  m_holdEdit->setObjectName(QStringLiteral("rolloutHoldEdit"));
  m_guardEdit = new QLineEdit(plan);
  m_guardEdit->setObjectName(QStringLiteral("rolloutGuardEdit"));
  m_guardEdit->setPlaceholderText(
      tr("PromQL; a sample trips it, e.g. sum(rate(gateway_rate_limit_hits_total[1m])) > 0.5"));
  auto* sourceRow = new QHBoxLayout;
  m_sourceKind = new QComboBox(plan);
  m_sourceKind->setObjectName(QStringLiteral("rolloutSourceKind"));
  m_sourceKind->addItems({tr("Gateway /metrics"), tr("Prometheus")});
  m_source = new QLineEdit(plan);
  m_source->setObjectName(QStringLiteral("rolloutSource"));
  m_source->setPlaceholderText(tr("http://gateway:8080/metrics or http://prometheus:9090"));
  sourceRow->addWidget(m_sourceKind);
  sourceRow->addWidget(m_source, 1);
  m_start = new QPushButton(tr("Start"), plan);
  m_start->setObjectName(QStringLiteral("rolloutStart"));
  connect(m_start, &QPushButton::clicked, this, [this] {
    const QString url = m_source->text().trimmed();
    const QString source =
        m_sourceKind->currentIndex() == 1
            ? QString::fromUtf8(probe::kPrometheusSource.data(),
                                static_cast<qsizetype>(probe::kPrometheusSource.size())) +
                  url
            : url;
    setBusy(true);
    QMetaObject::invokeMethod(
        m_worker, "start", Qt::QueuedConnection, Q_ARG(QString, m_steps->text().trimmed()),
        Q_ARG(QString, m_holdEdit->text().trimmed()), Q_ARG(QString, m_guardEdit->text().trimmed()),
        Q_ARG(QString, source), Q_ARG(QString, m_by));
  });
  planForm->addRow(tr("Steps (% of keys)"), m_steps);
  planForm->addRow(tr("Hold per step"), m_holdEdit);
  planForm->addRow(tr("Guard"), m_guardEdit);
  planForm->addRow(tr("Guard's source"), sourceRow);
  planForm->addRow(m_start);
  root->addWidget(plan);

  auto* history = new QGroupBox(tr("Audit (newest first)"), this);
  auto* historyLayout = new QVBoxLayout(history);
  m_history = new QListWidget(history);
  m_history->setObjectName(QStringLiteral("rolloutHistory"));
  historyLayout->addWidget(m_history);
  root->addWidget(history, 1);

  m_status = new QLabel(tr("Give a Redis and a rule, then Watch."), this);
  m_status->setObjectName(QStringLiteral("rolloutStatus"));
  m_status->setWordWrap(true);
  root->addWidget(m_status);

  m_timer = new QTimer(this);
  m_timer->setInterval(kRefreshMs);
  connect(m_timer, &QTimer::timeout, this, &RolloutPanel::refresh);
  setBusy(false);
}

RolloutPanel::~RolloutPanel() {
  m_thread.quit();
  m_thread.wait();
}

void RolloutPanel::setRedisUrl(const QString& url) {
  m_redisUrl = url;
  m_redis->setText(redactedRedisUrl(url));
}

void RolloutPanel::setRule(const QString& rule) {
  m_rule->setText(rule);
}

void RolloutPanel::setGuardSource(const QString& metricsUrl, const QString& prometheusUrl) {
  if (!m_source->text().isEmpty()) return;
  m_sourceKind->setCurrentIndex(metricsUrl.isEmpty() && !prometheusUrl.isEmpty() ? 1 : 0);
  m_source->setText(metricsUrl.isEmpty() ? prometheusUrl : metricsUrl);
}

void RolloutPanel::watch() {
  m_watching = true;
  setBusy(true);
  m_status->setText(tr("Reading…"));
  QMetaObject::invokeMethod(
      m_worker, "watch", Qt::QueuedConnection, Q_ARG(QString, m_redisUrl.trimmed()),
      Q_ARG(QString, m_rule->text().trimmed()),
      Q_ARG(QString, QString::fromStdString(std::string(redis::kDefaultPrefix))));
  m_timer->start();
}

void RolloutPanel::refresh() {
  if (!m_watching || m_busy) return;  // one call at a time: a slow Redis never piles them up
  m_busy = true;
  QMetaObject::invokeMethod(m_worker, "refresh", Qt::QueuedConnection,
                            Q_ARG(bool, m_drive->isChecked()), Q_ARG(QString, m_by));
}

QString RolloutPanel::stateText() const {
  return m_state->text();
}

QString RolloutPanel::statusText() const {
  return m_status->text();
}

void RolloutPanel::setBusy(bool busy) {
  m_busy = busy;
  const probe::RolloutView* v = m_view.get();
  m_pause->setEnabled(!busy && v && v->can_pause);
  m_resume->setEnabled(!busy && v && v->can_resume);
  m_abort->setEnabled(!busy && v && v->can_abort);
  m_start->setEnabled(!busy && v && v->can_start);
}

void RolloutPanel::onViewed(const RolloutViewPtr& view, const QString& action) {
  m_view = view;
  m_state->setText(text(view->state_text));
  m_step->setText(text(view->step_text));
  m_share->setText(text(view->share_text));
  m_hold->setText(text(view->hold_text));
  m_guard->setText(text(view->guard_text));
  m_guardValue->setText(text(view->guard_value_text));
  m_startedBy->setText(text(view->started_by));
  m_reason->setText(text(view->reason));
  m_shadow->setText(view->shadow.empty() ? tr("none (limitscope-cli shadow set, or the Tuner)")
                                         : QString::fromStdString(view->shadow));
  m_history->clear();
  for (const std::string& line : view->history_lines)
    m_history->addItem(QString::fromStdString(line));
  if (action != QLatin1String("read")) {
    m_status->setText(tr("%1: done, rule %2 is %3.")
                          .arg(action, QString::fromStdString(view->rule),
                               QString::fromStdString(view->state_text)));
  } else if (m_status->text() == tr("Reading…")) {
    m_status->setText(
        tr("Watching rule %1 (re-read every second).").arg(QString::fromStdString(view->rule)));
  }
  setBusy(false);
  emit updated();
}

void RolloutPanel::onFailed(const QString& message, const QString& action) {
  m_status->setText(tr("%1 failed: %2").arg(action, message));
  setBusy(false);
  emit updated();
}

}  // namespace limitscope::ui
