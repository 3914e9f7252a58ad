#include "ui/connections/connection_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/connections/secret_resolution.h"
#include "core/limiter/rate.h"
#include "ui/connections/background_check.h"
#include "ui/connections/saved_connections.h"
#include "ui/connections/secret_store.h"
#include "ui/qt_text.h"

namespace limitscope::ui {
namespace {

using connections::ConnectionKind;
using connections::HttpAuth;
using connections::SavedConnection;
using connections::SecretStorage;

// Combo indexes follow the enums' order.
int index_of(ConnectionKind k) {
  return static_cast<int>(k);
}
int index_of(HttpAuth a) {
  return static_cast<int>(a);
}
int index_of(SecretStorage s) {
  return static_cast<int>(s);
}

const QString kOkColor = QStringLiteral("#2aa198");
const QString kErrorColor = QStringLiteral("#dc322f");
const QString kWarnColor = QStringLiteral("#b58900");

}  // namespace

ConnectionDialog::ConnectionDialog(SavedConnections* saved, SecretStore* secrets, QWidget* parent)
    : QDialog(parent), m_saved(saved), m_secrets(secrets) {
  setWindowTitle(tr("Connections"));
  setObjectName(QStringLiteral("connectionDialog"));
  buildForm();
  reloadList(QString());
  if (!m_saved->document().connections.empty()) {
    selectConnection(qs(m_saved->document().connections.front().name));
  } else {
    newConnection();
  }
  m_keychainStatus->setText(tr("Checking the system keychain…"));
  QPointer<ConnectionDialog> self(this);
  m_secrets->probe([self](const Status& available) {
    if (self)
      self->applyKeychainState(available.ok(), available.ok() ? QString() : qs(available.error()));
  });
}

void ConnectionDialog::buildForm() {
  auto* root = new QVBoxLayout(this);
  m_fileError = new QLabel(this);
  m_fileError->setObjectName(QStringLiteral("fileError"));
  m_fileError->setWordWrap(true);
  m_fileError->setStyleSheet(QStringLiteral("color: %1").arg(kErrorColor));
  m_fileError->setTextInteractionFlags(Qt::TextSelectableByMouse);
  root->addWidget(m_fileError);

  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  m_list = new QListWidget(left);
  m_list->setObjectName(QStringLiteral("connectionList"));
  connect(m_list, &QListWidget::currentTextChanged, this, [this](const QString& name) {
    if (!name.isEmpty() && name != m_editing) selectConnection(name);
  });
  auto* listButtons = new QHBoxLayout;
  auto* add = new QPushButton(tr("New"), left);
  add->setObjectName(QStringLiteral("newButton"));
  connect(add, &QPushButton::clicked, this, &ConnectionDialog::newConnection);
  m_delete = new QPushButton(tr("Delete"), left);
  m_delete->setObjectName(QStringLiteral("deleteButton"));
  connect(m_delete, &QPushButton::clicked, this, &ConnectionDialog::deleteConnection);
  listButtons->addWidget(add);
  listButtons->addWidget(m_delete);
  leftLayout->addWidget(m_list, 1);
  leftLayout->addLayout(listButtons);

  auto* right = new QWidget(split);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  m_form = new QFormLayout;
  m_form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  const auto line = [this, right](const char* object, const QString& placeholder) {
    auto* e = new QLineEdit(right);
    e->setObjectName(QString::fromLatin1(object));
    e->setPlaceholderText(placeholder);
    return e;
  };
  m_name = line("name", tr("prod-redis"));
  m_kind = new QComboBox(right);
  m_kind->setObjectName(QStringLiteral("kind"));
  m_kind->addItems({tr("Redis (limiter state)"), tr("Gateway /metrics"), tr("Prometheus")});
  connect(m_kind, &QComboBox::currentIndexChanged, this, &ConnectionDialog::updateFieldsForKind);
  m_url = line("url", tr("redis://10.0.0.5:6379/0"));
  connect(m_url, &QLineEdit::editingFinished, this, &ConnectionDialog::takeSecretOutOfUrl);
  m_urlNote = new QLabel(right);
  m_urlNote->setObjectName(QStringLiteral("urlNote"));
  m_urlNote->setWordWrap(true);
  m_urlNote->hide();
  m_user = line("user", tr("ACL user (optional)"));
  m_auth = new QComboBox(right);
  m_auth->setObjectName(QStringLiteral("auth"));
  m_auth->addItems({tr("None"), tr("Basic (user + password)"), tr("Bearer token")});
  connect(m_auth, &QComboBox::currentIndexChanged, this, &ConnectionDialog::updateFieldsForKind);
  m_storage = new QComboBox(right);
  m_storage->setObjectName(QStringLiteral("secretStorage"));
  m_storage->addItems(
      {tr("None (no password)"), tr("System keychain"), tr("Environment variable")});
  connect(m_storage, &QComboBox::currentIndexChanged, this, [this] {
    if (m_storage->currentIndex() == index_of(SecretStorage::env) && m_env->text().isEmpty()) {
      m_env->setText(suggestedEnvName());
    }
    if (m_storage->currentIndex() == index_of(SecretStorage::none))
      m_urlNote->hide();  // nothing to keep
    updateFieldsForKind();
  });
  m_env = line("secretEnv", tr("PROD_REDIS_PW"));
  m_secret = line("secret", QString());
  m_secret->setEchoMode(QLineEdit::Password);
  m_keychainStatus = new QLabel(right);
  m_keychainStatus->setObjectName(QStringLiteral("keychainStatus"));
  m_keychainStatus->setWordWrap(true);
  m_profiles = line("profiles", tr("built-in profiles only"));
  auto* profilesRow = new QWidget(right);
  auto* profilesLayout = new QHBoxLayout(profilesRow);
  profilesLayout->setContentsMargins(0, 0, 0, 0);
  auto* browse = new QToolButton(profilesRow);
  browse->setText(tr("…"));
  browse->setToolTip(tr("Choose a schema profiles file (docs/probe.md)"));
  connect(browse, &QToolButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Schema profiles"), m_profiles->text(),
                                                   tr("JSON files (*.json);;All files (*)"));
    if (!f.isEmpty()) m_profiles->setText(f);
  });
  profilesLayout->addWidget(m_profiles, 1);
  profilesLayout->addWidget(browse);
  m_scanMatch = line("scanMatch", tr("* (every key)"));
  m_interval = line("scrapeInterval", tr("default"));

  m_form->addRow(tr("Name"), m_name);
  m_form->addRow(tr("Kind"), m_kind);
  m_form->addRow(tr("URL"), m_url);
  m_form->addRow(tr("Authentication"), m_auth);
  m_form->addRow(tr("User"), m_user);
  m_form->addRow(tr("Secret kept in"), m_storage);
  m_form->addRow(tr("Variable"), m_env);
  m_form->addRow(tr("Password"), m_secret);
  m_form->addRow(tr("Profiles file"), profilesRow);
  m_form->addRow(tr("Scan match"), m_scanMatch);
  m_form->addRow(tr("Scrape interval"), m_interval);

  auto* testRow = new QHBoxLayout;
  m_test = new QPushButton(tr("Test connection"), right);
  m_test->setObjectName(QStringLiteral("testButton"));
  connect(m_test, &QPushButton::clicked, this, &ConnectionDialog::testConnection);
  m_result = new QLabel(right);
  m_result->setObjectName(QStringLiteral("testResult"));
  m_result->setWordWrap(true);
  m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
  testRow->addWidget(m_test, 0, Qt::AlignTop);
  testRow->addWidget(m_result, 1);
  // Wrapped notes go below the form: a box layout gives them the height their text needs.
  rightLayout->addLayout(m_form);
  rightLayout->addWidget(m_urlNote);
  rightLayout->addWidget(m_keychainStatus);
  rightLayout->addLayout(testRow);
  rightLayout->addStretch(1);

  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  root->addWidget(split, 1);

  auto* buttons = new QDialogButtonBox(this);
  m_save = buttons->addButton(tr("Save"), QDialogButtonBox::ApplyRole);
  m_save->setObjectName(QStringLiteral("saveButton"));
  m_connect = buttons->addButton(tr("Connect"), QDialogButtonBox::AcceptRole);
  m_connect->setObjectName(QStringLiteral("connectButton"));
  m_connect->setDefault(true);
  buttons->addButton(QDialogButtonBox::Close);
  connect(m_save, &QPushButton::clicked, this, &ConnectionDialog::save);
  connect(m_connect, &QPushButton::clicked, this, [this] {
    const SavedConnection c = formConnection();
    const Status valid = connections::validate(c);
    if (!valid.ok()) {
      setResult(false, qs(valid.error()));
      return;
    }
    emit connectRequested(c, m_secret->text());
    accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  root->addWidget(buttons);

  if (!m_saved->loadError().isEmpty()) {
    m_fileError->setText(
        tr("%1\nThe file is left as it is: fix it (or move it away) and open this dialog again. "
           "Saving is off until then; Test connection and Connect still work.")
            .arg(m_saved->loadError()));
    m_save->setEnabled(false);
    m_delete->setEnabled(false);
  } else {
    m_fileError->hide();
  }
  resize(860, 560);
}

void ConnectionDialog::applyKeychainState(bool available, const QString& reason) {
  m_keychainAvailable = available;
  m_keychainReason = reason;
  if (auto* model = qobject_cast<QStandardItemModel*>(m_storage->model())) {
    if (QStandardItem* item = model->item(index_of(SecretStorage::keychain)))
      item->setEnabled(available);
  }
  if (!available && m_storage->currentIndex() == index_of(SecretStorage::keychain)) {
    m_storage->setCurrentIndex(index_of(SecretStorage::env));
  }
  updateFieldsForKind();
  emit keychainChecked(available, reason);
}

void ConnectionDialog::reloadList(const QString& select) {
  const QSignalBlocker block(m_list);
  m_list->clear();
  for (const SavedConnection& c : m_saved->document().connections) m_list->addItem(qs(c.name));
  const auto found = m_list->findItems(select, Qt::MatchExactly);
  if (!found.isEmpty()) m_list->setCurrentItem(found.front());
}

bool ConnectionDialog::selectConnection(const QString& name) {
  const SavedConnection* c = m_saved->document().find(name.toStdString());
  if (c == nullptr) return false;
  m_editing = name;
  showConnection(*c);
  reloadList(name);
  return true;
}

void ConnectionDialog::newConnection() {
  m_editing.clear();
  SavedConnection c;
  showConnection(c);
  const QSignalBlocker block(m_list);
  m_list->clearSelection();
  m_list->setCurrentItem(nullptr);
  m_name->setFocus();
}

void ConnectionDialog::showConnection(const SavedConnection& c) {
  m_name->setText(qs(c.name));
  m_kind->setCurrentIndex(index_of(c.kind));
  m_url->setText(qs(c.url));
  m_user->setText(qs(c.user));
  m_auth->setCurrentIndex(index_of(c.auth));
  {
    const QSignalBlocker block(m_storage);
    m_storage->setCurrentIndex(index_of(c.secret));
  }
  m_env->setText(qs(c.secret_env));
  m_secret->clear();
  m_profiles->setText(qs(c.profiles));
  m_scanMatch->setText(qs(c.scan_match));
  m_interval->setText(c.scrape_interval ? qs(format_duration(*c.scrape_interval)) : QString());
  m_urlNote->hide();
  m_result->clear();
  updateFieldsForKind();
}

void ConnectionDialog::updateFieldsForKind() {
  const bool redis = m_kind->currentIndex() == index_of(ConnectionKind::redis);
  const auto auth = static_cast<HttpAuth>(m_auth->currentIndex());
  const auto storage = static_cast<SecretStorage>(m_storage->currentIndex());
  const bool has_secret = redis || auth != HttpAuth::none;
  m_form->setRowVisible(m_auth, !redis);
  m_form->setRowVisible(m_user, redis || auth == HttpAuth::basic);
  m_form->setRowVisible(m_storage, has_secret);
  m_form->setRowVisible(m_env, has_secret && storage == SecretStorage::env);
  m_form->setRowVisible(m_secret, has_secret && storage != SecretStorage::none);
  m_form->setRowVisible(m_profiles->parentWidget(), redis);
  m_form->setRowVisible(m_scanMatch, redis);
  m_form->setRowVisible(m_interval, !redis);
  m_url->setPlaceholderText(redis ? tr("redis://10.0.0.5:6379/0")
                            : m_kind->currentIndex() == index_of(ConnectionKind::metrics)
                                ? tr("http://gateway:8080/metrics")
                                : tr("http://prometheus:9090"));
  m_user->setPlaceholderText(redis ? tr("ACL user (optional)") : tr("basic-auth user"));
  if (auto* label = qobject_cast<QLabel*>(m_form->labelForField(m_secret))) {
    label->setText(auth == HttpAuth::bearer && !redis ? tr("Token") : tr("Password"));
  }
  m_secret->setPlaceholderText(
      storage == SecretStorage::keychain
          ? tr("stored in the keychain on Save (empty: keep the stored one)")
          : tr("optional: used for this session only, never saved"));

  // The keychain line says what the operator needs to know about where the secret goes.
  QString status;
  QString color = kWarnColor;
  if (!m_keychainAvailable) {
    status = tr("Checking the system keychain…");
  } else if (!*m_keychainAvailable) {
    status =
        tr("System keychain unavailable: %1. Secrets are never written to a file: keep the "
           "password in "
           "an environment variable and name it above (export %2=… before starting limitscope).")
            .arg(m_keychainReason, m_env->text().isEmpty() ? suggestedEnvName() : m_env->text());
  } else if (storage == SecretStorage::keychain) {
    status =
        tr("The password is kept in the system keychain (entry \"limitscope / connection/%1\").")
            .arg(m_name->text());
    color = QString();
  }
  m_keychainStatus->setText(status);
  m_keychainStatus->setStyleSheet(color.isEmpty() ? QString()
                                                  : QStringLiteral("color: %1").arg(color));
  m_keychainStatus->setVisible(has_secret && !status.isEmpty());
}

QString ConnectionDialog::suggestedEnvName() const {
  QString base = m_name->text().toUpper();
  for (QChar& ch : base) {
    if (!(ch.isLetterOrNumber() && ch.unicode() < 128)) ch = QLatin1Char('_');
  }
  const bool token = m_kind->currentIndex() != index_of(ConnectionKind::redis) &&
                     m_auth->currentIndex() == index_of(HttpAuth::bearer);
  return QStringLiteral("LIMITSCOPE_") + (base.isEmpty() ? QString() : base + QLatin1Char('_')) +
         (token ? QStringLiteral("TOKEN") : QStringLiteral("PASSWORD"));
}

void ConnectionDialog::takeSecretOutOfUrl() {
  const auto kind = static_cast<ConnectionKind>(m_kind->currentIndex());
  const connections::SplitUrl split =
      connections::take_url_secret(kind, m_url->text().trimmed().toStdString());
  if (!split.secret && !split.user) return;
  m_url->setText(qs(split.url));
  if (split.user) m_user->setText(qs(*split.user));
  if (kind != ConnectionKind::redis && m_auth->currentIndex() == index_of(HttpAuth::none)) {
    m_auth->setCurrentIndex(index_of(HttpAuth::basic));
  }
  if (!split.secret) {
    updateFieldsForKind();
    return;
  }
  m_secret->setText(qs(*split.secret));
  if (m_storage->currentIndex() == index_of(SecretStorage::none)) {
    m_storage->setCurrentIndex(m_keychainAvailable.value_or(false)
                                   ? index_of(SecretStorage::keychain)
                                   : index_of(SecretStorage::env));
  }
  if (m_storage->currentIndex() == index_of(SecretStorage::keychain)) {
    m_urlNote->setText(
        tr("The password was taken out of the URL: Save puts it in the system keychain; "
           "connections.json never holds it."));
  } else {
    if (m_env->text().isEmpty()) m_env->setText(suggestedEnvName());
    m_urlNote->setText(
        tr("The password was taken out of the URL and is used for this session only; "
           "connections.json never holds it. Before the next start: export %1=…")
            .arg(m_env->text()));
  }
  m_urlNote->setStyleSheet(QStringLiteral("color: %1").arg(kWarnColor));
  m_urlNote->show();
  updateFieldsForKind();
}

SavedConnection ConnectionDialog::formConnection() const {
  SavedConnection c;
  c.name = m_name->text().trimmed().toStdString();
  c.kind = static_cast<ConnectionKind>(m_kind->currentIndex());
  // A URL that still holds credentials (typed, then Save without leaving the field) is split
  // here as well: the form never hands a password onwards inside a URL.
  const connections::SplitUrl split =
      connections::take_url_secret(c.kind, m_url->text().trimmed().toStdString());
  c.url = split.url;
  c.user = m_user->text().trimmed().toStdString();
  if (split.user && c.user.empty()) c.user = *split.user;
  const bool redis = c.kind == ConnectionKind::redis;
  c.auth = redis ? HttpAuth::none : static_cast<HttpAuth>(m_auth->currentIndex());
  if (!redis && c.auth != HttpAuth::basic) c.user.clear();
  const bool has_secret = redis || c.auth != HttpAuth::none;
  c.secret =
      has_secret ? static_cast<SecretStorage>(m_storage->currentIndex()) : SecretStorage::none;
  if (c.secret == SecretStorage::env) c.secret_env = m_env->text().trimmed().toStdString();
  if (redis) {
    c.profiles = m_profiles->text().trimmed().toStdString();
    c.scan_match = m_scanMatch->text().trimmed().toStdString();
  } else if (!m_interval->text().trimmed().isEmpty()) {
    if (auto d = parse_duration(m_interval->text().trimmed().toStdString())) c.scrape_interval = *d;
  }
  return c;
}

void ConnectionDialog::setResult(bool ok, const QString& text) {
  m_result->setText(text);
  m_result->setStyleSheet(QStringLiteral("color: %1").arg(ok ? kOkColor : kErrorColor));
}

void ConnectionDialog::save() {
  takeSecretOutOfUrl();
  const SavedConnection c = formConnection();
  const QString name = qs(c.name);
  const auto fail = [this, name](const QString& error) {
    setResult(false, error);
    emit saved(name, failure(error));
  };
  if (!m_interval->text().trimmed().isEmpty()) {
    auto d = parse_duration(m_interval->text().trimmed().toStdString());
    if (!d) return fail(tr("scrape interval: %1").arg(qs(d.error())));
  }
  const Status valid = connections::validate(c);
  if (!valid.ok()) return fail(qs(valid.error()));
  if (name != m_editing && m_saved->document().find(c.name) != nullptr) {
    return fail(tr("a connection named '%1' exists already").arg(name));
  }
  if (c.secret != SecretStorage::keychain) {
    finishSave(c);
    return;
  }
  const QString secret = m_secret->text();
  if (secret.isEmpty()) {
    if (m_editing.isEmpty() || name != m_editing) {
      // Entries are stored under the connection's name: a new or renamed connection needs it typed.
      return fail(tr("type the password: the keychain holds none for '%1' yet").arg(name));
    }
    finishSave(c);  // the stored password stays as it is
    return;
  }
  QPointer<ConnectionDialog> self(this);
  m_save->setEnabled(false);
  m_secrets->write(
      qs(connections::keychain_key(c)), secret, [self, c, fail](const Status& written) {
        if (!self) return;
        self->m_save->setEnabled(true);
        if (!written.ok()) {
          fail(
              tr("not saved: the password could not be stored in the %1 (%2). connections.json was "
                 "not changed; "
                 "choose 'Environment variable' instead.")
                  .arg(self->m_secrets->name(), qs(written.error())));
          return;
        }
        self->m_secret->clear();
        self->finishSave(c);
      });
}

void ConnectionDialog::finishSave(const SavedConnection& c) {
  connections::ConnectionsDocument doc = m_saved->document();
  const QString old = m_editing;
  std::optional<SavedConnection> previous;
  bool replaced = false;
  for (SavedConnection& existing : doc.connections) {
    if (!old.isEmpty() && existing.name == old.toStdString()) {
      previous = existing;
      existing = c;
      replaced = true;
    }
  }
  if (!replaced) doc.connections.push_back(c);
  if (previous && previous->name != c.name) {
    for (std::string& r : doc.recent) {
      if (r == previous->name) r = c.name;
    }
  }
  if (const Status written = m_saved->save(doc); !written.ok()) {
    setResult(false, qs(written.error()));
    emit saved(qs(c.name), written);
    return;
  }
  m_editing = qs(c.name);
  reloadList(m_editing);
  setResult(true, tr("Saved to %1").arg(m_saved->path()));
  // A secret left behind under the old name or in the keychain no longer used is removed.
  if (previous && previous->secret == SecretStorage::keychain &&
      (previous->name != c.name || c.secret != SecretStorage::keychain)) {
    removeSecret(*previous);
  }
  emit saved(m_editing, Status{});
}

void ConnectionDialog::removeSecret(const SavedConnection& c) {
  QPointer<ConnectionDialog> self(this);
  const QString name = qs(c.name);
  m_secrets->remove(qs(connections::keychain_key(c)), [self, name](const Status& removed) {
    if (!self || removed.ok()) return;
    self->m_result->setText(
        tr("%1\nThe password of '%2' could not be removed from the %3 (%4): "
           "remove it there by hand.")
            .arg(self->m_result->text(), name, self->m_secrets->name(), qs(removed.error())));
    self->m_result->setStyleSheet(QStringLiteral("color: %1").arg(kWarnColor));
  });
}

void ConnectionDialog::deleteConnection() {
  if (m_editing.isEmpty()) return;
  connections::ConnectionsDocument doc = m_saved->document();
  const std::string name = m_editing.toStdString();
  const SavedConnection* c = doc.find(name);
  if (c == nullptr) return;
  const SavedConnection gone = *c;
  std::erase_if(doc.connections, [&](const SavedConnection& x) { return x.name == name; });
  std::erase(doc.recent, name);
  if (const Status written = m_saved->save(doc); !written.ok()) {
    setResult(false, qs(written.error()));
    return;
  }
  reloadList(QString());
  if (!doc.connections.empty()) {
    selectConnection(qs(doc.connections.front().name));
  } else {
    newConnection();
  }
  setResult(true, tr("Deleted '%1'").arg(qs(name)));
  if (gone.secret == SecretStorage::keychain) removeSecret(gone);
}

void ConnectionDialog::testConnection() {
  takeSecretOutOfUrl();
  const SavedConnection c = formConnection();
  const auto report = [this](bool ok, const QString& kind, const QString& message) {
    m_test->setEnabled(true);
    setResult(ok, ok ? tr("✔ OK: %1").arg(message) : tr("✘ %1: %2").arg(kind, message));
    emit tested(ok, kind, message);
  };
  const Status valid = connections::validate(c);
  if (!valid.ok()) return report(false, QStringLiteral("config"), qs(valid.error()));
  m_test->setEnabled(false);
  setResult(true, tr("Testing…"));
  m_result->setStyleSheet(QString());

  QPointer<ConnectionDialog> self(this);
  const auto run = [self, report](const SavedConnection& conn,
                                  const std::optional<std::string>& keychain) {
    if (!self) return;
    auto target = connections::resolve_connection(conn, connections::process_env(), keychain);
    if (!target) return report(false, QStringLiteral("secret"), qs(target.error()));
    checkInBackground(*target, self, [report](const connections::CheckResult& r) {
      report(r.ok, qs(r.error_kind), qs(r.message));
    });
  };
  // The password in the form wins, for this test only (connections::plan_secret).
  const connections::SecretPlan plan = connections::plan_secret(c, m_secret->text().toStdString());
  if (!plan.read_keychain) return run(plan.connection, plan.secret);
  m_secrets->read(
      qs(connections::keychain_key(c)),
      [self, c, run, report](const Expected<std::optional<QString>>& secret) {
        if (!self) return;
        if (!secret.ok()) {
          return report(
              false, QStringLiteral("secret"),
              tr("the %1 could not be read: %2").arg(self->m_secrets->name(), qs(secret.error())));
        }
        run(c, *secret ? std::optional<std::string>((*secret)->toStdString()) : std::nullopt);
      });
}

}  // namespace limitscope::ui
