// Verifies the Tuner's Apply against a real redis-server: nothing is written while writes are not
// armed; armed, the diff names old, new and the version, the write is compare-and-set with an
// audit entry (who, reason), Undo restores the previous config; a version moved by someone else
// is refused with a clear message, nothing changes, and the live config is reloaded. The rule's
// decision stream in that Redis loads as a trace; without a connection it is refused. One key's
// override: the diff names the key and its predicted 429s from the trace, the write adds the
// override and leaves the rule's limit, and a whole-rule Apply afterwards keeps it. On a
// composite rule the candidate replaces the chosen limit and the others stay.
#include <gtest/gtest.h>

#include <QSignalSpy>

#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/rule_config.h"
#include "core/trace/trace.h"
#include "support/limit_params_builders.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "ui/tuner/apply_dialog.h"
#include "ui/tuner/apply_panel.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/trace_panel.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {
namespace {

using std::chrono::seconds;

struct TunerApply : ::testing::Test {
  void SetUp() override {
    test::ensure_qt_app();
    server = test::RedisServer::start();
    redis::RedisUrl url;
    url.port = server->port();
    auto c = redis::Connection::open(url);
    ASSERT_TRUE(c.ok());
    conn = std::make_unique<redis::Connection>(std::move(*c));
    ASSERT_TRUE(
        redis::set_config(*conn, schema, "chat",
                          redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 10)),
                          {"setup", "first", 0})
            .ok());
    tab = std::make_unique<TunerTab>(QString::fromStdString(server->url()));
    QSignalSpy read(tab.get(), &TunerTab::configRead);
    tab->livePanel()->setRule(QStringLiteral("chat"));
    tab->livePanel()->readLiveConfig();
    ASSERT_TRUE(read.wait(10000));
  }
  redis::RuleConfig live() {
    auto cfg = redis::get_config(*conn, schema, "chat");
    EXPECT_TRUE(cfg.ok() && cfg->has_value());
    return **cfg;
  }
  // Opens the dialog for a candidate capacity and confirms it; returns applyFinished's args.
  QList<QVariant> apply(double capacity, const QString& reason, QString* diff = nullptr) {
    tab->candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, capacity, 10));
    QSignalSpy done(tab.get(), &TunerTab::applyFinished);
    tab->applyPanel()->requestApply();
    EXPECT_NE(tab->applyPanel()->applyDialog(), nullptr);
    if (tab->applyPanel()->applyDialog() == nullptr) return {};
    if (diff != nullptr) *diff = tab->applyPanel()->applyDialog()->diffText();
    tab->applyPanel()->applyDialog()->setReason(reason);
    EXPECT_TRUE(tab->applyPanel()->applyDialog()->canApply());
    tab->applyPanel()->applyDialog()->accept();
    EXPECT_TRUE(done.wait(10000));
    return done.isEmpty() ? QList<QVariant>{} : done.at(0);
  }
  std::unique_ptr<test::RedisServer> server;
  std::unique_ptr<redis::Connection> conn;
  redis::KeySchema schema;
  std::unique_ptr<TunerTab> tab;
};

TEST_F(TunerApply, TheCurrentSettingIsTheLiveConfig) {
  ASSERT_TRUE(tab->livePanel()->liveConfig().has_value());
  EXPECT_EQ(tab->livePanel()->liveConfig()->version, 1);
  EXPECT_EQ(tab->currentEditor()->params().capacity, 100);
  EXPECT_TRUE(tab->livePanel()->status().contains(QStringLiteral("version 1")));
}

TEST_F(TunerApply, WritesAreRefusedWhileNotArmed) {
  tab->candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, 200, 10));
  QSignalSpy done(tab.get(), &TunerTab::applyFinished);
  tab->applyPanel()->requestApply();
  ASSERT_EQ(done.size(), 1);
  EXPECT_FALSE(done.at(0).at(0).toBool());
  EXPECT_TRUE(done.at(0).at(1).toString().contains(QStringLiteral("not allowed")));
  EXPECT_EQ(tab->applyPanel()->applyDialog(), nullptr);
  tab->applyPanel()->undo();
  ASSERT_EQ(done.size(), 2);
  EXPECT_FALSE(done.at(1).at(0).toBool());
  EXPECT_EQ(live().version, 1);
  EXPECT_EQ(live().limits.front().params.capacity, 100);
}

