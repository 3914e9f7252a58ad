#include "core/dashboard/key_table_order.h"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace limitscope {
namespace {

/// What tells a row apart, in one place for key_identity() and same_key_identity(). The
/// algorithm tells apart the per-tier rows of two sources ("gateway metrics", "prometheus").
auto identity_fields(const KeyRow& r) {
  return std::tie(r.api_key, r.tier, r.model, r.limit, r.node, r.algorithm);
}

/// Each row's identity. A source should not repeat a row, but the table must not break when
/// one does: the n-th repeat of an identity (n >= 1) is told apart by "#n".
std::vector<std::string> identities(const std::vector<KeyRow>& v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const KeyRow& r : v) out.push_back(key_identity(r));
  std::unordered_map<std::string_view, int> seen;
  seen.reserve(v.size());
  bool repeated = false;
  for (const std::string& id : out) repeated = !seen.emplace(id, 0).second || repeated;
  if (!repeated) return out;
  std::unordered_map<std::string, int> count;
  for (std::string& id : out) {
    const int n = count[id]++;
    if (n > 0) id += '#' + std::to_string(n);
  }
  return out;
}

constexpr std::int32_t kAdded = -1;

/// For each row of `after`, its table position before (kAdded for a new row).
std::vector<std::int32_t> match(const std::vector<KeyRow>& before,
                                const std::vector<std::uint32_t>& before_order,
                                const std::vector<KeyRow>& after) {
  std::vector<std::int32_t> position(before.size());  // index in before → table position
  for (std::size_t p = 0; p < before_order.size(); ++p)
    position[before_order[p]] = static_cast<std::int32_t>(p);
  // The usual refresh lists the same rows in the same order as the last one: matched by
  // position, with no hashing.
  bool same = &before == &after;
  if (!same && before.size() == after.size()) {
    same = true;
    for (std::size_t i = 0; same && i < after.size(); ++i)
      same = same_key_identity(before[i], after[i]);
  }
  if (same) return position;
  const std::vector<std::string> ids_before = identities(before);
  const std::vector<std::string> ids_after = identities(after);
  std::unordered_map<std::string_view, std::size_t> index;  // identity → index in before
  index.reserve(before.size());
  for (std::size_t i = 0; i < before.size(); ++i) index.emplace(ids_before[i], i);
  std::vector<std::int32_t> out(after.size(), kAdded);
  for (std::size_t i = 0; i < after.size(); ++i) {
    if (const auto it = index.find(ids_after[i]); it != index.end()) out[i] = position[it->second];
  }
  return out;
}

/// The rows kept, in their order before, then the new ones in the source's order.
std::vector<std::uint32_t> unsorted_order(const std::vector<std::int32_t>& was,
                                          std::size_t before_size) {
  std::vector<std::int32_t> kept(before_size, kAdded);  // table position before → index in after
  std::vector<std::uint32_t> out;
  out.reserve(was.size());
  for (std::size_t i = 0; i < was.size(); ++i) {
    if (was[i] != kAdded) kept[static_cast<std::size_t>(was[i])] = static_cast<std::int32_t>(i);
  }
  for (const std::int32_t i : kept) {
    if (i != kAdded) out.push_back(static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < was.size(); ++i) {
    if (was[i] == kAdded) out.push_back(static_cast<std::uint32_t>(i));
  }
  return out;
}

/// Sorts `order` (indexes in `rows`) by `sort`, stably; a sorted order is left as it is.
void sort_order(std::vector<std::uint32_t>& order, const std::vector<KeyRow>& rows,
                const KeySort& sort) {
  if (sort.column < 0 || sort.column >= key_table::ColumnCount || order.size() < 2) return;
  const auto by = [&](const auto& key) {
    const auto less = [&](std::uint32_t a, std::uint32_t b) {
      return sort.ascending ? key[a] < key[b] : key[b] < key[a];
    };
    if (!std::is_sorted(order.begin(), order.end(), less))
      std::stable_sort(order.begin(), order.end(), less);
  };
  if (key_sort_number(rows[order[0]], sort.column)) {
    std::vector<double> key(rows.size());
    for (const std::uint32_t i : order) key[i] = *key_sort_number(rows[i], sort.column);
    by(key);
  } else {
    std::vector<std::string> key(rows.size());
    for (const std::uint32_t i : order)
      key[i] = key_sort_text(rows[i], sort.column, sort.qualified);
    by(key);
  }
}

KeyTableChange describe(const std::vector<KeyRow>& before,
                        const std::vector<std::uint32_t>& before_order,
                        const std::vector<KeyRow>& after, const std::vector<std::int32_t>& was,
                        std::vector<std::uint32_t> order) {
  KeyTableChange c;
  c.order = std::move(order);
  c.before.resize(c.order.size());
  std::vector<bool> kept(before_order.size(), false);
  std::int32_t last = -1;
  for (std::size_t p = 0; p < c.order.size(); ++p) {
    const std::int32_t from = was[c.order[p]];
    c.before[p] = from;
    if (from == kAdded) continue;
    kept[static_cast<std::size_t>(from)] = true;
    c.moved = c.moved || from < last;
    last = from;
    if (before[before_order[static_cast<std::size_t>(from)]] != after[c.order[p]]) {
      c.changed.push_back(static_cast<std::uint32_t>(p));
    }
  }
  for (std::size_t p = 0; p < kept.size(); ++p) {
    if (!kept[p]) c.removed.push_back(static_cast<std::uint32_t>(p));
  }
  return c;
}

}  // namespace

