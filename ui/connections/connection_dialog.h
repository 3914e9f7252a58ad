#pragma once
// File ▸ Connect…: the saved connections on the left, the selected one's form on the right,
// Test connection / Save / Connect at the bottom. What is saved goes to connections.json
// (no secret ever); a password goes to the system keychain, or stays in an environment
// variable the connection names. A password typed into the URL is taken out of it at once.
// The keychain's availability is checked when the dialog opens: when there is none, the
// keychain choice is disabled and the dialog says to use an environment variable.

#include <QDialog>
#include <QString>
#include <optional>

#include "core/connections/saved_connection.h"
#include "ui/qt_status.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
QT_END_NAMESPACE

namespace limitscope::ui {

class SavedConnections;
class SecretStore;

class ConnectionDialog : public QDialog {
  Q_OBJECT
 public:
  ConnectionDialog(SavedConnections* saved, SecretStore* secrets, QWidget* parent = nullptr);

  /// Shows a saved connection in the form. @return false when there is none of that name
  bool selectConnection(const QString& name);
  /// An empty form for a new connection.
  void newConnection();
  /// The form as a connection (credentials typed into the URL already taken out).
  connections::SavedConnection formConnection() const;
  /// Saves the form (the keychain first, when the password goes there); emits saved().
  void save();
  /// Runs the check off the GUI thread; emits tested().
  void testConnection();
  /// Deletes the selected saved connection (and its keychain entry).
  void deleteConnection();
  /// nullopt until the keychain check has answered.
  std::optional<bool> keychainAvailable() const { return m_keychainAvailable; }

 signals:
  void keychainChecked(bool available, const QString& reason);
  /// The form was saved as `name` (ok), or why not.
  void saved(const QString& name, const limitscope::Status& result);
  /// ok, or the error kind (auth, io, timeout, http, config, secret, ...) and message
  void tested(bool ok, const QString& errorKind, const QString& message);
  /// Connect pressed: open this connection; sessionSecret is what the password field holds
  /// (used for this session only, when set).
  void connectRequested(const limitscope::connections::SavedConnection& connection,
                        const QString& sessionSecret);

 private:
  void buildForm();
  void reloadList(const QString& select);
  void showConnection(const connections::SavedConnection& c);
  void updateFieldsForKind();
  void takeSecretOutOfUrl();
  void setResult(bool ok, const QString& text);
  void finishSave(const connections::SavedConnection& c);
  /// Removes the keychain entry of a connection no longer using it; a failure is shown (the
  /// entry stays behind, the file is saved already).
  void removeSecret(const connections::SavedConnection& c);
  QString suggestedEnvName() const;
  void applyKeychainState(bool available, const QString& reason);

  SavedConnections* m_saved;
  SecretStore* m_secrets;
  std::optional<bool> m_keychainAvailable;
  QString m_keychainReason;
  QString m_editing;  // the saved name the form edits; empty for a new connection

  QListWidget* m_list = nullptr;
  QFormLayout* m_form = nullptr;
  QLineEdit* m_name = nullptr;
  QComboBox* m_kind = nullptr;
  QLineEdit* m_url = nullptr;
  QLabel* m_urlNote = nullptr;
  QLineEdit* m_user = nullptr;
  QComboBox* m_auth = nullptr;
  QComboBox* m_storage = nullptr;
  QLineEdit* m_env = nullptr;
  QLineEdit* m_secret = nullptr;
  QLabel* m_keychainStatus = nullptr;
  QLineEdit* m_profiles = nullptr;
  QLineEdit* m_scanMatch = nullptr;
  QLineEdit* m_interval = nullptr;
  QLabel* m_fileError = nullptr;
  QLabel* m_result = nullptr;
  QPushButton* m_test = nullptr;
  QPushButton* m_save = nullptr;
  QPushButton* m_delete = nullptr;
  QPushButton* m_connect = nullptr;
};

}  // namespace limitscope::ui
