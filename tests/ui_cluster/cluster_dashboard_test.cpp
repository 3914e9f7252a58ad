// Verifies the dashboard's widgets (offscreen) on a real 3-master Redis Cluster, opened as
// `limitscope --redis redis+cluster://...` opens it: the key table shows a limiter key of every
// shard, the details pane of each selected key names its shard (live, and in playback of a
// recording of the session), and the key browser lists every shard's keys with their shard
// (tooltip) and reads each one's raw fields on its master. The Tuner tab on the cluster URL
// reads each master's rule config, loads its decision stream as a trace, applies a candidate
// (armed) to that master and undoes it.
// One cluster for the program (SetUpTestSuite): each start costs seconds.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>

// Before any Qt header: Qt's `slots` macro would break ClusterNodeLine::slots.
// clang-format off
#include "cluster/cluster_test_support.h"
// clang-format on

#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "support/qt_app.h"
#include "ui/key_browser/key_browser_dock.h"
#include "ui/key_browser/key_browser_model.h"
#include "ui/main_window.h"
#include "ui/models/key_table_model.h"
#include "ui/tuner/apply_dialog.h"
#include "ui/tuner/apply_panel.h"
#include "ui/tuner/live_panel.h"
#include "ui/tuner/param_editor.h"
#include "ui/tuner/tuner_tab.h"

namespace limitscope::ui {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;

constexpr int kWaitMs = 20'000;  // an upper bound for a condition, not a sleep

struct Seeded {
  std::string rule;
  std::string api_key;
  std::string node;  // "127.0.0.1:PORT" of the master owning the rule's slot
};

class ClusterDashboard : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      cluster_ = RedisCluster::start();
      const redis::KeySchema schema;
      redis::ClusterClient client(test::cluster_url(*cluster_), test::cluster_options(),
                                  SteadyClock::instance());
      redis::ClusterLimiter limiter(client, redis::RedisLimiter(schema));
      // One rule per master, each with its own api key, so every row is told apart by key.
      const char* keys[] = {"acct-a", "acct-b", "acct-c"};
      std::size_t i = 0;
      for (const auto& [port, rules] : test::rules_per_master(*cluster_, schema, "ui", 1)) {
        Seeded s{rules.front(), keys[i++ % 3], "127.0.0.1:" + std::to_string(port)};
        auto set =
            redis::set_config(client, schema, s.rule,
                              redis::single_limit(test::bucket(Algorithm::token_bucket, 10, 1, 1h)),
                              redis::ChangeInfo{"test", "", std::nullopt});
        if (!set) throw std::runtime_error(set.error().message);
        for (int n = 0; n < 3; ++n) {  // 7 of 10 tokens left
          auto d = limiter.decide(s.rule, {s.api_key, {1.0}, false, std::nullopt});
          if (!d) throw std::runtime_error(d.error().message);
        }
        state_keys_[schema.state_key(s.rule, s.api_key)] = s.node;
        seeded_.push_back(std::move(s));
      }
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    cluster_.reset();
    seeded_.clear();
    state_keys_.clear();
  }
  void SetUp() override {
    ASSERT_EQ(setup_error_, "");
    ASSERT_EQ(seeded_.size(), 3u);
    test::ensure_qt_app();
  }

  static inline std::unique_ptr<RedisCluster> cluster_;
  static inline std::vector<Seeded> seeded_;
  static inline std::map<std::string, std::string> state_keys_;  // state key → its node
  static inline std::string setup_error_;
};

// The window with the cluster opened as the app's --redis opens it (a LiveSpec).
void openCluster(MainWindow& window, const std::string& url) {
  QSignalSpy opened(&window, &MainWindow::liveOpened);
  LiveSpec spec;
  spec.redis_url = url;
  window.openLive(spec);
  ASSERT_TRUE(opened.count() > 0 || opened.wait(kWaitMs));
  EXPECT_FALSE(opened.at(0).at(0).toString().isEmpty()) << opened.at(0).at(1).value<Status>();
  EXPECT_EQ(opened.at(0).at(1).value<Status>(), Status{});
}

// The key table's row of a seeded key, or null.
const KeyRow* rowOf(const MainWindow& window, const Seeded& s) {
  const KeyTableModel* model = window.keyModel();
  for (int r = 0; r < model->rowCount(); ++r) {
    const KeyRow* row = model->rowAt(r);
    if (row != nullptr && row->api_key == s.api_key && row->tier == s.rule) return row;
  }
  return nullptr;
}

// Waits until the key table holds every seeded key with a shard.
bool waitForShardRows(const MainWindow& window, const std::vector<Seeded>& seeded) {
  return QTest::qWaitFor(
      [&] {
        for (const Seeded& s : seeded) {
          const KeyRow* row = rowOf(window, s);
          if (row == nullptr || row->node.empty()) return false;
        }
        return true;
      },
      kWaitMs);
}

