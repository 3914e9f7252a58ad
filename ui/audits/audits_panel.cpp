#include "ui/audits/audits_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/qt_text.h"
#include "ui/redis_url_text.h"
#include "ui/result_box.h"

namespace limitscope::ui {
namespace {

constexpr std::array<AuditKind, 3> kKinds = {AuditKind::replicas, AuditKind::retry_after,
                                             AuditKind::clock};

std::size_t slot(AuditKind k) {
  return static_cast<std::size_t>(k);
}

// A file field with a "…" button that picks a file.
QWidget* file_field(QLineEdit* edit, const QString& filter, QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  auto* pick = new QPushButton(QStringLiteral("…"), box);
  pick->setMaximumWidth(32);
  QObject::connect(pick, &QPushButton::clicked, edit, [edit, filter] {
    const QString path = QFileDialog::getOpenFileName(edit, QString(), edit->text(), filter);
    if (!path.isEmpty()) edit->setText(path);
  });
  row->addWidget(edit, 1);
  row->addWidget(pick);
  return box;
}

}  // namespace

AuditsPanel::AuditsPanel(QWidget* parent)
    : QWidget(parent), m_cancel(std::make_shared<CancelToken>()) {
  for (std::size_t i = 0; i < m_threads.size(); ++i) {
    m_workers[i] = new AuditWorker;
    m_workers[i]->moveToThread(&m_threads[i]);
    connect(&m_threads[i], &QThread::finished, m_workers[i], &QObject::deleteLater);
    connect(m_workers[i], &AuditWorker::finished, this, &AuditsPanel::onFinished);
    m_threads[i].setObjectName(QStringLiteral("audit"));
    m_threads[i].start();
  }

  auto* root = new QVBoxLayout(this);
  auto* sources = new QGroupBox(tr("Sources"), this);
  auto* form = new QFormLayout(sources);
  form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  m_metrics = new QLineEdit(sources);
  m_metrics->setPlaceholderText(tr("http://gateway-1:8080/metrics, http://gateway-2:8080/metrics"));
  m_metrics->setToolTip(
      tr("Every gateway replica's /metrics, comma-separated: the replica audit sums "
         "their admissions, the clock audit reads their clocks"));
  m_prometheus = new QLineEdit(sources);
  m_prometheus->setPlaceholderText(
      tr("http://prometheus:9090 (replicas, when no /metrics is given)"));
  m_redis = new QLineEdit(sources);
  m_redis->setPlaceholderText(tr("redis://host:6379 or redis+cluster://host:port,…"));
  connect(m_redis, &QLineEdit::textEdited, this,
          [this](const QString& text) { m_redisUrl = text; });
  m_rule = new QLineEdit(sources);
  m_rule->setPlaceholderText(tr("the rule whose decision stream to audit, e.g. gw-free"));
  m_policy = new QLineEdit(sources);
  m_policy->setPlaceholderText(tr("the gateways' policy (default: the embedded one)"));
  m_keyNames = new QLineEdit(sources);
  m_keyNames->setPlaceholderText(tr("CSV api_key_hash,name (optional)"));
  auto* windowRow = new QWidget(sources);
  auto* windowLayout = new QHBoxLayout(windowRow);
  windowLayout->setContentsMargins(0, 0, 0, 0);
  m_window = new QComboBox(windowRow);
  m_window->addItems({tr("since each gateway started"), tr("between two scrapes")});
  m_interval = new QDoubleSpinBox(windowRow);
  m_interval->setRange(1, 3600);
  m_interval->setValue(30);
  m_interval->setSuffix(tr(" s apart"));
  m_interval->setEnabled(false);
  connect(m_window, &QComboBox::currentIndexChanged, m_interval,
          [this](int i) { m_interval->setEnabled(i == 1); });
  windowLayout->addWidget(m_window);
  windowLayout->addWidget(m_interval);
  windowLayout->addWidget(new QLabel(tr("Clock threshold"), windowRow));
  m_threshold = new QDoubleSpinBox(windowRow);
  m_threshold->setRange(0.001, 3600);
  m_threshold->setDecimals(3);
  m_threshold->setValue(1);
  m_threshold->setSuffix(tr(" s"));
  windowLayout->addWidget(m_threshold);
  windowLayout->addStretch(1);
  form->addRow(tr("Gateways' /metrics"), m_metrics);
  form->addRow(tr("Prometheus"), m_prometheus);
  form->addRow(tr("Redis"), m_redis);
  form->addRow(tr("Rule"), m_rule);
  form->addRow(tr("Policy"), file_field(m_policy, tr("Policies (*.json);;All files (*)"), sources));
  form->addRow(tr("Key names"), file_field(m_keyNames, tr("CSV (*.csv);;All files (*)"), sources));
  form->addRow(tr("Replica window"), windowRow);
  auto* buttons = new QHBoxLayout;
  m_runButton = new QPushButton(tr("Run audits"), sources);
  m_runButton->setObjectName(QStringLiteral("runAudits"));
  connect(m_runButton, &QPushButton::clicked, this, &AuditsPanel::runAudits);
  m_cancelButton = new QPushButton(tr("Cancel"), sources);
  m_cancelButton->setEnabled(false);
  connect(m_cancelButton, &QPushButton::clicked, this, &AuditsPanel::cancel);
  m_status = new QLabel(tr("Audits read the sources once when run; nothing is written."), sources);
  m_status->setWordWrap(true);
  buttons->addWidget(m_runButton);
  buttons->addWidget(m_cancelButton);
  buttons->addWidget(m_status, 1);
  form->addRow(buttons);
  root->addWidget(sources);

  auto* results = new QSplitter(Qt::Vertical, this);
  const QString titles[] = {tr("Effective vs configured limits (replicas)"),
                            tr("Retry-After honesty"), tr("Clock skew")};
  for (std::size_t i = 0; i < m_boxes.size(); ++i) {
    m_boxes[i] = new ResultBox(titles[i], results);
    m_boxes[i]->setMessage(tr("Not run yet."));
    results->addWidget(m_boxes[i]);
  }
  root->addWidget(results, 1);
}

AuditsPanel::~AuditsPanel() {
  m_cancel->cancel();
  for (QThread& t : m_threads) {
    t.quit();
    t.wait();
  }
}

void AuditsPanel::setSources(const LiveSpec& spec) {
  if (!spec.metrics_url.empty()) setMetricsUrls({QString::fromStdString(spec.metrics_url)});
  if (!spec.prometheus_url.empty()) setPrometheusUrl(QString::fromStdString(spec.prometheus_url));
  if (!spec.redis_url.empty()) setRedisUrl(QString::fromStdString(spec.redis_url));
  if (!spec.key_names_file.empty()) setKeyNamesFile(QString::fromStdString(spec.key_names_file));
  m_metricsAuth = spec.metrics_auth;
  m_prometheusAuth = spec.prometheus_auth;
}

void AuditsPanel::setMetricsUrls(const QStringList& urls) {
  m_metrics->setText(urls.join(QStringLiteral(", ")));
}

void AuditsPanel::setPrometheusUrl(const QString& url) {
  m_prometheus->setText(url);
}

void AuditsPanel::setRedisUrl(const QString& url) {
  m_redisUrl = url;
  m_redis->setText(redactedRedisUrl(url));
}

void AuditsPanel::setRule(const QString& rule) {
  m_rule->setText(rule);
}

void AuditsPanel::setPolicyFile(const QString& path) {
  m_policy->setText(path);
}

void AuditsPanel::setKeyNamesFile(const QString& path) {
  m_keyNames->setText(path);
}

void AuditsPanel::setReplicaInterval(std::optional<double> seconds) {
  m_window->setCurrentIndex(seconds ? 1 : 0);
  if (seconds) m_interval->setValue(*seconds);
}

void AuditsPanel::setClockThreshold(double seconds) {
  m_threshold->setValue(seconds);
}

QString AuditsPanel::statusText() const {
  return m_status->text();
}

audit::AuditSetup AuditsPanel::setup() const {
  audit::AuditSetup s;
  for (const QString& part : m_metrics->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    if (!part.trimmed().isEmpty()) s.metrics_urls.push_back(part.trimmed().toStdString());
  }
  s.metrics_auth = m_metricsAuth;
  s.prometheus_url = m_prometheus->text().trimmed().toStdString();
  s.prometheus_auth = m_prometheusAuth;
  if (m_window->currentIndex() == 1) {
    s.replica_interval = Nanos{static_cast<std::int64_t>(m_interval->value() * 1e9)};
  }
  s.redis_url = m_redisUrl.trimmed().toStdString();
  s.rule = m_rule->text().trimmed().toStdString();
  s.clock_threshold_s = m_threshold->value();
  s.policy_file = m_policy->text().trimmed().toStdString();
  s.key_names_file = m_keyNames->text().trimmed().toStdString();
  return s;
}

void AuditsPanel::runAudits() {
  if (isRunning()) return;
  const audit::AuditSetup s = setup();
  const audit::AuditAvailability a = audit::available_audits(s);
  const std::array<std::pair<bool, std::string>, 3> can = {
      std::pair{a.replicas, a.replicas_why}, std::pair{a.retry_after, a.retry_after_why},
      std::pair{a.clock, a.clock_why}};
  m_cancel = std::make_shared<CancelToken>();
  ++m_run;
  for (AuditKind kind : kKinds) {
    const std::size_t i = slot(kind);
    if (!can[i].first) {
      m_boxes[i]->setMessage(tr("Not run: %1.").arg(QString::fromStdString(can[i].second)));
      continue;
    }
    ++m_outstanding;
    m_boxes[i]->setMessage(kind == AuditKind::replicas && s.replica_interval
                               ? tr("Running: two scrapes %1 s apart…").arg(m_interval->value())
                               : tr("Running…"));
    QMetaObject::invokeMethod(m_workers[i], [w = m_workers[i], kind, s, run = m_run, c = m_cancel] {
      if (w) w->runAudit(kind, s, run, c);
    });
  }
  if (m_outstanding == 0) {
    m_status->setText(
        tr("Nothing to audit: give the gateways' /metrics, a Prometheus or a Redis and a rule."));
    emit auditsFinished();
    return;
  }
  m_runButton->setEnabled(false);
  m_cancelButton->setEnabled(true);
  m_status->setText(tr("Running %1 audit(s)…").arg(m_outstanding));
}

void AuditsPanel::cancel() {
  m_cancel->cancel();
}

void AuditsPanel::onFinished(const AuditOutcome& o) {
  if (o.run != m_run) return;
  ResultBox* box = m_boxes[slot(o.kind)];
  if (o.table.ok()) {
    box->setTable(**o.table);
  } else {
    box->setMessage(tr("Failed: %1").arg(qs(o.table.error())), true);
  }
  if (--m_outstanding > 0) return;
  m_runButton->setEnabled(true);
  m_cancelButton->setEnabled(false);
  int problems = 0;
  for (const ResultBox* b : m_boxes) problems += b->isProblem() ? 1 : 0;
  m_status->setText(problems > 0 ? tr("%1 audit(s) found a problem.").arg(problems)
                                 : tr("Audits done."));
  emit auditsFinished();
}

}  // namespace limitscope::ui
