#include "ui/connections/secret_store.h"

#include <qt6keychain/keychain.h>

#include <QTimer>
#include <memory>

namespace limitscope::ui {
namespace {

const QString kService = QStringLiteral("limitscope");

// Starts `job` and calls `finish` once: with the job's outcome, or with a timeout error when
// the keychain does not answer (a D-Bus service that hangs). `finish` gets nullptr then.
void runJob(QObject* owner, QKeychain::Job* job, int timeout_ms,
            std::function<void(QKeychain::Job*)> finish) {
  auto done = std::make_shared<bool>(false);
  auto* timer = new QTimer(owner);
  timer->setSingleShot(true);
  QObject::connect(timer, &QTimer::timeout, owner, [done, finish, timer] {
    timer->deleteLater();
    if (*done) return;
    *done = true;
    finish(nullptr);
  });
  QObject::connect(job, &QKeychain::Job::finished, owner, [done, finish, timer](QKeychain::Job* j) {
    timer->stop();
    timer->deleteLater();
    if (*done) return;
    *done = true;
    finish(j);
  });
  job->setAutoDelete(true);
  job->setInsecureFallback(false);  // never a plain-text file
  timer->start(timeout_ms);
  job->start();
}

QString jobErrorText(const QKeychain::Job* j, int timeout_ms) {
  if (j == nullptr)
    return KeychainSecretStore::tr("the keychain did not answer within %1 s")
        .arg(timeout_ms / 1000);
  switch (j->error()) {
    case QKeychain::NoBackendAvailable:
      return KeychainSecretStore::tr("no keychain service is available (%1)").arg(j->errorString());
    case QKeychain::AccessDeniedByUser:
    case QKeychain::AccessDenied:
      return KeychainSecretStore::tr("access to the keychain was denied (%1)")
          .arg(j->errorString());
    default:
      return j->errorString().isEmpty()
                 ? KeychainSecretStore::tr("keychain error %1").arg(static_cast<int>(j->error()))
                 : j->errorString();
  }
}

// Why a job failed (j: nullptr when the keychain did not answer in time).
Error jobError(const QKeychain::Job* j, int timeout_ms) {
  return make_error(jobErrorText(j, timeout_ms).toStdString());
}

}  // namespace

KeychainSecretStore::KeychainSecretStore(QObject* parent, int timeout_ms)
    : SecretStore(parent), m_timeoutMs(timeout_ms) {}

void KeychainSecretStore::read(const QString& key, ReadDone done) {
  auto* job = new QKeychain::ReadPasswordJob(kService, this);
  job->setKey(key);
  runJob(this, job, m_timeoutMs, [done, t = m_timeoutMs](QKeychain::Job* j) {
    if (j != nullptr && j->error() == QKeychain::NoError) {
      done(std::optional<QString>(static_cast<QKeychain::ReadPasswordJob*>(j)->textData()));
    } else if (j != nullptr && j->error() == QKeychain::EntryNotFound) {
      done(std::optional<QString>());
    } else {
      done(jobError(j, t));
    }
  });
}

void KeychainSecretStore::write(const QString& key, const QString& secret, WriteDone done) {
  auto* job = new QKeychain::WritePasswordJob(kService, this);
  job->setKey(key);
  job->setTextData(secret);
  runJob(this, job, m_timeoutMs, [done, t = m_timeoutMs](QKeychain::Job* j) {
    if (j != nullptr && j->error() == QKeychain::NoError) return done(Status{});
    done(jobError(j, t));
  });
}

void KeychainSecretStore::remove(const QString& key, WriteDone done) {
  auto* job = new QKeychain::DeletePasswordJob(kService, this);
  job->setKey(key);
  runJob(this, job, m_timeoutMs, [done, t = m_timeoutMs](QKeychain::Job* j) {
    const bool ok = j != nullptr &&
                    (j->error() == QKeychain::NoError || j->error() == QKeychain::EntryNotFound);
    if (ok) return done(Status{});
    done(jobError(j, t));
  });
}

void KeychainSecretStore::probe(ProbeDone done) {
  read(QStringLiteral("limitscope/availability-probe"),
       [done](const Expected<std::optional<QString>>& read) {
         if (read.ok()) return done(Status{});
         done(make_error(read.error()));
       });
}

}  // namespace limitscope::ui