std::string key_display_name(const KeyRow& r) {
  return r.name.empty() ? r.api_key : r.name;
}

std::string key_qualified_name(const KeyRow& r) {
  std::string text = key_display_name(r);
  if (!r.model.empty()) text += '/' + r.model;
  if (!r.limit.empty()) text += '/' + r.limit;
  return text;
}

std::string key_identity(const KeyRow& r) {
  std::string id;
  std::apply([&](const auto&... field) { ((id += field, id += '\x1f'), ...); }, identity_fields(r));
  return id;
}

bool same_key_identity(const KeyRow& a, const KeyRow& b) {
  return identity_fields(a) == identity_fields(b);
}

std::optional<double> key_sort_number(const KeyRow& r, int column) {
  using namespace key_table;
  switch (column) {
    case Level:
      return r.level;
    case Occupancy:
      return r.occupancy.value_or(-1.0);
    case Rejected:
      return r.rates_reported ? r.rejected_per_s : -1.0;
    case PeakRejected:
      return r.peak_rejected_per_s.value_or(-1.0);
    case Shadow:
      return r.shadow_would_refuse_in_view.value_or(-1.0);
    case Spend:
      return r.spend_reported ? r.spend : -1.0;
    case QuotaBurn:
      return r.quota_reported ? r.quota_burn : -1.0;
    case LastSeen:
      return static_cast<double>(r.last_seen_ms);
    default:
      return std::nullopt;
  }
}

std::string key_sort_text(const KeyRow& r, int column, bool qualified) {
  using namespace key_table;
  switch (column) {
    case Key:
      return qualified ? key_qualified_name(r) : key_display_name(r);
    case Tier:
      return r.tier;
    case Model:
      return r.model;
    case Limit:
      return r.limit;
    case Algorithm:
      return r.algorithm;
    default:
      return {};
  }
}

KeyTableChange diff_key_table(const std::vector<KeyRow>& before,
                              const std::vector<std::uint32_t>& before_order,
                              const std::vector<KeyRow>& after, const KeySort& sort) {
  const std::vector<std::int32_t> was = match(before, before_order, after);
  std::vector<std::uint32_t> order = unsorted_order(was, before_order.size());
  sort_order(order, after, sort);
  return describe(before, before_order, after, was, std::move(order));
}

KeyTableChange diff_key_table_to(const std::vector<KeyRow>& before,
                                 const std::vector<std::uint32_t>& before_order,
                                 const std::vector<KeyRow>& after,
                                 std::vector<std::uint32_t> order) {
  return describe(before, before_order, after, match(before, before_order, after),
                  std::move(order));
}

void KeyTablePublisher::annotate(const std::shared_ptr<DashboardSnapshot>& snapshot) {
  static const std::vector<KeyRow> kNone;
  auto update = std::make_shared<KeyTableUpdate>();
  update->base = m_revision;
  update->revision = ++m_revision;
  update->sort = m_sort;
  update->change = diff_key_table(m_last ? m_last->keys : kNone, m_order, snapshot->keys, m_sort);
  m_order = update->change.order;
  snapshot->key_update = std::move(update);
  m_last = snapshot;
}

}  // namespace limitscope
