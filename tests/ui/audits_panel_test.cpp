// Verifies the Audits tab offscreen on real processes: two limitscope-gateway processes with
// in-process limiters, one key loaded through both, are flagged as a leak of about 2x named
// "per replica", with the tenant's name and never its key; a real gateway's decision stream on
// a real redis-server shows impatient retries and no lie, and the clocks of the gateways and
// Redis agree; a stream that logs a raw key the policy lists shows its hash and name, and its
// too-short Retry-After is caught. An audit without its sources says what it needs.
// With LIMITSCOPE_SCREENSHOT_DIR set, the first test saves the panel there (audits_panel.png).

#include "ui/audits/audits_panel.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <QSignalSpy>
#include <QTableView>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/common/sha256.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "ui/models/result_table_model.h"
#include "ui/result_box.h"

namespace limitscope::ui {
namespace {

// free: capacity 50 at 1/s (the replica test), gemini costs 1; two named tenants.
std::string audit_policy() {
  return R"({
  "tiers": {
    "free": { "requests": { "algorithm": "token-bucket", "capacity": 50, "refill": "1/s" } },
    "small": { "requests": { "algorithm": "token-bucket", "capacity": 3, "refill": "1/s" } }
  },
  "models": { "gemini-2.5-flash": { "cost": 1, "price_per_million_tokens": 2.5 } },
  "keys": { "sk-acme-secret": { "tier": "free", "name": "acme-prod" },
            "sk-beta-secret": { "tier": "small", "name": "beta-labs" } }
})";
}

int post(httplib::Client& c, const std::string& key) {
  const std::string body = nlohmann::json{{"model", "gemini-2.5-flash"},
                                          {"max_tokens", 10},
                                          {"messages", {{{"role", "user"}, {"content", "hi"}}}}}
                               .dump();
  auto r = c.Post("/v1/chat/completions", {{"Authorization", "Bearer " + key}}, body,
                  "application/json");
  return r ? r->status : -1;
}

// The row of `box` whose column `column` reads `text`, or -1.
int row_with(const ResultBox* box, int column, const QString& text) {
  for (int r = 0; r < box->model()->rowCount(); ++r) {
    if (box->model()->text(r, column) == text) return r;
  }
  return -1;
}

int column_of(const ResultBox* box, const QString& name) {
  for (int c = 0; c < box->model()->columnCount(); ++c) {
    if (box->model()->headerData(c, Qt::Horizontal).toString() == name) return c;
  }
  return -1;
}

bool shows_anywhere(const ResultBox* box, const QString& text) {
  if (box->verdict().contains(text) || box->title().contains(text)) return true;
  for (int r = 0; r < box->model()->rowCount(); ++r) {
    for (int c = 0; c < box->model()->columnCount(); ++c) {
      if (box->model()->text(r, c).contains(text)) return true;
      if (box->model()->index(r, c).data(Qt::ToolTipRole).toString().contains(text)) return true;
    }
  }
  return false;
}

void run(AuditsPanel& panel) {
  QSignalSpy done(&panel, &AuditsPanel::auditsFinished);
  panel.runAudits();
  ASSERT_TRUE(done.count() > 0 || done.wait(60000)) << panel.statusText().toStdString();
}

