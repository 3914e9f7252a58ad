// Verifies PendingSettlements: a key's corrections add up until its next decision takes them,
// the oldest waiting delta dates the key for flushing, and a full map refuses new keys only.
#include "core/gateway/pending_settlements.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "support/threads.h"

namespace limitscope::gateway {
namespace {

TEST(PendingSettlements, DeltasOfOneKeyAddUpUntilTaken) {
  PendingSettlements p(10);
  EXPECT_TRUE(p.add("gw-free", "k:m", -13, Nanos{1}));
  EXPECT_TRUE(p.add("gw-free", "k:m", 5, Nanos{2}));
  EXPECT_TRUE(p.add("gw-pro", "k:m", 7, Nanos{3}));  // another rule: another key
  EXPECT_EQ(p.size(), 2u);
  EXPECT_EQ(p.take("gw-free", "k:m"), -8);
  EXPECT_EQ(p.take("gw-free", "k:m"), 0) << "taken once";
  EXPECT_EQ(p.take("gw-pro", "k:m"), 7);
  EXPECT_EQ(p.size(), 0u);
}

TEST(PendingSettlements, TheOldestWaitingDeltaDatesTheKey) {
  PendingSettlements p(10);
  p.add("r", "old", 1, Nanos{100});
  p.add("r", "young", 2, Nanos{300});
  p.add("r", "old", 4, Nanos{400});  // keeps its first date: a busy key is flushed in time too
  auto due = p.take_older_than(Nanos{200});
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].rule, "r");
  EXPECT_EQ(due[0].key, "old");
  EXPECT_EQ(due[0].delta, 5);
  EXPECT_TRUE(p.take_older_than(Nanos{299}).empty());
  // A key's date starts again after it was taken.
  p.add("r", "old", 3, Nanos{500});
  auto all = p.take_all();
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].key, "old");
  EXPECT_EQ(all[0].delta, 3);
  EXPECT_EQ(all[1].key, "young");
  EXPECT_EQ(p.size(), 0u);
}

TEST(PendingSettlements, AFullMapRefusesNewKeysButAddsToHeldOnes) {
  PendingSettlements p(2);
  EXPECT_TRUE(p.add("r", "a", 1, Nanos{0}));
  EXPECT_TRUE(p.add("r", "b", 1, Nanos{0}));
  EXPECT_FALSE(p.add("r", "c", 1, Nanos{0}));
  EXPECT_TRUE(p.add("r", "a", 1, Nanos{0}));
  EXPECT_EQ(p.size(), 2u);
  EXPECT_EQ(p.take("r", "c"), 0);
  EXPECT_EQ(p.take("r", "a"), 2);
  EXPECT_TRUE(p.add("r", "c", 1, Nanos{0})) << "room again";
}

TEST(PendingSettlements, TakingWithNothingPendingTakesNoLock) {
  PendingSettlements p(10);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(p.take("r", "k" + std::to_string(i)), 0);
  EXPECT_TRUE(p.take_older_than(Nanos{1'000'000}).empty());
  EXPECT_EQ(p.locks_taken(), 0u) << "every token decision calls take(); most find nothing";
  // With a delta pending anywhere, take() looks under the lock, and finds only its own key's.
  ASSERT_TRUE(p.add("r", "a", 2, Nanos{0}));
  const std::uint64_t after_add = p.locks_taken();
  EXPECT_EQ(after_add, 1u);
  EXPECT_EQ(p.take("r", "b"), 0);
  EXPECT_EQ(p.locks_taken(), after_add + 1);
  EXPECT_EQ(p.size(), 1u);
  EXPECT_EQ(p.take("r", "a"), 2);
  EXPECT_EQ(p.size(), 0u);
  // Empty again (taken, flushed or all taken): back to the fast path.
  const std::uint64_t emptied = p.locks_taken();
  EXPECT_EQ(p.take("r", "a"), 0);
  ASSERT_TRUE(p.add("r", "c", 1, Nanos{5}));
  EXPECT_EQ(p.take_older_than(Nanos{5}).size(), 1u);
  ASSERT_TRUE(p.add("r", "d", 1, Nanos{5}));
  EXPECT_EQ(p.take_all().size(), 1u);
  const std::uint64_t drained = p.locks_taken();
  EXPECT_EQ(drained, emptied + 4);
  EXPECT_EQ(p.take("r", "c"), 0);
  EXPECT_EQ(p.take("r", "d"), 0);
  EXPECT_EQ(p.locks_taken(), drained);
}

TEST(PendingSettlements, ConcurrentAddsAndTakesLoseNothing) {
  PendingSettlements p(100);
  constexpr int kThreads = 4, kEach = 10'000;
  std::vector<double> taken(kThreads, 0);
  test::on_threads(kThreads, [&](int t) {
    for (int i = 0; i < kEach; ++i) {
      p.add("r", "k" + std::to_string(i % 3), 1, Nanos{i});
      if (i % 7 == 0)
        taken[static_cast<std::size_t>(t)] += p.take("r", "k" + std::to_string(i % 3));
    }
  });
  double total = 0;
  for (double x : taken) total += x;
  for (const auto& s : p.take_all()) total += s.delta;
  EXPECT_EQ(total, kThreads * kEach);
}

}  // namespace
}  // namespace limitscope::gateway
