// Verifies the Redis key browser dock against a real redis-server (offscreen): it lists the
// seeded limiter keys with profile, level and TTL, selecting a key shows its raw fields, a key
// of the wrong type and a key that vanished say so, the SCAN MATCH filter narrows the list,
// a killed server is an error that keeps the last list; and it saves screenshots of the
// browser and the connection dialog, light and dark, for review.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>

#include "core/redis/connection.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "ui/connections/connection_dialog.h"
#include "ui/connections/saved_connections.h"
#include "ui/connections/secret_store.h"
#include "ui/key_browser/key_browser_dock.h"
#include "ui/key_browser/key_browser_model.h"
#include "ui/theme.h"

namespace limitscope::ui {
namespace {

constexpr int kWaitMs = 20'000;  // an upper bound for a condition, not a sleep

bool waitFor(QSignalSpy& spy) {
  return spy.count() > 0 || spy.wait(kWaitMs);
}

struct Seeded {
  std::unique_ptr<test::RedisServer> server;
  QString url;
};

Seeded seededServer() {
  Seeded s;
  s.server = test::RedisServer::start();
  auto c = redis::Connection::open(s.server->redis_url());
  EXPECT_TRUE(c.ok());
  const auto now_ms = *c->command({"TIME"})->as_time_us() / 1000;
  const std::string now = std::to_string(now_ms);
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"HSET", "rl:alice", "tokens", "0.17499999999999447", "ts", now},
           {"PEXPIRE", "rl:alice", "60000"},
           {"HSET", "rl:bob", "tokens", "42", "ts", now},
           {"HSET", "rate_limit:token_bucket:carol", "tokens", "7.5", "last_update",
            "1700000000.25"},
           {"SET", "rl:wrong-type", "a string where a hash belongs"},
           {"HSET", "rl:doomed", "tokens", "1", "ts", now},
           {"SET", "session:123", "not a limiter key"}}) {
    EXPECT_TRUE(c->command(cmd).ok());
  }
  s.url = QString::fromStdString(s.server->url());
  return s;
}

int rawRow(QTableWidget* raw, const QString& field) {
  for (int r = 0; r < raw->rowCount(); ++r) {
    if (raw->item(r, 0) != nullptr && raw->item(r, 0)->text() == field) return r;
  }
  return -1;
}

TEST(KeyBrowser, ListsSeededKeysAndShowsRawFields) {
  test::ensure_qt_app();
  Seeded s = seededServer();
  KeyBrowserDock dock;
  dock.resize(900, 600);
  QSignalSpy listed(&dock, &KeyBrowserDock::listingShown);
  dock.setTarget(s.url, QString());
  ASSERT_TRUE(waitFor(listed));
  KeyBrowserModel* m = dock.model();
  ASSERT_EQ(m->rowCount(),
            5);  // rl:* (4) and rate_limit:token_bucket:carol; session:123 is not one
  EXPECT_TRUE(dock.statusText().contains(QStringLiteral("5 limiter keys")))
      << dock.statusText().toStdString();
  EXPECT_TRUE(dock.statusText().contains(QStringLiteral("1 other")))
      << dock.statusText().toStdString();
  const int alice = m->findRow(QStringLiteral("rl:alice"));
  ASSERT_GE(alice, 0);
  EXPECT_EQ(m->index(alice, KeyBrowserModel::Profile).data().toString(), QStringLiteral("rl-hash"));
  EXPECT_EQ(m->index(alice, KeyBrowserModel::Kind).data().toString(),
            QStringLiteral("token_bucket_hash"));
  EXPECT_TRUE(
      m->index(alice, KeyBrowserModel::Ttl).data().toString().endsWith(QStringLiteral(" s")));
  EXPECT_TRUE(
      m->index(alice, KeyBrowserModel::Level).data().toString().contains(QStringLiteral("0.17")));
  const int wrong = m->findRow(QStringLiteral("rl:wrong-type"));
  ASSERT_GE(wrong, 0);
  EXPECT_TRUE(m->index(wrong, KeyBrowserModel::Problem)
                  .data()
                  .toString()
                  .contains(QStringLiteral("wrong type")));

  QSignalSpy raw(&dock, &KeyBrowserDock::rawShown);
  ASSERT_TRUE(dock.selectKey(QStringLiteral("rl:alice")));
  ASSERT_TRUE(waitFor(raw));
  const int tokens = rawRow(dock.rawView(), QStringLiteral("tokens"));
  ASSERT_GE(tokens, 0);
  EXPECT_EQ(dock.rawView()->item(tokens, 1)->text(), QStringLiteral("0.17499999999999447"));
  EXPECT_GE(rawRow(dock.rawView(), QStringLiteral("ts")), 0);
  EXPECT_TRUE(dock.rawStatusText().contains(QStringLiteral("hash · 2 entries")))
      << dock.rawStatusText().toStdString();
  EXPECT_TRUE(dock.rawStatusText().contains(QStringLiteral("memory")))
      << dock.rawStatusText().toStdString();

  raw.clear();
  ASSERT_TRUE(dock.selectKey(QStringLiteral("rl:wrong-type")));
  ASSERT_TRUE(waitFor(raw));
  EXPECT_TRUE(dock.rawStatusText().contains(QStringLiteral(
      "wrong type: profile rl-hash (token_bucket_hash) reads a hash, the key holds a string")))
      << dock.rawStatusText().toStdString();
  EXPECT_EQ(rawRow(dock.rawView(), QStringLiteral("value")), 0);

  // Deleted after the listing: selecting it says so.
  {
    auto c = redis::Connection::open(s.server->redis_url());
    ASSERT_TRUE(c->command({"DEL", "rl:doomed"}).ok());
  }
  raw.clear();
  ASSERT_TRUE(dock.selectKey(QStringLiteral("rl:doomed")));
  ASSERT_TRUE(waitFor(raw));
  EXPECT_TRUE(dock.rawStatusText().contains(QStringLiteral("no longer exists")))
      << dock.rawStatusText().toStdString();

  // The filter narrows discovery server-side.
  listed.clear();
  dock.setMatch(QStringLiteral("rate_limit:*"));
  ASSERT_TRUE(waitFor(listed));
  ASSERT_EQ(m->rowCount(), 1);
  EXPECT_EQ(m->index(0, KeyBrowserModel::Key).data().toString(),
            QStringLiteral("rate_limit:token_bucket:carol"));

  // Server gone: an error, and the last list stays.
  QSignalSpy failed(&dock, &KeyBrowserDock::failureShown);
  s.server->kill();
  dock.refresh();
  ASSERT_TRUE(waitFor(failed));
  EXPECT_EQ(m->rowCount(), 1);
  EXPECT_TRUE(dock.statusText().contains(QStringLiteral("error")))
      << dock.statusText().toStdString();
}