TEST(AuditsPanel, LeakAcrossReplicasHonestRetryAfterAndAgreeingClocks) {
  test::ensure_qt_app();
  auto redis = test::RedisServer::start();
  ASSERT_NE(redis, nullptr);
  const std::string policy = test::write_temp("audits_panel_policy.json", audit_policy());
  // Two replicas with in-process limiters, and one gateway on Redis logging its decisions.
  test::GatewayProcess a({"--policy", policy, "--mock-upstream"});
  test::GatewayProcess b({"--policy", policy, "--mock-upstream"});
  test::GatewayProcess shared(
      {"--policy", policy, "--mock-upstream", "--redis", redis->url(), "--log-decisions", "1"});
  ASSERT_TRUE(a.running() && b.running() && shared.running());
  httplib::Client ca(a.url()), cb(b.url()), cs(shared.url());
  // 150 requests over both replicas: three times what one limit of 50 (+1/s) admits.
  for (int i = 0; i < 150; ++i) ASSERT_NE(post(i % 2 == 0 ? ca : cb, "sk-acme-secret"), -1);
  // beta (capacity 3): used up, then two retries at once (impatient clients).
  for (int i = 0; i < 6; ++i) ASSERT_NE(post(cs, "sk-beta-secret"), -1);

  AuditsPanel panel;
  panel.resize(1300, 950);
  panel.show();
  LiveSpec spec;  // what the dashboard watches: one gateway and the Redis
  spec.metrics_url = a.url() + "/metrics";
  spec.redis_url = redis->url();
  panel.setSources(spec);
  panel.setMetricsUrls(
      {QString::fromStdString(a.url() + "/metrics"), QString::fromStdString(b.url() + "/metrics")});
  panel.setRule(QStringLiteral("gw-small"));
  panel.setPolicyFile(QString::fromStdString(policy));
  run(panel);

  // Replicas: about 2x, per replica, named.
  const ResultBox* replicas = panel.replicasBox();
  ASSERT_TRUE(replicas->isProblem()) << replicas->verdict().toStdString();
  EXPECT_TRUE(
      replicas->notesText().contains(QStringLiteral("Likely cause: limits counted per replica")))
      << replicas->notesText().toStdString();
  const int acme = row_with(replicas, column_of(replicas, QStringLiteral("tenant")),
                            QStringLiteral("acme-prod"));
  ASSERT_GE(acme, 0);
  EXPECT_TRUE(replicas->model()->isFlagged(acme));
  EXPECT_EQ(replicas->model()->text(acme, column_of(replicas, QStringLiteral("key"))),
            QString::fromStdString(api_key_hash("sk-acme-secret")));
  EXPECT_EQ(replicas->model()->text(acme, column_of(replicas, QStringLiteral("replicas"))),
            QStringLiteral("2"));
  // "1.99x": the number before the unit.
  const double ratio = std::stod(replicas->model()
                                     ->text(acme, column_of(replicas, QStringLiteral("ratio")))
                                     .chopped(1)
                                     .toStdString());
  EXPECT_GT(ratio, 1.5);
  EXPECT_LT(ratio, 2.2);

  // Retry-After on the shared gateway's stream: impatient retries, no lie, beta named.
  const ResultBox* retry = panel.retryAfterBox();
  EXPECT_FALSE(retry->isProblem()) << retry->verdict().toStdString();
  const int beta =
      row_with(retry, column_of(retry, QStringLiteral("tenant")), QStringLiteral("beta-labs"));
  ASSERT_GE(beta, 0) << retry->verdict().toStdString();
  EXPECT_EQ(retry->model()->text(beta, column_of(retry, QStringLiteral("lies"))),
            QStringLiteral("0"));
  EXPECT_GE(retry->model()->text(beta, column_of(retry, QStringLiteral("impatient"))).toInt(), 2);
  EXPECT_TRUE(retry->verdict().startsWith(QStringLiteral("Retry-After held")))
      << retry->verdict().toStdString();

  // Clocks: both replicas and the Redis, one machine, one clock.
  const ResultBox* clock = panel.clockBox();
  EXPECT_FALSE(clock->isProblem()) << clock->verdict().toStdString();
  EXPECT_EQ(clock->model()->rowCount(), 3);
  for (int r = 0; r < clock->model()->rowCount(); ++r) {
    EXPECT_EQ(clock->model()->text(r, column_of(clock, QStringLiteral("verdict"))),
              QStringLiteral("ok"));
  }

  for (const ResultBox* box : {replicas, retry, clock}) {
    EXPECT_FALSE(shows_anywhere(box, QStringLiteral("sk-acme-secret")));
    EXPECT_FALSE(shows_anywhere(box, QStringLiteral("sk-beta-secret")));
  }
  if (const char* dir = std::getenv("LIMITSCOPE_SCREENSHOT_DIR")) {
    QCoreApplication::sendPostedEvents();  // the verdicts' new heights, laid out
    QCoreApplication::processEvents();
    EXPECT_TRUE(panel.grab().save(QString::fromUtf8(dir) + QStringLiteral("/audits_panel.png")));
  }
}