TEST_F(TunerApply, ApplyWritesWithAnAuditEntryAndUndoRestores) {
  tab->livePanel()->setWritesArmed(true);
  QString diff;
  const auto applied = apply(250, QStringLiteral("replayed last hour"), &diff);
  ASSERT_FALSE(applied.isEmpty());
  ASSERT_TRUE(applied.at(0).toBool()) << applied.at(1).toString().toStdString();
  EXPECT_TRUE(diff.contains(QStringLiteral("capacity=100"))) << diff.toStdString();
  EXPECT_TRUE(diff.contains(QStringLiteral("capacity=250")));
  EXPECT_TRUE(diff.contains(QStringLiteral("version 1")));
  EXPECT_TRUE(diff.contains(QStringLiteral("every key it limits"))) << diff.toStdString();
  EXPECT_EQ(live().version, 2);
  EXPECT_EQ(live().limits.front().params.capacity, 250);
  const auto history = redis::config_history(*conn, schema, "chat", 1);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  const QString user = qEnvironmentVariable("USER");
  EXPECT_EQ(history->front().by,
            (user.isEmpty() ? QStringLiteral("limitscope") : user).toStdString());
  EXPECT_EQ(history->front().reason, "replayed last hour");
  EXPECT_EQ(history->front().action, "set");

  QSignalSpy undone(tab.get(), &TunerTab::applyFinished);
  tab->applyPanel()->undo();
  ASSERT_TRUE(undone.wait(10000));
  ASSERT_TRUE(undone.at(0).at(0).toBool()) << undone.at(0).at(1).toString().toStdString();
  EXPECT_EQ(live().version, 3);
  EXPECT_EQ(live().limits.front().params.capacity, 100);
  EXPECT_EQ(tab->currentEditor()->params().capacity, 100);
}

TEST_F(TunerApply, AStaleVersionIsRefusedNothingChangesAndTheConfigReloads) {
  tab->livePanel()->setWritesArmed(true);
  // Someone else applies version 2 after the tab read version 1.
  ASSERT_TRUE(redis::set_config(*conn, schema, "chat",
                                redis::single_limit(test::bucket(Algorithm::token_bucket, 300, 10)),
                                {"bob", "elsewhere", 1})
                  .ok());
  QSignalSpy reread(tab.get(), &TunerTab::configRead);
  const auto refused = apply(400, QStringLiteral("too late"));
  ASSERT_FALSE(refused.isEmpty());
  EXPECT_FALSE(refused.at(0).toBool());
  EXPECT_TRUE(refused.at(1).toString().contains(QStringLiteral("changed since it was read")))
      << refused.at(1).toString().toStdString();
  EXPECT_TRUE(refused.at(1).toString().contains(QStringLiteral("Nothing was changed")));
  EXPECT_EQ(live().version, 2);
  EXPECT_EQ(live().limits.front().params.capacity, 300);
  ASSERT_TRUE(reread.wait(10000));
  ASSERT_TRUE(tab->livePanel()->liveConfig().has_value());
  EXPECT_EQ(tab->livePanel()->liveConfig()->version, 2);
  EXPECT_EQ(tab->currentEditor()->params().capacity, 300);
  // The refusal stays in front of the reloaded config.
  EXPECT_TRUE(tab->livePanel()->status().contains(QStringLiteral("changed since it was read")));
  EXPECT_TRUE(tab->livePanel()->status().contains(QStringLiteral("version 2")));
}

TEST_F(TunerApply, OneKeysOverride) {
  // vip sends 30 requests at once; the others one each.
  auto trace = std::make_shared<trace::Trace>();
  for (int i = 0; i < 30; ++i) trace->add(1'000'000 + i, "vip", 1);
  for (int i = 0; i < 5; ++i) trace->add(2'000'000 + i, "k" + std::to_string(i), 1);
  QSignalSpy updated(tab.get(), &TunerTab::whatIfUpdated);
  tab->tracePanel()->setTrace(trace, QStringLiteral("test"));
  ASSERT_TRUE(updated.wait(10000));
  tab->livePanel()->setWritesArmed(true);
  tab->livePanel()->setOverrideKey(QStringLiteral("vip"));
  tab->candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, 20, 10));
  QSignalSpy opened(tab.get(), &TunerTab::applyDialogOpened);
  tab->applyPanel()->requestApply();
  ASSERT_TRUE(opened.wait(10000));
  ASSERT_NE(tab->applyPanel()->applyDialog(), nullptr);
  const QString diff = tab->applyPanel()->applyDialog()->diffText();
  EXPECT_TRUE(diff.contains(QStringLiteral("key &quot;vip&quot; of rule &quot;chat&quot; only")) ||
              diff.contains(QStringLiteral("key \"vip\" of rule \"chat\" only")))
      << diff.toStdString();
  // With capacity 100 the vip key's 30 requests all pass; with 20, 10 are refused.
  EXPECT_TRUE(
      diff.contains(QStringLiteral("429s of key vip on the loaded trace: current 0 of 30 "
                                   "requests (0.00%) → candidate 10 of 30 requests")))
      << diff.toStdString();
  QSignalSpy done(tab.get(), &TunerTab::applyFinished);
  tab->applyPanel()->applyDialog()->setReason(QStringLiteral("vip contract"));
  ASSERT_TRUE(tab->applyPanel()->applyDialog()->canApply());
  tab->applyPanel()->applyDialog()->accept();
  ASSERT_TRUE(done.wait(10000));
  ASSERT_TRUE(done.at(0).at(0).toBool()) << done.at(0).at(1).toString().toStdString();
  EXPECT_EQ(live().version, 2);
  EXPECT_EQ(live().limits.front().params.capacity, 100);
  ASSERT_EQ(live().overrides.count("vip"), 1u);
  EXPECT_EQ(live().overrides.at("vip").capacity, 20);
  EXPECT_EQ(tab->currentEditor()->params().capacity, 20);  // the key's live setting now

  // A whole-rule change afterwards keeps the key's override.
  tab->livePanel()->setOverrideKey({});
  EXPECT_EQ(tab->currentEditor()->params().capacity, 100);
  const auto rule = apply(150, QStringLiteral("wider for all"));
  ASSERT_FALSE(rule.isEmpty());
  ASSERT_TRUE(rule.at(0).toBool()) << rule.at(1).toString().toStdString();
  EXPECT_EQ(live().limits.front().params.capacity, 150);
  EXPECT_EQ(live().overrides.at("vip").capacity, 20);
}