TEST(KeyBrowser, ABadUrlIsAConfigError) {
  test::ensure_qt_app();
  KeyBrowserDock dock;
  QSignalSpy failed(&dock, &KeyBrowserDock::failureShown);
  dock.setTarget(QStringLiteral("localhost:6379"), QString());
  ASSERT_TRUE(waitFor(failed));
  EXPECT_EQ(failed.at(0).at(0).toString(), QStringLiteral("config"));
  EXPECT_TRUE(dock.statusText().contains(QStringLiteral("expected redis://")))
      << dock.statusText().toStdString();
}

// A keychain that is not there, as on this headless machine, answering at once.
class NoKeychain final : public SecretStore {
 public:
  void read(const QString&, ReadDone done) override { done(make_error("D-Bus is not running")); }
  void write(const QString&, const QString&, WriteDone done) override {
    done(make_error("D-Bus is not running"));
  }
  void remove(const QString&, WriteDone done) override { done(Status{}); }
  void probe(ProbeDone done) override { done(make_error("D-Bus is not running")); }
  QString name() const override { return QStringLiteral("system keychain"); }
};

TEST(KeyBrowser, ScreenshotsLightAndDark) {
  test::ensure_qt_app();
  QTemporaryDir config;
  qputenv("XDG_CONFIG_HOME", config.path().toLocal8Bit());
  Seeded s = seededServer();
  const QString out = QStringLiteral(LIMITSCOPE_BINARY_DIR) + QStringLiteral("/screenshots");
  QDir().mkpath(out);
  for (const bool dark : {false, true}) {
    applyPalette(dark);
    const QString suffix = dark ? QStringLiteral("dark") : QStringLiteral("light");
    KeyBrowserDock dock;
    dock.resize(900, 560);
    QSignalSpy listed(&dock, &KeyBrowserDock::listingShown);
    dock.setTarget(s.url, QString());
    ASSERT_TRUE(waitFor(listed));
    QSignalSpy raw(&dock, &KeyBrowserDock::rawShown);
    ASSERT_TRUE(dock.selectKey(QStringLiteral("rl:alice")));
    ASSERT_TRUE(waitFor(raw));
    dock.show();
    QCoreApplication::processEvents();  // layouts settle in posted events
    const QImage browser = dock.grab().toImage();
    ASSERT_FALSE(browser.isNull());
    EXPECT_TRUE(
        browser.save(out + QStringLiteral("/key-browser-") + suffix + QStringLiteral(".png")));

    NoKeychain secrets;
    SavedConnections saved;
    ConnectionDialog dialog(&saved, &secrets);
    dialog.findChild<QLineEdit*>(QStringLiteral("name"))->setText(QStringLiteral("prod"));
    auto* url = dialog.findChild<QLineEdit*>(QStringLiteral("url"));
    url->setText(QStringLiteral("redis://ops:typed@127.0.0.1:%1/0").arg(s.server->port()));
    emit url->editingFinished();
    dialog.findChild<QLineEdit*>(QStringLiteral("scanMatch"))->setText(QStringLiteral("rl:*"));
    QSignalSpy tested(&dialog, &ConnectionDialog::tested);
    dialog.findChild<QLineEdit*>(QStringLiteral("secret"))->clear();
    dialog.findChild<QLineEdit*>(QStringLiteral("user"))->clear();
    dialog.findChild<QComboBox*>(QStringLiteral("secretStorage"))
        ->setCurrentIndex(0);  // this server has none
    QSignalSpy savedSpy(&dialog, &ConnectionDialog::saved);
    dialog.save();
    ASSERT_TRUE(waitFor(savedSpy));
    EXPECT_EQ(savedSpy.at(0).at(1).value<Status>(), Status{});
    dialog.testConnection();
    ASSERT_TRUE(waitFor(tested));
    EXPECT_TRUE(tested.at(0).at(0).toBool()) << tested.at(0).at(2).toString().toStdString();
    dialog.show();
    QCoreApplication::processEvents();
    const QImage form = dialog.grab().toImage();
    ASSERT_FALSE(form.isNull());
    EXPECT_TRUE(
        form.save(out + QStringLiteral("/connection-dialog-") + suffix + QStringLiteral(".png")));
  }
  applyPalette(false);
}

}  // namespace
}  // namespace limitscope::ui
