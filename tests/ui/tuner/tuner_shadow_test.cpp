// Verifies the Tuner's "Put in shadow" and "Clear shadow" (issue 19 item 2) against a real
// redis-server: refused while writes are not armed (nothing written); armed, one action stores
// the candidate as the rule's shadow config with an audit entry (who, reason), leaves the live
// config alone, and the status says so; a shadow changed elsewhere since the tab read it is
// refused (compare-and-set) with a clear message and nothing written; Clear removes it, audited.
#include <gtest/gtest.h>

#include <QSignalSpy>

#include "core/redis/connection.h"
#include "core/redis/shadow_config.h"
#include "support/limit_params_builders.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/shadow_panel.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {
namespace {

const redis::KeySchema kSchema;

struct TunerShadow : ::testing::Test {
  void SetUp() override {
    test::ensure_qt_app();
    server = test::RedisServer::start();
    conn = std::make_unique<redis::Connection>(test::connect(*server));
    ASSERT_TRUE(
        redis::set_config(*conn, kSchema, "chat",
                          redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 10)),
                          {"setup", "first", 0})
            .ok());
    tab = std::make_unique<TunerTab>(QString::fromStdString(server->url()));
    tab->livePanel()->setRule(QStringLiteral("chat"));
    read();
  }
  void read() {
    QSignalSpy done(tab.get(), &TunerTab::configRead);
    tab->livePanel()->readLiveConfig();
    ASSERT_TRUE(done.wait(10000));
  }
  // Runs `action` and waits for shadowFinished: (ok, message).
  template <class F>
  std::pair<bool, QString> finish(F action) {
    QSignalSpy done(tab.get(), &TunerTab::shadowFinished);
    action();
    if (done.isEmpty() && !done.wait(10000)) return {false, QStringLiteral("no answer")};
    return {done.at(0).at(0).toBool(), done.at(0).at(1).toString()};
  }
  redis::ShadowState shadow() {
    auto s = redis::get_shadow(*conn, kSchema, "chat");
    EXPECT_TRUE(s.ok());
    return s.ok() ? *s : redis::ShadowState{};
  }
  std::unique_ptr<test::RedisServer> server;
  std::unique_ptr<redis::Connection> conn;
  std::unique_ptr<TunerTab> tab;
};

TEST_F(TunerShadow, RefusedWhileWritesAreNotArmed) {
  tab->candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, 40, 10));
  const auto [ok, message] = finish([&] { tab->shadowPanel()->putInShadow(); });
  EXPECT_FALSE(ok);
  EXPECT_TRUE(message.contains(QStringLiteral("not allowed"))) << message.toStdString();
  EXPECT_FALSE(shadow().config.has_value());
  EXPECT_EQ(shadow().version, 0);
}

TEST_F(TunerShadow, PutInShadowWritesTheCandidateWithAnAuditEntryAndClearRemovesIt) {
  tab->livePanel()->setWritesArmed(true);
  tab->candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, 40, 10));
  const auto [ok, message] = finish([&] { tab->shadowPanel()->putInShadow(); });
  ASSERT_TRUE(ok) << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("In shadow"))) << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("capacity=40"))) << message.toStdString();
  EXPECT_EQ(tab->livePanel()->status(), message);

  const redis::ShadowState s = shadow();
  ASSERT_TRUE(s.config.has_value());
  EXPECT_EQ(s.version, 1);
  ASSERT_EQ(s.config->limits.size(), 1u);
  EXPECT_EQ(s.config->limits.front().params.capacity, 40);
  EXPECT_EQ(s.config->limits.front().params.algorithm, Algorithm::token_bucket);
  const auto live = redis::get_config(*conn, kSchema, "chat");
  ASSERT_TRUE(live.ok() && live->has_value());
  EXPECT_EQ((*live)->version, 1) << "the live config is not touched";
  EXPECT_EQ((*live)->limits.front().params.capacity, 100);

  auto history = redis::shadow_history(*conn, kSchema, "chat", 5);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  const QString user = qEnvironmentVariable("USER");
  EXPECT_EQ(history->front().by,
            (user.isEmpty() ? QStringLiteral("limitscope") : user).toStdString());
  EXPECT_EQ(history->front().action, "set");
  EXPECT_EQ(history->front().reason, "shadow from the limitscope Tuner");

  // A second candidate follows the version the tab wrote (compare-and-set on 1).
  tab->candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, 60, 10));
  const auto [again, message2] = finish([&] { tab->shadowPanel()->putInShadow(); });
  ASSERT_TRUE(again) << message2.toStdString();
  EXPECT_EQ(shadow().version, 2);
  EXPECT_EQ(shadow().config->limits.front().params.capacity, 60);

  const auto [cleared, message3] = finish([&] { tab->shadowPanel()->clearShadow(); });
  ASSERT_TRUE(cleared) << message3.toStdString();
  EXPECT_TRUE(message3.contains(QStringLiteral("Shadow cleared"))) << message3.toStdString();
  EXPECT_FALSE(shadow().config.has_value());
  EXPECT_EQ(shadow().version, 3);
  history = redis::shadow_history(*conn, kSchema, "chat", 5);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ(history->front().action, "clear");
}

TEST_F(TunerShadow, AShadowSetElsewhereSinceTheReadIsRefusedAndNothingIsWritten) {
  tab->livePanel()->setWritesArmed(true);
  ASSERT_TRUE(redis::set_shadow(*conn, kSchema, "chat",
                                redis::single_limit(test::bucket(Algorithm::token_bucket, 70, 10)),
                                {"bob", "elsewhere", 0})
                  .ok());
  tab->candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, 40, 10));
  const auto [ok, message] = finish([&] { tab->shadowPanel()->putInShadow(); });
  EXPECT_FALSE(ok);
  EXPECT_TRUE(message.contains(QStringLiteral("changed since it was read")))
      << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("Nothing was changed")));
  EXPECT_EQ(shadow().version, 1);
  EXPECT_EQ(shadow().config->limits.front().params.capacity, 70) << "bob's shadow stays";
}

TEST_F(TunerShadow, AKeysOverrideScopeIsRefused) {
  tab->livePanel()->setWritesArmed(true);
  tab->livePanel()->setOverrideKey(QStringLiteral("alice"));
  tab->candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, 40, 10));
  const auto [ok, message] = finish([&] { tab->shadowPanel()->putInShadow(); });
  EXPECT_FALSE(ok);
  EXPECT_TRUE(message.contains(QStringLiteral("whole rule"))) << message.toStdString();
  EXPECT_FALSE(shadow().config.has_value());
}

}  // namespace
}  // namespace limitscope::ui
