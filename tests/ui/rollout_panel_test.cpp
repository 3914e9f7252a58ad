// Verifies the dashboard's Rollout tab offscreen on a real redis-server (issue 19 item 3): it
// shows a running rollout (state, step, share, hold left, guard, who started it); Pause,
// Resume and Abort clicked in the panel change the rollout in Redis and write audit entries
// naming the operator; Start rolls out the rule's shadow with a guard evaluated on a real HTTP
// /metrics, and driven from the tab it trips once that guard sees 429s. Every call runs on the
// panel's worker thread: the test waits on the panel's `updated` signal, an event. With
// LIMITSCOPE_SCREENSHOT_DIR set, it saves the panel there (rollout_panel.png).

#include "ui/rollout/rollout_panel.h"

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QCoreApplication>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <cstdlib>

#include "core/redis/rollout.h"
#include "core/redis/rollout_controller.h"
#include "core/redis/rule_config.h"
#include "core/redis/shadow_config.h"
#include "support/canned_http_server.h"
#include "support/limit_params_builders.h"
#include "support/qt_app.h"
#include "support/redis_server.h"

namespace limitscope::ui {
namespace {

using namespace std::chrono_literals;

class RolloutPanelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::ensure_qt_app();
    server_ = test::RedisServer::start();
    conn_ = std::make_unique<redis::Connection>(test::connect(*server_));
    const redis::ChangeInfo change{"setup", "test", std::nullopt};
    ASSERT_TRUE(redis::set_config(
        *conn_, schema_, "r",
        redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 1, 1s)), change));
    ASSERT_TRUE(redis::set_shadow(
        *conn_, schema_, "r", redis::single_limit(test::bucket(Algorithm::token_bucket, 10, 1, 1s)),
        change));
  }
  // Runs `act` (a click) and waits for the panel's answer to it, an event.
  void answer(RolloutPanel& panel, const std::function<void()>& act) {
    QSignalSpy spy(&panel, &RolloutPanel::updated);
    act();
    ASSERT_TRUE(spy.count() > 0 || spy.wait(30000)) << panel.statusText().toStdString();
  }
  // Clicks `button` and waits until the answer to that action has arrived (a refresh may land
  // first).
  void click(RolloutPanel& panel, const char* button, const QString& action) {
    auto* b = panel.findChild<QPushButton*>(QLatin1String(button));
    ASSERT_NE(b, nullptr) << button;
    ASSERT_TRUE(b->isEnabled()) << button << ": " << panel.statusText().toStdString();
    answer(panel, [b] { b->click(); });
    while (!panel.statusText().startsWith(action)) answer(panel, [] {});
  }
  QString label(const RolloutPanel& panel, const char* name) {
    auto* l = panel.findChild<QLabel*>(QLatin1String(name));
    return l ? l->text() : QString();
  }
  redis::RolloutState state() { return redis::get_rollout(*conn_, schema_, "r")->value(); }

  redis::KeySchema schema_;
  std::unique_ptr<test::RedisServer> server_;
  std::unique_ptr<redis::Connection> conn_;
};

TEST_F(RolloutPanelTest, ShowsARunningRolloutAndPauseResumeAbortChangeRedisAudited) {
  redis::RolloutState plan;
  plan.steps_bp = {1000, 5000, redis::kAllKeys};
  plan.hold_ms = 300'000;
  plan.guard = "sum(gateway_rate_limit_hits_total) > 0";
  plan.source = "http://127.0.0.1:1/metrics";
  ASSERT_TRUE(redis::start_rollout(*conn_, schema_, "r", plan, 0, "alice"));

  RolloutPanel panel;
  panel.setOperator(QStringLiteral("bob"));
  panel.setRedisUrl(QString::fromStdString(server_->url()));
  panel.setRule(QStringLiteral("r"));
  panel.resize(1000, 800);
  panel.show();
  answer(panel, [&] { panel.watch(); });
  EXPECT_EQ(panel.stateText(), QStringLiteral("running")) << panel.statusText().toStdString();
  EXPECT_EQ(label(panel, "rolloutStep"), QStringLiteral("1 of 3 (10%, 50%, 100%)"));
  EXPECT_EQ(label(panel, "rolloutShare"), QStringLiteral("10% of the keys"));
  EXPECT_EQ(label(panel, "rolloutStartedBy"), QStringLiteral("alice"));
  EXPECT_TRUE(label(panel, "rolloutGuard")
                  .startsWith(QStringLiteral("sum(gateway_rate_limit_hits_total) > 0")));
  // Started at server time 0: the whole 5m hold has passed by now's clock.
  EXPECT_EQ(label(panel, "rolloutHold"), QStringLiteral("0 ms left of 5m 00s"));

  click(panel, "rolloutPause", QStringLiteral("pause"));
  EXPECT_EQ(state().state, "paused");
  EXPECT_EQ(state().share_bp, 1000) << "a pause keeps the share";
  EXPECT_EQ(panel.stateText(), QStringLiteral("paused"));
  EXPECT_TRUE(label(panel, "rolloutHold").startsWith(QStringLiteral("frozen: ")));

  click(panel, "rolloutResume", QStringLiteral("resume"));
  EXPECT_EQ(state().state, "running");

  click(panel, "rolloutAbort", QStringLiteral("abort"));
  EXPECT_EQ(state().state, "aborted");
  EXPECT_EQ(state().share_bp, 0);
  auto h = redis::rollout_history(*conn_, schema_, "r", 10);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->size(), 4u);
  const char* actions[] = {"abort", "resume", "pause", "start"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(h->at(i).action, actions[i]);
    EXPECT_EQ(h->at(i).by, i < 3 ? "bob" : "alice") << actions[i];
  }
  EXPECT_EQ(h->at(0).reason, "aborted from the dashboard");
  EXPECT_EQ(panel.findChild<QListWidget*>(QStringLiteral("rolloutHistory"))->count(), 4);
  EXPECT_FALSE(panel.findChild<QPushButton*>(QStringLiteral("rolloutAbort"))->isEnabled());
}

