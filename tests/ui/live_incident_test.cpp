// Verifies live mode in an incident (issue 16), with real widgets offscreen: a selected key
// stays selected through 20 refreshes that reorder and change every row; and with real
// processes (a redis-server, a limitscope-gateway deciding on it with a policy that names its
// keys, logging every decision and failing open, requests from the test, the dashboard on
// Redis and the gateway's /metrics) the key rows and legends carry the policy's names, our
// keys are split into key, model and limit, the 429s of a key come from its decision stream;
// then Redis is killed: the history stays on the charts, the charts Redis feeds carry a
// "no data from redis" band, and the UNPROTECTED banner counts the requests the gateway
// admitted without a limit check, from its metrics; the incident summary says all of this.
#include <gtest/gtest.h>
#include <httplib.h>

#include <QLabel>
#include <QSignalSpy>
#include <nlohmann/json.hpp>

#include "core/common/sha256.h"
#include "support/child_process.h"
#include "support/process.h"
#include "support/qt_app.h"
#include "support/redis_server.h"
#include "ui/charts/time_chart.h"
#include "ui/main_window.h"
#include "ui/models/key_table_model.h"

namespace limitscope::ui {
namespace {

KeyRow row(const std::string& key, double level) {
  KeyRow r;
  r.api_key = key;
  r.name = key + "-name";
  r.tier = "free";
  r.model = "gpt-4.1";
  r.capacity = 60;
  r.level = level;
  return r;
}

TEST(LiveIncident, ASelectionSurvivesTwentyRefreshes) {
  test::ensure_qt_app();
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  window.setPaused(true);  // the simulation's own snapshots stay out of the way
  auto snapshot_at = [](int refresh) {
    auto s = std::make_shared<DashboardSnapshot>();
    s->now_ms = 1'800'000'000'000 + refresh * 1000;
    for (int k = 0; k < 12; ++k) {
      if (k == 11 && refresh % 3 == 0) continue;  // a key that comes and goes
      s->keys.push_back(row("k" + std::to_string(k), ((k * 5 + refresh * 7) % 12) / 12.0));
    }
    std::rotate(s->keys.begin(), s->keys.begin() + refresh % 7, s->keys.end());
    return s;
  };
  window.applySnapshot(snapshot_at(0));
  ASSERT_TRUE(window.selectKey(QStringLiteral("k6"), QStringLiteral("gpt-4.1")));
  ASSERT_EQ(window.viewRequest().selected_keys, QStringList{QStringLiteral("k6")});
  for (int refresh = 1; refresh <= 20; ++refresh) {
    window.applySnapshot(snapshot_at(refresh));
    EXPECT_EQ(window.viewRequest().selected_keys, QStringList{QStringLiteral("k6")})
        << "refresh " << refresh;
  }
}

std::string named_policy() {
  return R"({
  "tiers": {
    "free": { "requests": { "algorithm": "token-bucket", "capacity": 3, "refill": "1/s" },
              "llm_tokens": { "algorithm": "token-bucket", "capacity": 20000, "refill": "20000/min" } },
    "pro": { "requests": { "algorithm": "token-bucket", "capacity": 50, "refill": "20/s" } }
  },
  "models": { "gpt-4.1": { "cost": 2, "price_per_million_tokens": 8 } },
  "keys": { "sk-acme-secret": { "tier": "free", "name": "acme-prod" }, "sk-beta-secret": "pro" }
})";
}

int post(const test::GatewayProcess& gw, const std::string& key) {
  httplib::Client c(gw.url());
  c.set_read_timeout(10);
  const std::string body = nlohmann::json{{"model", "gpt-4.1"},
                                          {"max_tokens", 20},
                                          {"messages", {{{"role", "user"}, {"content", "hi"}}}}}
                               .dump();
  auto r = c.Post("/v1/chat/completions", {{"Authorization", "Bearer " + key}}, body,
                  "application/json");
  return r ? r->status : -1;
}

// Waits (at most `max` applied snapshots, each a refresh of a source) until `done` holds.
template <class Done>
bool until(QSignalSpy& snapshots, Done done, int max = 120) {
  for (int i = 0; i < max; ++i) {
    if (done()) return true;
    if (snapshots.isEmpty() && !snapshots.wait(10000)) return false;
    snapshots.clear();
  }
  return done();
}