TEST_F(TunerApply, OneLimitOfACompositeRule) {
  redis::RuleConfig composite;
  composite.limits = {{"rpm", test::bucket(Algorithm::token_bucket, 60, 1)},
                      {"tpm", test::bucket(Algorithm::token_bucket, 100000, 1000)}};
  ASSERT_TRUE(redis::set_config(*conn, schema, "mix", composite, {"setup", "", 0}).ok());
  QSignalSpy read(tab.get(), &TunerTab::configRead);
  tab->livePanel()->setRule(QStringLiteral("mix"));
  tab->livePanel()->readLiveConfig();
  ASSERT_TRUE(read.wait(10000));
  EXPECT_EQ(tab->livePanel()->compositeLimit(),
            QStringLiteral("rpm"));  // the first limit by default
  EXPECT_EQ(tab->currentEditor()->params().capacity, 60);
  tab->livePanel()->chooseLimit(QStringLiteral("tpm"));
  EXPECT_EQ(tab->currentEditor()->params().capacity, 100000);
  tab->livePanel()->setWritesArmed(true);
  tab->livePanel()->chooseLimit(QStringLiteral("rpm"));
  QString diff;
  const auto applied = apply(90, QStringLiteral("more requests"), &diff);
  ASSERT_FALSE(applied.isEmpty());
  ASSERT_TRUE(applied.at(0).toBool()) << applied.at(1).toString().toStdString();
  EXPECT_TRUE(diff.contains(QStringLiteral("(tpm) are unchanged"))) << diff.toStdString();
  auto cfg = redis::get_config(*conn, schema, "mix");
  ASSERT_TRUE(cfg.ok() && cfg->has_value());
  ASSERT_EQ((*cfg)->limits.size(), 2u);
  EXPECT_EQ((*cfg)->limits[0].params.capacity, 90);
  EXPECT_EQ((*cfg)->limits[1].params.capacity, 100000);
  EXPECT_EQ(tab->livePanel()->compositeLimit(), QStringLiteral("rpm"));  // kept across the reload
}

TEST_F(TunerApply, TheRulesDecisionStreamLoadsAsATrace) {
  const std::string stream = schema.decisions_key("chat");
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(
        conn->command({"XADD", stream, "*", "t", std::to_string(1'000'000 + i * 1000), "key",
                       i % 2 == 0 ? "alice" : "bob", "cost", "2", "allowed", "1", "level", "5"})
            .ok());
  }
  QSignalSpy loaded(tab.get(), &TunerTab::traceLoaded);
  tab->loadDecisionStream(QStringLiteral("chat"));
  ASSERT_TRUE(loaded.wait(10000));
  ASSERT_NE(tab->trace(), nullptr);
  EXPECT_EQ(tab->trace()->events.size(), 50u);
  EXPECT_EQ(tab->trace()->keys.size(), 2u);

  TunerTab offline;
  QSignalSpy refused(&offline, &TunerTab::traceLoadFailed);
  offline.loadDecisionStream(QStringLiteral("chat"));
  ASSERT_EQ(refused.size(), 1);
  EXPECT_TRUE(refused.at(0).at(0).toString().contains(QStringLiteral("--redis")));
}

}  // namespace
}  // namespace limitscope::ui