// Selects each seeded key's row and expects the details pane to name its shard, and no other.
void expectDetailsNameTheShard(MainWindow& window, const std::vector<Seeded>& seeded) {
  auto* details = window.findChild<QTextBrowser*>(QStringLiteral("keyDetails"));
  ASSERT_NE(details, nullptr);
  for (const Seeded& s : seeded) {
    const KeyRow* row = rowOf(window, s);
    ASSERT_NE(row, nullptr) << s.rule;
    ASSERT_TRUE(
        window.selectKey(QString::fromStdString(s.api_key), QString::fromStdString(row->model)));
    const QString text = details->toPlainText();
    EXPECT_TRUE(text.contains(QString::fromStdString("Shard: " + s.node))) << text.toStdString();
    EXPECT_TRUE(text.contains(QString::fromStdString(s.api_key))) << text.toStdString();
    for (const Seeded& other : seeded) {
      if (other.node != s.node) {
        EXPECT_FALSE(text.contains(QString::fromStdString(other.node))) << text.toStdString();
      }
    }
  }
}

TEST_F(ClusterDashboard, KeyTableShowsEveryShardAndTheDetailsPaneNamesTheKeysShard) {
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  window.resize(1400, 900);
  window.show();
  openCluster(window, cluster_->url());

  // The table (the view's model, not only the snapshot) holds a row of every shard's key,
  // each with the shard it lives on.
  ASSERT_TRUE(waitForShardRows(window, seeded_))
      << "the key table never showed the three shards' keys; rows: "
      << window.keyModel()->rowCount();
  std::set<std::string> nodes;
  for (const Seeded& s : seeded_) {
    const KeyRow* row = rowOf(window, s);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->node, s.node) << s.rule;
    EXPECT_NEAR(row->level, 0.7, 1e-3) << s.rule;
    nodes.insert(row->node);
  }
  EXPECT_EQ(nodes.size(), 3u) << "one key on each master";
  expectDetailsNameTheShard(window, seeded_);
}

TEST_F(ClusterDashboard, ARecordedSessionPlaysBackWithEachKeysShard) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("cluster.jsonl"));
  {
    MainWindow live(EmbeddedSimulationOptions{}, /*start_running=*/false);
    live.show();
    openCluster(live, cluster_->url());
    ASSERT_TRUE(waitForShardRows(live, seeded_));
    QSignalSpy rec(&live, &MainWindow::recordingChanged);
    live.setRecording(path);  // writes the key table as it is now, then every refresh
    ASSERT_TRUE(rec.wait(kWaitMs));
    ASSERT_EQ(rec.back().at(0).toString(), path) << rec.back().at(1).value<Status>();
    QSignalSpy applied(&live, &MainWindow::snapshotApplied);
    ASSERT_TRUE(applied.wait(kWaitMs));
    live.setRecording(QString());
    ASSERT_TRUE(rec.wait(kWaitMs));
    EXPECT_EQ(rec.back().at(1).value<Status>(), Status{});
  }

  MainWindow played(EmbeddedSimulationOptions{}, false);
  played.show();
  QSignalSpy opened(&played, &MainWindow::playbackOpened);
  played.openRecording(path);
  ASSERT_TRUE(opened.wait(kWaitMs));
  EXPECT_EQ(opened.at(0).at(1).value<Status>(), Status{});
  ASSERT_TRUE(waitForShardRows(played, seeded_))
      << "playback's key table lacks the shards; rows: " << played.keyModel()->rowCount();
  EXPECT_TRUE(played.isPlayback());
  for (const Seeded& s : seeded_) EXPECT_EQ(rowOf(played, s)->node, s.node) << s.rule;
  expectDetailsNameTheShard(played, seeded_);
}

