// Verifies decisions while a rule's slot migrates between masters under load (CLUSTER SETSLOT
// IMPORTING/MIGRATING, MIGRATE one key at a time, SETSLOT NODE): callers see no error, the
// ASK/TRYAGAIN path is taken, and every admitted decision is in the moved state exactly once
// (nothing lost, nothing doubled).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "cluster_test_support.h"
#include "core/redis/state_codec.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;

TEST(ClusterMigration, DecisionsDuringASlotMigrationAreNeitherLostNorDoubled) {
  auto cluster = RedisCluster::start();
  const KeySchema schema("lsmig:");
  // This migration is slowed down on purpose (each key waits for a caller to meet it), so
  // callers may see TRYAGAIN for longer than the default 1 s budget of a real migration.
  ClusterOptions options = test::cluster_options(4);
  options.retry_budget = 20s;
  ClusterClient client(test::cluster_url(*cluster), options, SteadyClock::instance());
  ClusterLimiter limiter(client, RedisLimiter(schema));
  const auto rules = test::rules_per_master(*cluster, schema, "mig", 1);
  const std::string rule = rules.begin()->second.front();
  const std::string other = std::next(rules.begin())->second.front();
  // A bucket so large it admits everything, refilled by one token an hour: its level says
  // how many were admitted.
  constexpr double kCapacity = 1e9;
  for (const auto& r : {rule, other}) {
    auto set = set_config(client, schema, r,
                          single_limit(test::bucket(Algorithm::token_bucket, kCapacity, 1, 1h)),
                          ChangeInfo{"test", "", std::nullopt});
    ASSERT_TRUE(set.ok()) << set.error().message;
  }
  constexpr int kKeys = 12;
  auto key = [](long long i) { return "k" + std::to_string(i % kKeys); };

  std::atomic<bool> stop{false};
  std::atomic<long long> admitted{0}, errors{0}, calls{0};
  std::string first_error;
  std::mutex error_mu;
  auto tally = [&](const Result<RedisDecision>& d) {
    if (d.ok() && d->decision.allowed) {
      ++admitted;
    } else {
      ++errors;
      std::lock_guard lock(error_mu);
      if (first_error.empty()) first_error = d.ok() ? "refused" : d.error().message;
    }
  };
  std::vector<std::thread> workers;
  // One worker per way of deciding: single calls, one rule's batches, multi-rule batches.
  workers.emplace_back([&] {
    for (long long i = 0; !stop; ++i, ++calls)
      tally(limiter.decide(rule, {key(i), {1.0}, false, std::nullopt}));
  });
  workers.emplace_back([&] {
    for (long long i = 0; !stop; i += 4, ++calls) {
      std::vector<DecideRequest> batch;
      for (long long j = 0; j < 4; ++j) batch.push_back({key(i + j), {1.0}, false, std::nullopt});
      auto got = limiter.decide_batch(rule, batch, 2);
      if (!got.ok()) {
        errors += 4;
        std::lock_guard lock(error_mu);
        if (first_error.empty()) first_error = got.error().message;
        continue;
      }
      for (const auto& d : *got) tally(d);
    }
  });
  std::atomic<long long> other_admitted{0};
  workers.emplace_back([&] {
    for (long long i = 0; !stop; i += 2, ++calls) {
      const auto got = limiter.decide_many({{rule, {key(i), {1.0}, false, std::nullopt}},
                                            {other, {key(i), {1.0}, false, std::nullopt}}},
                                           16);
      tally(got[0]);
      if (got[1].ok() && got[1]->decision.allowed) ++other_admitted;
    }
  });

  auto progressed = [&](long long by) {
    const long long start = calls;
    return RedisCluster::wait_for([&] { return calls >= start + by; }, 10s);
  };
  ASSERT_TRUE(progressed(30));
  const int slot = rule_slot(schema, rule);
  const int from = cluster->master_port_of_slot(slot);
  int to = 0;
  for (const auto& n : cluster->nodes()) {
    if (n.master && n.port != from) to = n.port;
  }
  const auto seen_before = client.stats();
  // After each migrated key, wait until some caller has met the half-moved slot.
  cluster->migrate_slot(slot, to, 1, [&] {
    const auto s0 = client.stats();
    RedisCluster::wait_for(
        [&] {
          const auto s = client.stats();
          return s.ask + s.tryagain + s.moved > s0.ask + s0.tryagain + s0.moved;
        },
        200ms);
  });
  ASSERT_TRUE(progressed(30));
  stop = true;
  for (auto& w : workers) w.join();

  EXPECT_EQ(errors.load(), 0) << first_error;
  const auto seen = client.stats();
  EXPECT_GT(seen.ask + seen.tryagain, seen_before.ask + seen_before.tryagain)
      << "the migration window was never met";
  EXPECT_EQ(cluster->master_port_of_slot(slot), to);

  // Every admitted decision took one token from its key's bucket, now all on the new owner.
  auto owner = cluster->connect(to);
  double taken = 0;
  for (int k = 0; k < kKeys; ++k) {
    auto raw = owner.command({"GET", schema.state_key(rule, "k" + std::to_string(k))});
    ASSERT_TRUE(raw.ok()) << raw.error().message;
    const auto state = decode_token_bucket_state(raw->str);
    ASSERT_TRUE(raw->is_string() && state) << "key k" << k << " is not on the new owner";
    taken += kCapacity - state->tokens;
  }
  // The refill (1 token/hour) adds well under one token over the test.
  EXPECT_NEAR(taken, static_cast<double>(admitted.load()), 0.5);
  EXPECT_GT(other_admitted.load(), 0);
}

}  // namespace
}  // namespace limitscope::redis