TEST_F(RolloutPanelTest, StartsARolloutOfTheShadowWithAGuardOnARealMetricsEndpoint) {
  test::CannedHttpServer metrics;
  test::CannedHttpServer::Response m;
  m.body = "gateway_rate_limit_hits_total{tier=\"free\"} 0\n";
  metrics.respond(m);
  RolloutPanel panel;
  panel.setOperator(QStringLiteral("carol"));
  panel.setRedisUrl(QString::fromStdString(server_->url()));
  panel.setRule(QStringLiteral("r"));
  panel.setGuardSource(QString::fromStdString(metrics.url()), QString());
  panel.resize(1000, 800);
  panel.show();
  answer(panel, [&] { panel.watch(); });
  EXPECT_EQ(panel.stateText(), QStringLiteral("no rollout"));
  panel.findChild<QLineEdit*>(QStringLiteral("rolloutSteps"))->setText(QStringLiteral("5,100"));
  panel.findChild<QLineEdit*>(QStringLiteral("rolloutHoldEdit"))->setText(QStringLiteral("10m"));
  panel.findChild<QLineEdit*>(QStringLiteral("rolloutGuardEdit"))
      ->setText(QStringLiteral("sum(gateway_rate_limit_hits_total) > 0"));
  click(panel, "rolloutStart", QStringLiteral("start"));
  const redis::RolloutState s = state();
  EXPECT_EQ(s.state, "running");
  EXPECT_EQ(s.share_bp, 500);
  EXPECT_EQ(s.hold_ms, 600'000);
  EXPECT_EQ(s.started_by, "carol");
  EXPECT_EQ(s.source, metrics.url());
  EXPECT_GE(metrics.requests(), 1) << "the guard is checked once before anything is enforced";
  EXPECT_TRUE(label(panel, "rolloutHold").endsWith(QStringLiteral(" left of 10m 00s")))
      << label(panel, "rolloutHold").toStdString();
  if (const char* dir = std::getenv("LIMITSCOPE_SCREENSHOT_DIR")) {
    QCoreApplication::processEvents();  // the labels' new texts laid out
    panel.grab().save(QString::fromUtf8(dir) + QStringLiteral("/rollout_panel.png"));
  }
  // Driven from the dashboard: once the guard's source shows 429s, the next check trips it.
  m.body = "gateway_rate_limit_hits_total{tier=\"free\"} 4\n";
  metrics.respond(m);
  panel.findChild<QCheckBox*>(QStringLiteral("rolloutDrive"))->setChecked(true);
  while (panel.stateText() != QStringLiteral("rolled_back")) answer(panel, [] {});
  EXPECT_EQ(state().state, "rolled_back");
  EXPECT_EQ(state().share_bp, 0);
  EXPECT_EQ(label(panel, "rolloutGuardValue"), QStringLiteral("4 (tripped)"));
  auto h = redis::rollout_history(*conn_, schema_, "r", 1);
  ASSERT_TRUE(h && h->size() == 1u);
  EXPECT_EQ(h->front().action, "trip");
  EXPECT_EQ(h->front().by, "carol");
  // A bad plan is refused with the reason, nothing written.
  panel.findChild<QLineEdit*>(QStringLiteral("rolloutSteps"))->setText(QStringLiteral("50,10"));
  const std::int64_t seq = state().seq;
  auto* start = panel.findChild<QPushButton*>(QStringLiteral("rolloutStart"));
  ASSERT_TRUE(start->isEnabled());
  answer(panel, [start] { start->click(); });
  while (!panel.statusText().startsWith(QStringLiteral("start"))) answer(panel, [] {});
  EXPECT_TRUE(panel.statusText().contains(QStringLiteral("start failed: steps")))
      << panel.statusText().toStdString();
  EXPECT_EQ(state().seq, seq);
}

}  // namespace
}  // namespace limitscope::ui
