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

#include "core/common/expected.h"

namespace limitscope::ui {

class SecretStore : public QObject {
  Q_OBJECT
 public:
  /// The stored value (nullopt when there is none: "not found" is not an error), or why the
  /// read failed.
  using ReadDone = std::function<void(Expected<std::optional<QString>> secret)>;
  /// Ok, or why the write (or removal) failed.
  using WriteDone = std::function<void(Status written)>;
  /// Ok when the store works, or why it does not.
  using ProbeDone = std::function<void(Status available)>;

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
