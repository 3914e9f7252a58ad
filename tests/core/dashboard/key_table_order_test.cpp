// Verifies the key table's diff and sort as the source worker makes them: rows sorted by the
// operator's column (numbers as numbers, unreported figures below reported ones, text by its
// text, the compact name when the table is narrow), stable across refreshes, new rows after
// the kept ones; only rows whose figures changed listed as changed; rows gone listed at their
// old places; a chain of snapshots numbered so the table can tell it missed one; and, over
// random refreshes, that the change list always turns the table before into the table after.
#include "core/dashboard/key_table_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

namespace limitscope {
namespace {

KeyRow key(const std::string& k, double level, const std::string& model = "m") {
  KeyRow r;
  r.api_key = k;
  r.tier = "free";
  r.model = model;
  r.limit = "requests";
  r.algorithm = "token-bucket";
  r.level = level;
  r.capacity = 60;
  return r;
}

std::vector<std::uint32_t> identity_order(std::size_t n) {
  std::vector<std::uint32_t> o(n);
  for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<std::uint32_t>(i);
  return o;
}

/// The keys of `rows` in `order`.
std::vector<std::string> table(const std::vector<KeyRow>& rows,
                               const std::vector<std::uint32_t>& order) {
  std::vector<std::string> out;
  for (const std::uint32_t i : order) out.push_back(rows[i].api_key + "/" + rows[i].model);
  return out;
}

const KeySort kByLevel{key_table::Level, true, false};

TEST(KeyTableOrder, SortsByTheColumnAndListsOnlyTheRowsThatChanged) {
  const std::vector<KeyRow> first = {key("a", 0.5), key("b", 0.1), key("c", 0.9), key("d", 0.3)};
  const KeyTableChange c0 = diff_key_table({}, {}, first, kByLevel);
  EXPECT_EQ(table(first, c0.order), (std::vector<std::string>{"b/m", "d/m", "a/m", "c/m"}));
  EXPECT_EQ(c0.before, (std::vector<std::int32_t>{-1, -1, -1, -1})) << "every row is new";
  EXPECT_TRUE(c0.changed.empty());
  EXPECT_TRUE(c0.removed.empty());

  // The same rows, the same figures: nothing to publish.
  const KeyTableChange same = diff_key_table(first, c0.order, first, kByLevel);
  EXPECT_EQ(same.order, c0.order);
  EXPECT_TRUE(same.changed.empty());
  EXPECT_FALSE(same.moved);

  // a's rates move (same place), c drops to the bottom of the level order.
  std::vector<KeyRow> second = first;
  second[0].requests_per_s = 4;
  second[2].level = 0.05;
  const KeyTableChange c1 = diff_key_table(first, c0.order, second, kByLevel);
  EXPECT_EQ(table(second, c1.order), (std::vector<std::string>{"c/m", "b/m", "d/m", "a/m"}));
  EXPECT_EQ(c1.before, (std::vector<std::int32_t>{3, 0, 1, 2}));
  EXPECT_EQ(c1.changed, (std::vector<std::uint32_t>{0, 3})) << "c and a, at their new places";
  EXPECT_TRUE(c1.moved);
  EXPECT_TRUE(c1.removed.empty());

  KeySort descending = kByLevel;
  descending.ascending = false;
  const KeyTableChange down = diff_key_table(second, c1.order, second, descending);
  EXPECT_EQ(table(second, down.order), (std::vector<std::string>{"a/m", "d/m", "b/m", "c/m"}));
  EXPECT_TRUE(down.changed.empty()) << "a new order is not a change of figures";
}

TEST(KeyTableOrder, UnsortedRowsKeepTheirPlacesNewOnesComeLastAndGoneOnesAreListed) {
  const std::vector<KeyRow> first = {key("a", 0.5), key("b", 0.1), key("c", 0.9), key("d", 0.3)};
  const std::vector<std::uint32_t> shown = identity_order(first.size());
  // The source lists its rows in another order, drops b and d and adds e and f.
  const std::vector<KeyRow> second = {key("f", 0.2), key("c", 0.9), key("e", 0.4), key("a", 0.5)};
  const KeyTableChange c = diff_key_table(first, shown, second, KeySort{});
  EXPECT_EQ(table(second, c.order), (std::vector<std::string>{"a/m", "c/m", "f/m", "e/m"}));
  EXPECT_EQ(c.before, (std::vector<std::int32_t>{0, 2, -1, -1}));
  EXPECT_EQ(c.removed, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_TRUE(c.changed.empty());
  EXPECT_FALSE(c.moved);
}

TEST(KeyTableOrder, EqualFiguresKeepTheirPlacesWhateverOrderTheSourceListsThem) {
  std::vector<KeyRow> rows;
  for (const char* k : {"p", "q", "r", "s"}) rows.push_back(key(k, 0.5));
  const KeyTableChange c0 = diff_key_table({}, {}, rows, kByLevel);
  std::vector<KeyRow> reversed(rows.rbegin(), rows.rend());
  const KeyTableChange c1 = diff_key_table(rows, c0.order, reversed, kByLevel);
  EXPECT_EQ(table(reversed, c1.order), table(rows, c0.order));
  EXPECT_FALSE(c1.moved);
}

TEST(KeyTableOrder, FiguresSortAsNumbersUnreportedLastAndTextByWhatTheCellSays) {
  KeyRow quiet = key("quiet", 0.5);
  quiet.rates_reported = false;  // reads "—": below every reported rate
  KeyRow busy = key("busy", 0.5);
  busy.rejected_per_s = 10;
  KeyRow idle = key("idle", 0.5);
  idle.rejected_per_s = 0;
  const std::vector<KeyRow> rows = {busy, quiet, idle};
  const KeyTableChange by_rate =
      diff_key_table({}, {}, rows, KeySort{key_table::Rejected, true, false});
  EXPECT_EQ(table(rows, by_rate.order), (std::vector<std::string>{"quiet/m", "idle/m", "busy/m"}));

  // Text: the name, else the key; qualified, with the model and limit.
  KeyRow named = key("zzz", 0.5, "m2");
  named.name = "acme";
  KeyRow other = key("acme", 0.5, "m1");
  const std::vector<KeyRow> text = {named, other, key("bravo", 0.5)};
  const KeyTableChange wide = diff_key_table({}, {}, text, KeySort{key_table::Key, true, false});
  EXPECT_EQ(table(text, wide.order), (std::vector<std::string>{"zzz/m2", "acme/m1", "bravo/m"}))
      << "the two 'acme' rows tie and keep the source's order";
  const KeyTableChange narrow = diff_key_table({}, {}, text, KeySort{key_table::Key, true, true});
  EXPECT_EQ(table(text, narrow.order), (std::vector<std::string>{"acme/m1", "zzz/m2", "bravo/m"}));
  EXPECT_EQ(key_qualified_name(named), "acme/m2/requests");
  named.limit = "llm_tokens";
  EXPECT_EQ(key_qualified_name(named), "acme/m2/llm_tokens");
}

TEST(KeyTableOrder, ARepeatedRowStaysTwoRows) {
  const std::vector<KeyRow> first = {key("a", 0.1), key("a", 0.2), key("b", 0.3)};
  const KeyTableChange c0 = diff_key_table({}, {}, first, kByLevel);
  const std::vector<KeyRow> second = {key("b", 0.3), key("a", 0.1), key("a", 0.2)};
  const KeyTableChange c1 = diff_key_table(first, c0.order, second, kByLevel);
  EXPECT_EQ(c1.order.size(), 3u);
  EXPECT_TRUE(c1.removed.empty());
  EXPECT_EQ(std::count(c1.before.begin(), c1.before.end(), -1), 0);
}

TEST(KeyTableOrder, ThePublisherNumbersItsSnapshotsAndSortsAsAsked) {
  KeyTablePublisher publisher;
  publisher.set_sort(kByLevel);
  auto s1 = std::make_shared<DashboardSnapshot>();
  s1->keys = {key("a", 0.5), key("b", 0.1)};
  publisher.annotate(s1);
  ASSERT_TRUE(s1->key_update);
  EXPECT_EQ(s1->key_update->base, 0u);
  EXPECT_EQ(s1->key_update->revision, 1u);
  EXPECT_EQ(table(s1->keys, s1->key_update->change.order),
            (std::vector<std::string>{"b/m", "a/m"}));

  auto s2 = std::make_shared<DashboardSnapshot>();
  s2->keys = {key("a", 0.5), key("b", 0.9), key("c", 0.7)};
  KeySort descending = kByLevel;
  descending.ascending = false;
  publisher.set_sort(descending);
  publisher.annotate(s2);
  EXPECT_EQ(s2->key_update->base, 1u);
  EXPECT_EQ(s2->key_update->revision, 2u);
  EXPECT_EQ(s2->key_update->sort, descending);
  const KeyTableChange& c = s2->key_update->change;
  EXPECT_EQ(table(s2->keys, c.order), (std::vector<std::string>{"b/m", "c/m", "a/m"}));
  EXPECT_EQ(c.before, (std::vector<std::int32_t>{0, -1, 1}));
  EXPECT_EQ(c.changed, (std::vector<std::uint32_t>{0}));

  // A table that missed s2 goes from s1's rows straight to s2's order.
  const KeyTableChange skip =
      diff_key_table_to(s1->keys, s1->key_update->change.order, s2->keys, c.order);
  EXPECT_EQ(skip.order, c.order);
  EXPECT_EQ(skip.before, c.before);
}

// Over random refreshes (rows come and go, figures move, the source shuffles its order), the
// change list turns the table before into the table after: applying before[] to the rows shown
// gives the new order's rows, removed[] is exactly the rows gone, changed[] exactly the kept
// rows whose figures differ, moved whether the kept rows changed order, and the order is sorted.
TEST(KeyTableOrder, RandomRefreshesChangeTheTableIntoTheNextOne) {
  std::mt19937 rng(22);
  std::uniform_real_distribution<double> level(0, 1);
  std::vector<KeyRow> rows;
  std::vector<std::uint32_t> shown;
  int next_key = 0;
  for (int refresh = 0; refresh < 200; ++refresh) {
    const KeySort sort{refresh % 50 < 25 ? key_table::Level : key_table::Key, refresh % 3 != 0,
                       false};
    std::vector<KeyRow> after;
    for (const KeyRow& r : rows) {
      if (rng() % 10 == 0) continue;  // gone
      KeyRow k = r;
      if (rng() % 4 == 0) k.level = std::round(level(rng) * 10) / 10;  // ties happen
      after.push_back(k);
    }
    for (unsigned n = rng() % 8; n > 0; --n)
      after.push_back(key("k" + std::to_string(next_key++), std::round(level(rng) * 10) / 10));
    std::shuffle(after.begin(), after.end(), rng);

    const KeyTableChange c = diff_key_table(rows, shown, after, sort);
    ASSERT_EQ(c.order.size(), after.size());
    ASSERT_EQ(std::set<std::uint32_t>(c.order.begin(), c.order.end()).size(), after.size());
    const std::vector<std::string> was = table(rows, shown);
    std::set<std::string> still;
    std::vector<std::uint32_t> changed;
    std::int32_t last = -1;
    bool moved = false;
    for (std::size_t p = 0; p < c.order.size(); ++p) {
      const KeyRow& now = after[c.order[p]];
      still.insert(now.api_key + "/" + now.model);
      if (c.before[static_cast<std::size_t>(p)] < 0) continue;
      const auto from = static_cast<std::size_t>(c.before[p]);
      ASSERT_EQ(was[from], now.api_key + "/" + now.model) << "refresh " << refresh;
      if (rows[shown[from]] != now) changed.push_back(static_cast<std::uint32_t>(p));
      moved = moved || c.before[p] < last;
      last = c.before[p];
    }
    EXPECT_EQ(c.changed, changed) << "refresh " << refresh;
    EXPECT_EQ(c.moved, moved) << "refresh " << refresh;
    std::vector<std::uint32_t> removed;
    for (std::size_t p = 0; p < was.size(); ++p) {
      if (!still.count(was[p])) removed.push_back(static_cast<std::uint32_t>(p));
    }
    EXPECT_EQ(c.removed, removed) << "refresh " << refresh;
    for (std::size_t p = 1; p < c.order.size(); ++p) {
      const KeyRow& a = after[c.order[p - 1]];
      const KeyRow& b = after[c.order[p]];
      if (sort.column == key_table::Level) {
        EXPECT_TRUE(sort.ascending ? a.level <= b.level : a.level >= b.level)
            << "refresh " << refresh;
      } else {
        EXPECT_TRUE(sort.ascending ? a.api_key <= b.api_key : a.api_key >= b.api_key)
            << "refresh " << refresh;
      }
    }
    rows = after;
    shown = c.order;
  }
}

}  // namespace
}  // namespace limitscope
