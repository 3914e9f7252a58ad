#pragma once
// A series identity: the metric name plus label pairs, kept sorted by label name so two
// equal label sets compare and hash equal. The metric name is stored as label "__name__",
// as Prometheus does, so matchers treat it like any other label.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace limitscope::metrics {

// Copies share one immutable set (copy-on-write): a copy costs a reference count, not an
// allocation per label, so the store can hand its series' labels to query results, alerts
// and charts without duplicating them. A set changed through set()/erase() while shared is
// copied first. The hash is computed once per set and kept with it, and so is the set
// without __name__ once asked for (without_name(), erase("__name__") of a shared set), so
// PromQL's name dropping does not copy a store series' labels at every evaluation (it costs
// one more copy of such a series' labels, once).
class Labels {
 public:
  using Pairs = std::vector<std::pair<std::string, std::string>>;

  Labels() = default;
  /// Builds from pairs in any order; a later duplicate name replaces an earlier one.
  Labels(std::initializer_list<std::pair<std::string, std::string>> pairs);
  static Labels from_pairs(std::vector<std::pair<std::string, std::string>> pairs);

  /// Sets (or replaces) one label, keeping the order.
  void set(std::string_view name, std::string_view value);
  /// Removes a label; no-op when absent.
  void erase(std::string_view name);
  /// The value, or "" when absent (Prometheus treats absent and empty alike).
  std::string_view get(std::string_view name) const;
  bool has(std::string_view name) const;
  /// The value when the label is present (one search for has() and get() together).
  std::optional<std::string_view> find(std::string_view name) const;

  std::string_view metric_name() const { return get("__name__"); }
  Labels without_name() const;

  const Pairs& pairs() const;
  std::size_t size() const { return pairs().size(); }
  bool empty() const { return pairs().empty(); }

  /// Stable 64-bit hash of the whole set (FNV-1a over names and values).
  std::uint64_t hash() const;
  /// `name{a="x", b="y"}` with the name outside the braces, values escaped as in the
  /// exposition format; `{}` omitted when there are no labels besides the name.
  std::string to_string() const;

  friend bool operator==(const Labels& a, const Labels& b);
  friend bool operator<(const Labels& a, const Labels& b) { return a.pairs() < b.pairs(); }

 private:
  struct Rep;
  /// The set, unshared (copied first when another Labels holds it too), its hash forgotten.
  Pairs& own();

  std::shared_ptr<Rep> rep_;  // nullptr = no labels; never changed while shared
};

struct LabelsHash {
  std::size_t operator()(const Labels& l) const { return static_cast<std::size_t>(l.hash()); }
};

/// One observed value. Time in milliseconds since the Unix epoch, as Prometheus uses.
struct Sample {
  std::int64_t t_ms = 0;
  double value = 0;
};

}  // namespace limitscope::metrics
