// Verifies the connection manager (offscreen, temp XDG_CONFIG_HOME): the dialog saves and
// reloads a connection with its password in the secret store and never in connections.json,
// offers an environment variable when the keychain is unavailable, tests a real redis-server
// (ok with figures; a wrong password is an auth error; a server that stalls past the shared
// Redis timeout is a timeout), keeps a bad connections.json as it is, reports a keychain entry
// it could not remove,
// the system keychain without a service refuses and writes no file, and File ▸ Recent
// connections opens a saved Redis or /metrics connection in the main window.
#include "ui/connections/connection_dialog.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <map>

#include "core/redis/client_options.h"
#include "core/redis/connection.h"
#include "support/canned_http_server.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "support/refusals.h"
#include "ui/connections/connection_actions.h"
#include "ui/connections/saved_connections.h"
#include "ui/connections/secret_store.h"
#include "ui/key_browser/key_browser_dock.h"
#include "ui/key_browser/key_browser_model.h"
#include "ui/main_window.h"

namespace limitscope::ui {
namespace {

constexpr int kWaitMs = 20'000;  // an upper bound for a condition, not a sleep

// A secret store in memory, answering asynchronously as the keychain does; `available` false
// plays a machine with no keychain service.
class MemorySecretStore final : public SecretStore {
 public:
  explicit MemorySecretStore(bool available) : m_available(available) {}
  void read(const QString& key, ReadDone done) override {
    QTimer::singleShot(0, this, [this, key, done] {
      if (!m_available) return done(make_error("no keychain service is available (test)"));
      const auto it = entries.find(key);
      done(it == entries.end() ? std::optional<QString>() : std::optional<QString>(it->second));
    });
  }
  void write(const QString& key, const QString& secret, WriteDone done) override {
    QTimer::singleShot(0, this, [this, key, secret, done] {
      if (!m_available) return done(make_error("no keychain service is available (test)"));
      entries[key] = secret;
      done(Status{});
    });
  }
  void remove(const QString& key, WriteDone done) override {
    QTimer::singleShot(0, this, [this, key, done] {
      if (refuse_removal) return done(make_error("the entry is locked (test)"));
      entries.erase(key);
      done(Status{});
    });
  }
  void probe(ProbeDone done) override {
    QTimer::singleShot(0, this, [this, done] {
      if (!m_available) return done(make_error("D-Bus is not running (test)"));
      done(Status{});
    });
  }
  QString name() const override { return QStringLiteral("test keychain"); }

  std::map<QString, QString> entries;
  bool refuse_removal = false;  ///< remove() fails, as a locked keychain entry would

 private:
  bool m_available;
};

// A private config directory for one test: set before any object reads it.
class TempConfig {
 public:
  TempConfig() {
    test::ensure_qt_app();
    qputenv("XDG_CONFIG_HOME", m_dir.path().toLocal8Bit());
  }
  QString file() const { return m_dir.path() + QStringLiteral("/limitscope/connections.json"); }
  QString path() const { return m_dir.path(); }

