#include "ui/connections/connection_actions.h"

#include <QAction>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>

#include "core/connections/connection_live_spec.h"
#include "core/connections/secret_resolution.h"
#include "ui/connections/connection_dialog.h"
#include "ui/connections/saved_connections.h"
#include "ui/connections/secret_store.h"
#include "ui/key_browser/key_browser_dock.h"
#include "ui/main_window.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

ConnectionActions::ConnectionActions(MainWindow* window, QMenu* file, SecretStore* secrets)
    : QObject(window),
      m_window(window),
      m_saved(new SavedConnections(this)),
      m_secrets(secrets != nullptr ? secrets : new KeychainSecretStore(this)) {
  m_connect = new QAction(tr("&Connect…"), this);
  m_connect->setObjectName(QStringLiteral("connectAction"));
  m_connect->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  m_connect->setToolTip(
      tr("Saved connections: Redis, gateway /metrics, Prometheus (docs/connections.md)"));
  connect(m_connect, &QAction::triggered, this, [this] { showDialog(); });
  m_recent = new QMenu(tr("Recent &connections"), window);
  m_recent->setObjectName(QStringLiteral("recentConnections"));
  connect(m_recent, &QMenu::aboutToShow, this, &ConnectionActions::fillRecent);
  connect(m_saved, &SavedConnections::changed, this, &ConnectionActions::fillRecent);
  const QList<QAction*> existing = file->actions();
  QAction* before = existing.isEmpty() ? nullptr : existing.front();
  file->insertAction(before, m_connect);
  file->insertMenu(before, m_recent);
  QAction* keys = window->keyBrowser()->toggleViewAction();
  keys->setText(tr("Redis &key browser"));
  keys->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
  file->insertAction(before, keys);
  file->insertSeparator(before);
  fillRecent();
}

ConnectionDialog* ConnectionActions::showDialog() {
  if (!m_dialog) {
    // The file may have been fixed or edited since; one that cannot be read is loadError(),
    // which the dialog shows.
    (void)m_saved->load();
    m_dialog = new ConnectionDialog(m_saved, m_secrets, m_window);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(
        m_dialog, &ConnectionDialog::connectRequested, this,
        [this](const connections::SavedConnection& c, const QString& secret) { open(c, secret); });
  }
  m_dialog->show();
  m_dialog->raise();
  m_dialog->activateWindow();
  return m_dialog;
}

void ConnectionActions::fillRecent() {
  m_recent->clear();
  const auto& doc = m_saved->document();
  for (const std::string& name : doc.recent) {
    const connections::SavedConnection* c = doc.find(name);
    if (c == nullptr) continue;
    QAction* a = m_recent->addAction(QStringLiteral("%1  (%2)").arg(qs(c->name), qs(c->url)));
    connect(a, &QAction::triggered, this, [this, n = qs(name)] { openSaved(n); });
  }
  if (m_recent->isEmpty()) {
    QAction* none = m_recent->addAction(m_saved->loadError().isEmpty()
                                            ? tr("(none yet)")
                                            : tr("(connections.json could not be read)"));
    none->setEnabled(false);
  }
}

void ConnectionActions::openSaved(const QString& name) {
  const connections::SavedConnection* c = m_saved->document().find(name.toStdString());
  if (c == nullptr) return fail(name, tr("no saved connection named '%1'").arg(name));
  open(*c, QString());
}

void ConnectionActions::fail(const QString& name, const QString& error) {
  m_window->statusBar()->showMessage(tr("Cannot open %1: %2").arg(name, error), 15000);
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open %1").arg(name), error,
                              QMessageBox::Ok, m_window);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // not exec(): nothing waits on it
  emit opened(name, failure(error));
}

void ConnectionActions::open(const connections::SavedConnection& connection,
                             const QString& sessionSecret) {
  const QString name = qs(connection.name);
  const auto proceed = [this, name](const connections::SavedConnection& c,
                                    const std::optional<std::string>& keychain) {
    auto target = connections::resolve_connection(c, connections::process_env(), keychain);
    if (!target) return fail(name, qs(target.error()));
    // A Redis connection's SCAN MATCH is the dashboard's discovery and the key browser's.
    m_window->openLive(connections::live_spec_of(*target));
    if (c.kind == connections::ConnectionKind::redis && !c.scan_match.empty())
      m_window->keyBrowser()->setMatch(qs(c.scan_match));
    // The connection opens whether or not the recent list could be saved; the bar says so.
    const Status recent = m_saved->markRecent(name);
    m_window->statusBar()->showMessage(
        recent.ok()
            ? tr("Opening %1…").arg(name)
            : tr("Opening %1… (the recent list was not saved: %2)").arg(name, qs(recent.error())),
        5000);
    emit opened(name, Status{});
  };
  const connections::SecretPlan plan =
      connections::plan_secret(connection, sessionSecret.toStdString());
  if (!plan.read_keychain) return proceed(plan.connection, plan.secret);
  QPointer<ConnectionActions> self(this);
  m_secrets->read(
      qs(connections::keychain_key(connection)),
      [self, connection, proceed, name](const Expected<std::optional<QString>>& secret) {
        if (!self) return;
        if (!secret.ok()) {
          return self->fail(name, tr("the %1 could not be read: %2. Keep the password in an "
                                     "environment variable instead (docs/connections.md).")
                                      .arg(self->m_secrets->name(), qs(secret.error())));
        }
        proceed(connection,
                *secret ? std::optional<std::string>((*secret)->toStdString()) : std::nullopt);
      });
}

}  // namespace limitscope::ui