TEST(LiveIncident, NamesThenARedisOutageWithTheGatewayFailingOpen) {
  test::ensure_qt_app();
  auto redis = test::RedisServer::start();
  ASSERT_NE(redis, nullptr);
  const std::string policy = test::write_temp("live_incident_policy.json", named_policy());
  test::GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", redis->url(),
                           "--log-decisions", "1", "--redis-failure-mode", "fail-open"});
  ASSERT_TRUE(gw.running());
  for (int i = 0; i < 6; ++i) post(gw, "sk-acme-secret");  // capacity 3: some 429s

  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  QSignalSpy opened(&window, &MainWindow::liveOpened);
  QSignalSpy snapshots(&window, &MainWindow::snapshotApplied);
  LiveSpec spec;
  spec.redis_url = redis->url();
  spec.metrics_url = gw.url() + "/metrics";
  window.openLive(spec);
  ASSERT_TRUE(opened.wait(10000));
  ASSERT_FALSE(opened.at(0).at(0).toString().isEmpty()) << opened.at(0).at(1).value<Status>();

  const std::string hash32 = sha256_hex("sk-acme-secret").substr(0, 32);
  const auto acme_row = [&]() -> const KeyRow* {
    const auto s = window.lastSnapshot();
    if (!s) return nullptr;
    for (const KeyRow& r : s->keys) {
      if (r.api_key == hash32 && r.limit == "requests") return &r;
    }
    return nullptr;
  };
  // Names come from limitscope_key_info; the key's 429s from its rule's decision stream.
  ASSERT_TRUE(until(snapshots, [&] {
    post(gw, "sk-acme-secret");
    const KeyRow* r = acme_row();
    return r != nullptr && r->name == "acme-prod" && r->rates_reported;
  })) << "the key row never carried its name and stream rates";
  {
    const KeyRow* r = acme_row();
    EXPECT_EQ(r->model, "gpt-4.1");
    EXPECT_EQ(r->tier, "free") << "the tier, not the gateway's rule gw-free";
    EXPECT_EQ(r->parameters, "token-bucket capacity=3 refill=1/s")
        << "the limit, not the schema profile";
    EXPECT_EQ(r->algorithm, "token-bucket");
    EXPECT_FALSE(r->spend_reported);
    const int at =
        window.keyModel()->findRow(QString::fromStdString(hash32), QStringLiteral("gpt-4.1"));
    ASSERT_GE(at, 0);
    // The name; with the model and limit while their columns are out of view.
    const QString name = window.keyModel()->index(at, KeyTableModel::Key).data().toString();
    EXPECT_TRUE(name == QStringLiteral("acme-prod") ||
                name == QStringLiteral("acme-prod/gpt-4.1/requests"))
        << name.toStdString();
    EXPECT_EQ(window.keyModel()->index(at, KeyTableModel::Spend).data().toString(),
              QStringLiteral("—"));
  }
  bool legend = false;
  for (const QString& l : window.chart(0)->legendLabels())
    legend = legend || l.startsWith(QStringLiteral("acme-prod"));
  EXPECT_TRUE(legend) << window.chart(0)->legendLabels().join(QStringLiteral(", ")).toStdString();
  for (const KeyRow& r : window.lastSnapshot()->keys) {
    EXPECT_EQ(r.name.find("sk-"), std::string::npos) << "a raw key reached the table";
  }

  // Redis dies; the gateway fails open and admits what the test sends without a check.
  redis->kill();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(post(gw, "sk-beta-secret"), 200);
  ASSERT_TRUE(until(snapshots, [&] {
    const auto s = window.lastSnapshot();
    return s && s->protection.unprotected && s->protection.admitted_unchecked >= 10 &&
           s->charts.size() == 4 && !s->charts[0].no_data.empty();
  })) << "no outage band or no fail-open count";
  const auto s = window.lastSnapshot();
  EXPECT_FALSE(s->charts[0].lines.empty()) << "the history left the bucket-levels chart";
  ASSERT_FALSE(window.chart(0)->noDataBands().empty());
  EXPECT_TRUE(TimeChart::noDataText(window.chart(0)->noDataBands().front())
                  .startsWith(QStringLiteral("no data from redis since")));
  EXPECT_TRUE(window.unprotectedBanner()->isVisible() || !window.isVisible());
  EXPECT_TRUE(window.unprotectedBanner()->text().startsWith(QStringLiteral("UNPROTECTED since")))
      << window.unprotectedBanner()->text().toStdString();
  bool redis_down = false;
  for (const SourceStatus& st : s->sources)
    redis_down = redis_down || (st.kind == "redis" && st.down);
  EXPECT_TRUE(redis_down);
  bool unchecked_line = false;
  for (const ChartLine& l : s->charts[2].lines)
    unchecked_line = unchecked_line || l.name == "admitted unchecked (fail-open)";
  EXPECT_TRUE(unchecked_line);

  // The incident summary says all of this (File > Export incident summary, limitscope --report).
  QSignalSpy saved(&window, &MainWindow::reportSaved);
  const QString md_path = QString::fromStdString(test::temp_path("live_incident.md"));
  window.exportIncidentSummary(md_path);
  ASSERT_TRUE(saved.wait(10000));
  EXPECT_EQ(saved.at(0).at(1).value<Status>(), Status{});
  const std::string md = test::read_file(md_path.toStdString());
  EXPECT_NE(md.find("- **redis** (redis: "), std::string::npos) << md;
  EXPECT_NE(md.find("down since"), std::string::npos) << md;
  EXPECT_NE(md.find("UNPROTECTED since"), std::string::npos) << md;
  EXPECT_NE(md.find("| acme-prod | free | gpt-4.1"), std::string::npos) << md;
  EXPECT_EQ(md.find("sk-acme-secret"), std::string::npos);
  EXPECT_FALSE(test::read_file(test::temp_path("live_incident.png")).empty());
}

}  // namespace
}  // namespace limitscope::ui
