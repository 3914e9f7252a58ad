#pragma once
// Where connection secrets are kept: the system keychain through QtKeychain (Secret Service,
// KWallet, macOS Keychain, Windows Credential Store). Calls are asynchronous, as the keychain
// may ask the user; every call answers exactly once, with an error after a timeout if the
// keychain never does. There is no plain-text fallback: when no keychain is reachable (a
// headless server, no D-Bus session), the caller is told so and offers an environment variable.

#include <QObject>
#include <QString>
#include <functional>
#include <optional>

namespace limitscope::ui {

class SecretStore : public QObject {
  Q_OBJECT
 public:
  /// secret: the stored value (nullopt when there is none); error: why the read failed
  /// (empty when it did not: "not found" is not an error).
  using ReadDone = std::function<void(std::optional<QString> secret, QString error)>;
  /// error: empty on success.
  using WriteDone = std::function<void(QString error)>;
  /// available, and the reason when not.
  using ProbeDone = std::function<void(bool available, QString reason)>;

  using QObject::QObject;
  virtual void read(const QString& key, ReadDone done) = 0;
  virtual void write(const QString& key, const QString& secret, WriteDone done) = 0;
  virtual void remove(const QString& key, WriteDone done) = 0;
  /// Finds out whether the store works (reads an entry nobody writes).
  virtual void probe(ProbeDone done) = 0;
  /// "system keychain", for messages.
  virtual QString name() const = 0;
};

/// The system keychain, service "limitscope". Never uses QtKeychain's insecure fallback.
class KeychainSecretStore final : public SecretStore {
  Q_OBJECT
 public:
  explicit KeychainSecretStore(QObject* parent = nullptr, int timeout_ms = 10000);
  void read(const QString& key, ReadDone done) override;
  void write(const QString& key, const QString& secret, WriteDone done) override;
  void remove(const QString& key, WriteDone done) override;
  void probe(ProbeDone done) override;
  QString name() const override { return tr("system keychain"); }

 private:
  int m_timeoutMs;
};

}  // namespace limitscope::ui