TEST(AuditsPanel, RawKeyInAStreamIsShownByHashAndAShortRetryAfterIsCaught) {
  test::ensure_qt_app();
  auto redis = test::RedisServer::start();
  ASSERT_NE(redis, nullptr);
  auto c = redis::Connection::open(*redis::parse_redis_url(redis->url()));
  ASSERT_TRUE(c.ok());
  // A foreign gateway that logs the raw key and promises 0.2 s when room frees after 1 s.
  const std::string stream = redis::KeySchema{}.decisions_key("foreign");
  const std::int64_t t0 = 1'796'120'229'000'000;
  for (const auto& [dt, allowed] : {std::pair{0, "0"}, std::pair{200'000, "0"},
                                    std::pair{400'000, "0"}, std::pair{1'000'000, "1"}}) {
    std::vector<std::string> cmd{"XADD",  stream,           "*",    "t", std::to_string(t0 + dt),
                                 "key",   "sk-beta-secret", "cost", "1", "allowed",
                                 allowed, "level",          "0"};
    if (std::string(allowed) == "0") {
      cmd.push_back("retry_us");
      cmd.push_back("200000");
    }
    ASSERT_TRUE(c->command(cmd).ok());
  }
  const std::string policy = test::write_temp("audits_panel_foreign_policy.json", audit_policy());
  AuditsPanel panel;
  panel.setRedisUrl(QString::fromStdString(redis->url()));
  panel.setRule(QStringLiteral("foreign"));
  panel.setPolicyFile(QString::fromStdString(policy));
  run(panel);
  const ResultBox* retry = panel.retryAfterBox();
  ASSERT_TRUE(retry->isProblem()) << retry->verdict().toStdString();
  ASSERT_EQ(retry->model()->rowCount(), 1);
  EXPECT_EQ(retry->model()->text(0, column_of(retry, QStringLiteral("key"))),
            QString::fromStdString(api_key_hash("sk-beta-secret")));
  EXPECT_EQ(retry->model()->text(0, column_of(retry, QStringLiteral("tenant"))),
            QStringLiteral("beta-labs"));
  EXPECT_EQ(retry->model()->text(0, column_of(retry, QStringLiteral("lies"))), QStringLiteral("2"));
  EXPECT_TRUE(retry->model()
                  ->index(0, 0)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .contains(QStringLiteral("promised 0.200 s")));
  EXPECT_FALSE(shows_anywhere(retry, QStringLiteral("sk-beta-secret")));
  // Without /metrics the replica and clock audits say what they need.
  EXPECT_TRUE(
      panel.replicasBox()->verdict().contains(QStringLiteral("needs the gateways' /metrics")));
  EXPECT_TRUE(panel.clockBox()->verdict().contains(QStringLiteral("needs the gateways' /metrics")));
}

TEST(AuditsPanel, BadSourcesAreNamedNotFatal) {
  test::ensure_qt_app();
  AuditsPanel panel;
  panel.setMetricsUrls({QStringLiteral("ftp://nope")});
  panel.setRedisUrl(QStringLiteral("nope://x"));
  panel.setRule(QStringLiteral("r"));
  run(panel);
  EXPECT_TRUE(panel.replicasBox()->verdict().contains(QStringLiteral("ftp://nope")))
      << panel.replicasBox()->verdict().toStdString();
  EXPECT_TRUE(panel.retryAfterBox()->verdict().contains(QStringLiteral("Redis")))
      << panel.retryAfterBox()->verdict().toStdString();
  EXPECT_TRUE(panel.clockBox()->verdict().contains(QStringLiteral("ftp://nope")));
  AuditsPanel empty;
  run(empty);
  EXPECT_TRUE(empty.statusText().contains(QStringLiteral("Nothing to audit")));
}

}  // namespace
}  // namespace limitscope::ui
