// Verifies that a probe's discovery keeps to the dashboard's CPU as well as to SCAN's time, on a
// real redis-server with injected clocks: costly keys shrink the budget though SCAN is free,
// the reads of newly found keys are charged to discovery, and a slow SCAN still shrinks it
// when the keys cost nothing.
#include <gtest/gtest.h>

#include "core/probe/redis_probe.h"
#include "support/cpu_per_look.h"
#include "support/redis_server.h"

namespace limitscope::probe {
namespace {

using std::chrono::milliseconds;

using test::CpuPerLook;

/// Wall time that moves `step` at each look: the probe looks before and after its SCAN calls,
/// so they take `step`.
class WallPerLook final : public Clock {
 public:
  explicit WallPerLook(Nanos step) : step_(step) {}
  Nanos now() const override { return step_ * ++looks_; }
  Nanos wall() const override { return now(); }
  bool wait_until(Nanos, CancelToken&) override { return true; }

 private:
  Nanos step_;
  mutable std::int64_t looks_ = 0;
};

class DiscoveryCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = test::RedisServer::start();
    redis::RedisUrl url;
    url.port = server_->port();
    auto c = redis::Connection::open(url, {std::chrono::seconds(2), std::chrono::seconds(30)});
    ASSERT_TRUE(c.ok()) << c.error().message;
    conn_.emplace(std::move(c).value());
  }
  /// `n` keys named prefix + i: gateway hashes ("rl:free-") or keys no profile matches.
  void seed(const std::string& prefix, int n) {
    redis::CommandBatch b;
    for (int i = 0; i < n; ++i)
      b.add({"HSET", prefix + std::to_string(i), "tokens", "30", "ts", "1"});
    ASSERT_TRUE(conn_->pipeline(b).ok());
  }
  static std::vector<LimiterProfile> profiles() {
    return *parse_profiles(
        R"({"profiles": [{"name": "gw", "match": "rl:free-*", "kind": "token_bucket_hash",
        "time_unit": "ms", "capacity": 60, "refill": "1/s"}]})");
  }
  /// 100 ms of SCAN and 10 ms of CPU a refresh, 2,000 keys first, within [100, 50,000].
  ProbeOptions options(const Clock& clock, const CpuClock& cpu) {
    ProbeOptions o;
    o.scan_count = 100;
    o.max_tracked = 100000;
    o.read_ttl = false;
    ScanBudgetOptions b;
    b.time_per_refresh = milliseconds(100);
    b.cpu_per_refresh = milliseconds(10);
    b.min_keys = 100;
    b.max_keys = 50000;
    b.initial_keys = 2000;
    o.adaptive_scan = b;
    o.clock = &clock;
    o.cpu_clock = &cpu;
    return o;
  }
  /// Each refresh's scan_budget over `n` refreshes; each must be ok.
  std::vector<std::size_t> budgets(RedisProbe& probe, int n,
                                   std::vector<std::int64_t>* cpu_ns = nullptr) {
    std::vector<std::size_t> out;
    for (int i = 0; i < n; ++i) {
      auto snap = probe.refresh(*conn_);
      EXPECT_TRUE(snap.ok()) << snap.error().message;
      if (!snap.ok()) break;
      out.push_back(snap->scan_budget);
      if (cpu_ns != nullptr) cpu_ns->push_back(snap->discovery_cpu_ns);
    }
    return out;
  }

  ManualClock still_{Nanos{0}};  // SCAN takes no time at all
  std::unique_ptr<test::RedisServer> server_;
  std::optional<redis::Connection> conn_;
};

TEST_F(DiscoveryCpu, CostlyKeysShrinkTheBudgetThoughScanIsFree) {
  seed("other:", 20000);                   // matched by no profile: SCAN's replies alone cost CPU
  const CpuPerLook cpu(milliseconds(20));  // 20 ms of CPU per refresh's SCAN calls
  RedisProbe probe(profiles(), options(still_, cpu));
  std::vector<std::int64_t> spent;
  // The time share alone would double the budget each refresh (SCAN is free). 20 ms of CPU for
  // 2,000 keys is 10 µs a key: 1,000 fit the 10 ms. The same 20 ms for 1,000 is 20 µs a key,
  // smoothed 15 µs: 666 fit; and so on, down towards the floor.
  EXPECT_EQ(budgets(probe, 8, &spent),
            (std::vector<std::size_t>{2000, 1000, 666, 444, 296, 197, 131, 100}));
  EXPECT_EQ(spent, std::vector<std::int64_t>(8, 20'000'000)) << "no key found: SCAN's CPU only";
}

TEST_F(DiscoveryCpu, ChargesTheReadsOfTheKeysItFoundToDiscovery) {
  seed("rl:free-", 20000);
  const CpuPerLook cpu(milliseconds(10));  // the SCAN calls fit the 10 ms exactly ...
  RedisProbe probe(profiles(), options(still_, cpu));
  auto first = probe.refresh(*conn_);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_GT(first->keys.size(), 0u) << "every key read is one SCAN found";
  // ... but the refresh read only keys SCAN found: its 10 ms are discovery's too, so twice the
  // share was spent and the next refresh asks for half.
  EXPECT_EQ(first->discovery_cpu_ns, 20'000'000);
  auto second = probe.refresh(*conn_);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->scan_budget, 1000u);
}

TEST_F(DiscoveryCpu, ASlowScanStillShrinksTheBudgetWhenKeysCostNothing) {
  seed("other:", 20000);
  const WallPerLook slow(milliseconds(200));  // twice the 100 ms share per refresh's SCAN
  const CpuPerLook costless(Nanos{0});
  RedisProbe probe(profiles(), options(slow, costless));
  EXPECT_EQ(budgets(probe, 4), (std::vector<std::size_t>{2000, 1000, 666, 444})) << "as for CPU";
}

TEST_F(DiscoveryCpu, GrowsWhenBothScanAndKeysAreCheap) {
  seed("other:", 20000);
  const CpuPerLook cheap(milliseconds(1));  // a tenth of the share for 2,000 keys
  RedisProbe probe(profiles(), options(still_, cheap));
  EXPECT_EQ(budgets(probe, 3), (std::vector<std::size_t>{2000, 4000, 8000})) << "twofold at most";
}

}  // namespace
}  // namespace limitscope::probe