TEST_F(ClusterDashboard, KeyBrowserListsEveryShardsKeysWithTheirShard) {
  MainWindow window(EmbeddedSimulationOptions{}, /*start_running=*/false);
  window.resize(1400, 900);
  window.show();
  KeyBrowserDock* dock = window.keyBrowser();
  ASSERT_NE(dock, nullptr);
  QSignalSpy listed(dock, &KeyBrowserDock::listingShown);
  QSignalSpy failed(dock, &KeyBrowserDock::failureShown);
  openCluster(window, cluster_->url());
  EXPECT_TRUE(dock->isVisible()) << "opening a Redis shows its key browser";
  ASSERT_TRUE(listed.count() > 0 || listed.wait(kWaitMs));
  EXPECT_EQ(failed.count(), 0) << failed.at(0).at(1).toString().toStdString();

  KeyBrowserModel* m = dock->model();
  for (const auto& [key, node] : state_keys_) {
    const int row = m->findRow(QString::fromStdString(key));
    ASSERT_GE(row, 0) << key << " is not listed; status: " << dock->statusText().toStdString();
    EXPECT_EQ(m->index(row, KeyBrowserModel::Problem).data().toString(), QString()) << key;
    EXPECT_EQ(m->index(row, KeyBrowserModel::Key).data(Qt::ToolTipRole).toString(),
              QString::fromStdString(key + "\non shard " + node));
    // 7 of 10 tokens left (the refill of one an hour adds next to nothing).
    const QString level = m->index(row, KeyBrowserModel::Level).data().toString();
    EXPECT_TRUE(level.startsWith(QStringLiteral("7"))) << key << ": " << level.toStdString();
  }
  EXPECT_TRUE(dock->statusText().contains(QStringLiteral("limiter keys")))
      << dock->statusText().toStdString();

  // Selecting a key reads its raw fields on the master that owns it, and says which.
  for (const auto& [key, node] : state_keys_) {
    QSignalSpy raw(dock, &KeyBrowserDock::rawShown);
    ASSERT_TRUE(dock->selectKey(QString::fromStdString(key)));
    ASSERT_TRUE(raw.wait(kWaitMs)) << key;
    EXPECT_TRUE(dock->rawStatusText().contains(QString::fromStdString("shard " + node)))
        << key << ": " << dock->rawStatusText().toStdString();
    EXPECT_GT(dock->rawView()->rowCount(), 0) << key;
  }
}

// Runs last in this file: it changes each rule's config and puts it back (Undo).
TEST_F(ClusterDashboard, TunerTabReadsLoadsAppliesAndUndoesOnEachRulesMaster) {
  const redis::KeySchema schema;
  redis::ClusterClient client(test::cluster_url(*cluster_), test::cluster_options(),
                              SteadyClock::instance());
  redis::ClusterLimiter limiter(client, redis::RedisLimiter(schema));
  for (const Seeded& s : seeded_) {
    SCOPED_TRACE(s.rule + " on " + s.node);
    for (int n = 0; n < 4; ++n) {
      redis::DecideRequest r{s.api_key, {1.0}, true};
      ASSERT_TRUE(limiter.decide(s.rule, r).ok());
    }
    TunerTab tab(QString::fromStdString(cluster_->url()));
    QSignalSpy read(&tab, &TunerTab::configRead);
    tab.livePanel()->setRule(QString::fromStdString(s.rule));
    tab.livePanel()->readLiveConfig();
    ASSERT_TRUE(read.wait(kWaitMs));
    ASSERT_TRUE(tab.livePanel()->liveConfig().has_value())
        << tab.livePanel()->status().toStdString();
    EXPECT_EQ(tab.currentEditor()->params().capacity, 10);

    QSignalSpy loaded(&tab, &TunerTab::traceLoaded);
    tab.loadDecisionStream(QString::fromStdString(s.rule));
    ASSERT_TRUE(loaded.wait(kWaitMs));
    ASSERT_NE(tab.trace(), nullptr);
    EXPECT_EQ(tab.trace()->events.size(), 4u) << "the logged decisions, read on the rule's master";

    tab.livePanel()->setWritesArmed(true);
    tab.candidateEditor()->setParams(test::bucket(Algorithm::token_bucket, 25, 1, 1h));
    QSignalSpy done(&tab, &TunerTab::applyFinished);
    tab.applyPanel()->requestApply();
    ASSERT_NE(tab.applyPanel()->applyDialog(), nullptr)
        << (done.isEmpty() ? std::string("no answer") : done.at(0).at(1).toString().toStdString());
    tab.applyPanel()->applyDialog()->setReason(QStringLiteral("cluster test"));
    tab.applyPanel()->applyDialog()->accept();
    ASSERT_TRUE(done.wait(kWaitMs));
    ASSERT_TRUE(done.at(0).at(0).toBool()) << done.at(0).at(1).toString().toStdString();
    // Written on the master that owns the rule's slot.
    const int port = std::stoi(s.node.substr(s.node.rfind(':') + 1));
    auto owner = cluster_->connect(port);
    auto capacity = owner.command({"HGET", schema.config_key(s.rule), "capacity"});
    ASSERT_TRUE(capacity.ok());
    EXPECT_EQ(capacity->str, "25");

    tab.applyPanel()->undo();
    ASSERT_TRUE(done.wait(kWaitMs));
    ASSERT_TRUE(done.at(1).at(0).toBool()) << done.at(1).at(1).toString().toStdString();
    capacity = owner.command({"HGET", schema.config_key(s.rule), "capacity"});
    ASSERT_TRUE(capacity.ok());
    EXPECT_EQ(capacity->str, "10");
  }
}

}  // namespace
}  // namespace limitscope::ui
