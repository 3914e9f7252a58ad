#pragma once
// The connection manager's place in the main window: File ▸ Connect… (Ctrl+K) opens the
// dialog, File ▸ Recent connections lists the last eight opened, and opening one resolves its
// secret (keychain or environment) and calls the window's entry point for its kind.

#include <QObject>
#include <QPointer>
#include <QString>

#include "core/connections/saved_connection.h"
#include "ui/qt_status.h"

QT_BEGIN_NAMESPACE
class QAction;
class QMenu;
QT_END_NAMESPACE

namespace limitscope::ui {

class ConnectionDialog;
class MainWindow;
class SavedConnections;
class SecretStore;

class ConnectionActions : public QObject {
  Q_OBJECT
 public:
  /// Adds Connect… and Recent connections at the top of `file`.
  /// @param secrets nullptr: the system keychain (tests pass their own store)
  ConnectionActions(MainWindow* window, QMenu* file, SecretStore* secrets = nullptr);

  /// Shows the dialog (non-modal; one at a time). @return it
  ConnectionDialog* showDialog();
  /// Opens a connection: resolves its secret (`sessionSecret` when given), then the window's
  /// entry point for its kind; emits opened().
  void open(const connections::SavedConnection& connection,
            const QString& sessionSecret = QString());
  /// Opens a saved connection by name (the Recent menu).
  void openSaved(const QString& name);

  SavedConnections* saved() const { return m_saved; }
  QAction* connectAction() const { return m_connect; }
  QMenu* recentMenu() const { return m_recent; }

 signals:
  /// The connection was handed to the window (ok), or could not be (why).
  void opened(const QString& name, const limitscope::Status& result);

 private:
  void fillRecent();
  void fail(const QString& name, const QString& error);

  MainWindow* m_window;
  SavedConnections* m_saved;
  SecretStore* m_secrets;
  QAction* m_connect = nullptr;
  QMenu* m_recent = nullptr;
  QPointer<ConnectionDialog> m_dialog;
};

}  // namespace limitscope::ui