 private:
  QTemporaryDir m_dir;
};

// The signal already came, or comes within the bound.
bool waitFor(QSignalSpy& spy) {
  return spy.count() > 0 || spy.wait(kWaitMs);
}

// Saves what the dialog holds and returns how the save went (its `saved` signal's Status), or
// an error when no answer came within the bound.
Status saveAndWait(ConnectionDialog& d) {
  QSignalSpy saved(&d, &ConnectionDialog::saved);
  d.save();
  if (!waitFor(saved)) return Error{"the dialog did not answer the save"};
  return saved.at(0).at(1).value<Status>();
}

QString readFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

template <class W>
W* child(QWidget* parent, const char* name) {
  W* w = parent->findChild<W*>(QString::fromLatin1(name));
  EXPECT_NE(w, nullptr) << name;
  return w;
}

void typeUrl(ConnectionDialog& d, const QString& url) {
  auto* e = child<QLineEdit>(&d, "url");
  e->setText(url);
  emit e->editingFinished();
}

// A dialog over a private config folder, a memory keychain that is there or not, and the saved
// connections (read from that folder).
struct DialogUnderTest {
  explicit DialogUnderTest(bool keychain) : secrets(keychain), d(&saved, &secrets) {}
  TempConfig config;
  MemorySecretStore secrets;
  SavedConnections saved;
  ConnectionDialog d;
};

// Waits for the dialog's keychain check (started when it opens) and expects its answer.
void expectKeychainCheck(ConnectionDialog& d, bool available) {
  QSignalSpy checked(&d, &ConnectionDialog::keychainChecked);
  ASSERT_TRUE(checked.wait(kWaitMs));
  EXPECT_EQ(checked.at(0).at(0).toBool(), available);
}

TEST(ConnectionDialog, SavesAndReloadsAConnectionWithThePasswordOnlyInTheKeychain) {
  DialogUnderTest t(true);
  auto& [config, secrets, saved, d] = t;
  ASSERT_NO_FATAL_FAILURE(expectKeychainCheck(d, true));

  child<QLineEdit>(&d, "name")->setText(QStringLiteral("prod"));
  typeUrl(d, QStringLiteral("redis://ops:Sup3r-S3cret@10.0.0.5:6380/2"));
  // Taken out of the URL at once, into the keychain choice.
  EXPECT_EQ(child<QLineEdit>(&d, "url")->text(), QStringLiteral("redis://10.0.0.5:6380/2"));
  EXPECT_EQ(child<QLineEdit>(&d, "user")->text(), QStringLiteral("ops"));
  EXPECT_EQ(child<QComboBox>(&d, "secretStorage")->currentIndex(), 1);
  EXPECT_TRUE(child<QLabel>(&d, "urlNote")->text().contains(QStringLiteral("keychain")));
  child<QLineEdit>(&d, "profiles")->setText(QStringLiteral("/etc/limitscope/profiles.json"));
  child<QLineEdit>(&d, "scanMatch")->setText(QStringLiteral("rl:*"));

  ASSERT_EQ(saveAndWait(d), Status{});
  EXPECT_EQ(secrets.entries[QStringLiteral("connection/prod")], QStringLiteral("Sup3r-S3cret"));
  const QString text = readFile(config.file());
  ASSERT_FALSE(text.isEmpty());
  EXPECT_FALSE(text.contains(QStringLiteral("Sup3r-S3cret"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("\"secret\":\"keychain\""))) << text.toStdString();

  // Reloaded from the file by a new store and a new dialog.
  SavedConnections again;
  ASSERT_TRUE(again.loadError().isEmpty()) << again.loadError().toStdString();
  ASSERT_EQ(again.document().connections.size(), 1u);
  const auto& c = again.document().connections.front();
  EXPECT_EQ(c.name, "prod");
  EXPECT_EQ(c.url, "redis://10.0.0.5:6380/2");
  EXPECT_EQ(c.user, "ops");
  EXPECT_EQ(c.profiles, "/etc/limitscope/profiles.json");
  EXPECT_EQ(c.scan_match, "rl:*");
  ConnectionDialog shown(&again, &secrets);
  ASSERT_TRUE(shown.selectConnection(QStringLiteral("prod")));
  EXPECT_EQ(child<QLineEdit>(&shown, "url")->text(), QStringLiteral("redis://10.0.0.5:6380/2"));
  EXPECT_EQ(child<QLineEdit>(&shown, "scanMatch")->text(), QStringLiteral("rl:*"));
  EXPECT_TRUE(child<QLineEdit>(&shown, "secret")->text().isEmpty());  // never shown back

  // Renamed without the password typed again: refused (entries are kept by name).
  child<QLineEdit>(&shown, "name")->setText(QStringLiteral("prod-2"));
  test::expect_refused(saveAndWait(shown), "type the password");
}

// The file is saved first; a keychain entry the connection no longer uses is removed after,
// and when the keychain refuses, the dialog says the password stayed behind there.
TEST(ConnectionDialog, APasswordTheKeychainCannotRemoveIsReported) {
  DialogUnderTest t(true);
  auto& [config, secrets, saved, d] = t;
  ASSERT_NO_FATAL_FAILURE(expectKeychainCheck(d, true));
  child<QLineEdit>(&d, "name")->setText(QStringLiteral("prod"));
  typeUrl(d, QStringLiteral("redis://:Sup3r-S3cret@10.0.0.5:6380/2"));
  ASSERT_EQ(saveAndWait(d), Status{});
  ASSERT_EQ(secrets.entries.count(QStringLiteral("connection/prod")), 1u);

  // Moved to an environment variable while the keychain refuses to remove the old entry.
  secrets.refuse_removal = true;
  child<QComboBox>(&d, "secretStorage")->setCurrentIndex(2);
  child<QLineEdit>(&d, "secretEnv")->setText(QStringLiteral("PROD_PW"));
  EXPECT_EQ(saveAndWait(d), Status{}) << "the file is saved all the same";
  EXPECT_TRUE(readFile(config.file()).contains(QStringLiteral("\"password_env\":\"PROD_PW\"")));
  auto* result = child<QLabel>(&d, "testResult");
  EXPECT_TRUE(QTest::qWaitFor(
      [&] { return result->text().contains(QStringLiteral("could not be removed")); }, kWaitMs))
      << result->text().toStdString();
  EXPECT_TRUE(result->text().contains(QStringLiteral("the entry is locked (test)")))
      << result->text().toStdString();
  EXPECT_EQ(secrets.entries.count(QStringLiteral("connection/prod")), 1u);
}

TEST(ConnectionDialog, WithoutAKeychainItOffersAnEnvironmentVariable) {
  DialogUnderTest t(false);
  auto& [config, secrets, saved, d] = t;
  ASSERT_NO_FATAL_FAILURE(expectKeychainCheck(d, false));
  auto* storage = child<QComboBox>(&d, "secretStorage");
  auto* model = qobject_cast<QStandardItemModel*>(storage->model());
  ASSERT_NE(model, nullptr);
  EXPECT_FALSE(model->item(1)->isEnabled());  // the keychain choice
  const QString status = child<QLabel>(&d, "keychainStatus")->text();
  EXPECT_TRUE(status.contains(QStringLiteral("System keychain unavailable")))
      << status.toStdString();
  EXPECT_TRUE(status.contains(QStringLiteral("environment variable"))) << status.toStdString();

  child<QLineEdit>(&d, "name")->setText(QStringLiteral("edge"));
  typeUrl(d, QStringLiteral("redis://:typed-pw@127.0.0.1:6379"));
  EXPECT_EQ(storage->currentIndex(), 2);
  EXPECT_EQ(child<QLineEdit>(&d, "secretEnv")->text(), QStringLiteral("LIMITSCOPE_EDGE_PASSWORD"));
  EXPECT_TRUE(child<QLabel>(&d, "urlNote")
                  ->text()
                  .contains(QStringLiteral("export LIMITSCOPE_EDGE_PASSWORD")));

  EXPECT_EQ(saveAndWait(d), Status{});
  const QString text = readFile(config.file());
  EXPECT_FALSE(text.contains(QStringLiteral("typed-pw"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("\"password_env\":\"LIMITSCOPE_EDGE_PASSWORD\"")))
      << text.toStdString();
  EXPECT_TRUE(secrets.entries.empty());
}

TEST(ConnectionDialog, TestConnectionAgainstARealRedis) {
  TempConfig config;
  test::RedisServer::Options options;
  options.requirepass = "right-pw";
  auto server = test::RedisServer::start(options);
  redis::RedisUrl admin;
  admin.port = server->port();
  admin.password = "right-pw";
  auto c = redis::Connection::open(admin);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->command({"HSET", "rl:alice", "tokens", "12.5", "ts", "1"}).ok());
  ASSERT_TRUE(c->command({"HSET", "rl:bob", "tokens", "3", "ts", "1"}).ok());
  ASSERT_TRUE(c->command({"SET", "unrelated", "1"}).ok());

  MemorySecretStore secrets(false);
  SavedConnections saved;
  ConnectionDialog d(&saved, &secrets);
  child<QLineEdit>(&d, "name")->setText(QStringLiteral("local"));
  child<QLineEdit>(&d, "url")->setText(
      QStringLiteral("redis://127.0.0.1:%1/0").arg(server->port()));
  child<QComboBox>(&d, "secretStorage")->setCurrentIndex(2);
  child<QLineEdit>(&d, "secretEnv")->setText(QStringLiteral("LS_TEST_REDIS_PW"));

  qputenv("LS_TEST_REDIS_PW", "right-pw");
  QSignalSpy tested(&d, &ConnectionDialog::tested);
  d.testConnection();
  ASSERT_TRUE(tested.wait(kWaitMs));
  EXPECT_TRUE(tested.at(0).at(0).toBool()) << tested.at(0).at(2).toString().toStdString();
  const QString ok = child<QLabel>(&d, "testResult")->text();
  EXPECT_TRUE(ok.contains(QStringLiteral("OK"))) << ok.toStdString();
  EXPECT_TRUE(ok.contains(QStringLiteral("2 limiter keys, 1 other"))) << ok.toStdString();
  EXPECT_TRUE(ok.contains(QStringLiteral("PING"))) << ok.toStdString();

  qputenv("LS_TEST_REDIS_PW", "wrong-pw");
  tested.clear();
  d.testConnection();
  ASSERT_TRUE(tested.wait(kWaitMs));
  EXPECT_FALSE(tested.at(0).at(0).toBool());
  EXPECT_EQ(tested.at(0).at(1).toString(), QStringLiteral("auth"))
      << tested.at(0).at(2).toString().toStdString();
  const QString bad = child<QLabel>(&d, "testResult")->text();
  EXPECT_TRUE(bad.startsWith(QStringLiteral("✘ auth:"))) << bad.toStdString();
  EXPECT_FALSE(bad.contains(QStringLiteral("wrong-pw"))) << bad.toStdString();

  qunsetenv("LS_TEST_REDIS_PW");
  tested.clear();
  d.testConnection();
  ASSERT_TRUE(waitFor(tested));
  EXPECT_EQ(tested.at(0).at(1).toString(), QStringLiteral("secret"));
  EXPECT_TRUE(
      tested.at(0).at(2).toString().contains(QStringLiteral("LS_TEST_REDIS_PW is not set")));

  // A password typed into the form is used for this test only.
  child<QLineEdit>(&d, "secret")->setText(QStringLiteral("right-pw"));
  tested.clear();
  d.testConnection();
  ASSERT_TRUE(tested.wait(kWaitMs));
  EXPECT_TRUE(tested.at(0).at(0).toBool()) << tested.at(0).at(2).toString().toStdString();
}

// Test connection waits on Redis as long as the shared Redis options say (500 ms), as opening
// the connection would, not a timeout of its own (it was 3 s): a server that holds every client
// for 2 s fails the test as a timeout, where 3 s would have outwaited the pause and said OK.
TEST(ConnectionDialog, TestConnectionWaitsAsLongAsTheSharedRedisTimeout) {
  TempConfig config;
  auto server = test::RedisServer::start();
  ASSERT_LT(redis::kDefaultTimeout, std::chrono::milliseconds(2000));
  MemorySecretStore secrets(false);
  SavedConnections saved;
  ConnectionDialog d(&saved, &secrets);
  child<QLineEdit>(&d, "name")->setText(QStringLiteral("paused"));
  child<QLineEdit>(&d, "url")->setText(
      QStringLiteral("redis://127.0.0.1:%1/0").arg(server->port()));
  auto c = redis::Connection::open(server->redis_url());
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->command({"CLIENT", "PAUSE", "2000", "ALL"}).ok());
  QSignalSpy tested(&d, &ConnectionDialog::tested);
  d.testConnection();
  ASSERT_TRUE(tested.wait(kWaitMs));
  EXPECT_FALSE(tested.at(0).at(0).toBool()) << tested.at(0).at(2).toString().toStdString();
  EXPECT_EQ(tested.at(0).at(1).toString(), QStringLiteral("timeout"))
      << tested.at(0).at(2).toString().toStdString();
}

TEST(ConnectionDialog, ABadConnectionsFileIsReportedAndKept) {
  TempConfig config;
  QDir().mkpath(config.path() + QStringLiteral("/limitscope"));
  const QByteArray broken =
      "{\n  \"connections\": [\n    {\"name\": \"prod\", \"kind\": \"redsi\", \"url\": "
      "\"redis://h\"}\n  ]\n}\n";
  {
    QFile f(config.file());
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(broken);
  }
  MemorySecretStore secrets(true);
  SavedConnections saved;
  EXPECT_TRUE(
      saved.loadError().startsWith(config.file() + QStringLiteral(":3: connections[0].kind")))
      << saved.loadError().toStdString();
  ConnectionDialog d(&saved, &secrets);
  const QString shown = child<QLabel>(&d, "fileError")->text();
  EXPECT_TRUE(shown.contains(config.file() + QStringLiteral(":3:"))) << shown.toStdString();
  EXPECT_TRUE(shown.contains(QStringLiteral("left as it is"))) << shown.toStdString();
  EXPECT_FALSE(child<QPushButton>(&d, "saveButton")->isEnabled());

  child<QLineEdit>(&d, "name")->setText(QStringLiteral("other"));
  child<QLineEdit>(&d, "url")->setText(QStringLiteral("redis://127.0.0.1:6379"));
  test::expect_refused(saveAndWait(d), "left as it is");
  QFile f(config.file());
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_EQ(f.readAll(), broken);
}

TEST(KeychainSecretStore, WithoutAServiceItRefusesAndWritesNoFile) {
  TempConfig config;
  const QByteArray home = qgetenv("HOME");
  qputenv("HOME", config.path().toLocal8Bit());
  qunsetenv("DBUS_SESSION_BUS_ADDRESS");  // a headless server: no session bus
  KeychainSecretStore store(nullptr, 5000);
  std::optional<Status> written;  // unset until the store answers
  store.write(QStringLiteral("connection/headless-test"), QStringLiteral("PlainTextCanary"),
              [&](const Status& s) { written = s; });
  for (int i = 0; i < 200 && !written; ++i) QTest::qWait(50);
  ASSERT_TRUE(written.has_value()) << "the keychain store must answer (timeout included)";
  if (written->ok()) {
    // A keychain service is reachable after all: the secret is there and nowhere else.
    std::optional<Expected<std::optional<QString>>> back;
    store.read(QStringLiteral("connection/headless-test"),
               [&](const Expected<std::optional<QString>>& s) { back = s; });
    for (int i = 0; i < 200 && !back; ++i) QTest::qWait(50);
    ASSERT_TRUE(back.has_value());
    ASSERT_TRUE(back->ok()) << back->error();
    EXPECT_EQ(back->value().value_or(QString()), QStringLiteral("PlainTextCanary"));
    store.remove(QStringLiteral("connection/headless-test"), [](const Status&) {});
  } else {
    EXPECT_FALSE(written->error().empty());
  }
  // No plain-text fallback: no file under the temp home or config holds the secret.
  QDirIterator it(config.path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    EXPECT_FALSE(readFile(f).contains(QStringLiteral("PlainTextCanary"))) << f.toStdString();
  }
  qputenv("HOME", home);
}

TEST(ConnectionActions, RecentConnectionsOpenASavedRedisInTheWindow) {
  TempConfig config;
  auto server = test::RedisServer::start();
  auto c = redis::Connection::open(server->redis_url());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->command({"HSET", "rl:alice", "tokens", "12.5", "ts", "1"}).ok());
  {
    QDir().mkpath(config.path() + QStringLiteral("/limitscope"));
    QFile f(config.file());
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral(R"({"version": 1, "connections": [
      {"name": "local", "kind": "redis", "url": "redis://127.0.0.1:%1/0", "scan_match": "rl:*"}], "recent": []})")
                .arg(server->port())
                .toUtf8());
  }
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  ConnectionActions* actions = window.connections();
  ASSERT_NE(actions, nullptr);
  EXPECT_EQ(actions->connectAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_K));
  ASSERT_TRUE(actions->saved()->loadError().isEmpty())
      << actions->saved()->loadError().toStdString();

  QSignalSpy opened(&window, &MainWindow::liveOpened);
  QSignalSpy listed(window.keyBrowser(), &KeyBrowserDock::listingShown);
  actions->openSaved(QStringLiteral("local"));
  ASSERT_TRUE(opened.wait(kWaitMs));
  EXPECT_EQ(opened.at(0).at(1).value<Status>(), Status{});
  ASSERT_TRUE(waitFor(listed));
  EXPECT_EQ(window.keyBrowser()->model()->rowCount(), 1);

  // The recent list now names it, in the file and in the menu.
  EXPECT_EQ(actions->saved()->document().recent, std::vector<std::string>{"local"});
  EXPECT_TRUE(readFile(config.file()).contains(QStringLiteral("\"recent\": [\"local\"]")));
  emit actions->recentMenu()->aboutToShow();
  ASSERT_FALSE(actions->recentMenu()->actions().isEmpty());
  EXPECT_TRUE(actions->recentMenu()->actions().front()->text().startsWith(QStringLiteral("local")));
}

TEST(ConnectionActions, OpensSavedMetricsConnectionsWithAndWithoutAuth) {
  TempConfig config;
  test::CannedHttpServer gateway;
  gateway.respond({200, "text/plain; version=0.0.4",
                   "# TYPE gateway_rate_limit_hits_total counter\n"
                   "gateway_rate_limit_hits_total{tier=\"free\",model=\"gpt-4.1\"} 3\n"});
  {
    QDir().mkpath(config.path() + QStringLiteral("/limitscope"));
    QFile f(config.file());
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral(R"({"connections": [
      {"name": "gw", "kind": "metrics", "url": "%1"},
      {"name": "gw-auth", "kind": "metrics", "url": "%1", "auth": "bearer", "secret": "env", "token_env": "LS_TEST_GW_TOKEN",
       "scrape_interval": "2s"}]})")
                .arg(QString::fromStdString(gateway.url()))
                .toUtf8());
  }
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  ConnectionActions* actions = window.connections();
  QSignalSpy live(&window, &MainWindow::liveOpened);
  QSignalSpy opened(actions, &ConnectionActions::opened);
  actions->openSaved(QStringLiteral("gw"));
  ASSERT_TRUE(waitFor(live));
  EXPECT_FALSE(live.at(0).at(0).toString().isEmpty()) << live.at(0).at(1).value<Status>();
  EXPECT_EQ(live.at(0).at(1).value<Status>(), Status{});
  ASSERT_TRUE(waitFor(opened));
  EXPECT_EQ(opened.at(0).at(1).value<Status>(), Status{});
  EXPECT_EQ(actions->saved()->document().recent, std::vector<std::string>{"gw"});

  // With auth the scraper sends the token; the source's name and the title never show it.
  gateway.require_authorization("Bearer t0k-gw-secret");
  qputenv("LS_TEST_GW_TOKEN", "t0k-gw-secret");
  opened.clear();
  live.clear();
  actions->openSaved(QStringLiteral("gw-auth"));
  ASSERT_TRUE(waitFor(opened));
  EXPECT_EQ(opened.at(0).at(1).value<Status>(), Status{});
  ASSERT_TRUE(waitFor(live));
  EXPECT_EQ(live.at(0).at(1).value<Status>(), Status{});
  EXPECT_FALSE(live.at(0).at(0).toString().contains(QStringLiteral("t0k-gw-secret")));
  EXPECT_NE(gateway.last_request().find("Authorization: Bearer t0k-gw-secret"), std::string::npos)
      << gateway.last_request();
  EXPECT_FALSE(window.windowTitle().contains(QStringLiteral("t0k-gw-secret")));
  qunsetenv("LS_TEST_GW_TOKEN");
}

}  // namespace
}  // namespace limitscope::ui
