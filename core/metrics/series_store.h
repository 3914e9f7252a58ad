#pragma once
// SeriesStore: the in-memory time-series database behind charts, PromQL and alert rules.
// Each series keeps its samples in a bounded ring buffer (oldest dropped first, counted), so
// memory stays bounded however long the dashboard runs. One writer and many readers may use a
// store at once (a shared mutex guards it).
//
// Staleness follows Prometheus: a series that disappears gets a "stale marker", a NaN with a
// reserved bit pattern; an instant-vector lookup that lands on a stale marker yields no value.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/common/expected.h"
#include "core/metrics/labels.h"

namespace re2 {
class RE2;
}

namespace limitscope::metrics {

/// Prometheus's stale-marker NaN (bit pattern 0x7ff0000000000002).
double stale_marker();
/// True only for the stale-marker bit pattern, not for other NaNs.
bool is_stale_marker(double v);

enum class MatchOp { equal, not_equal, regex_match, regex_no_match };

/// `=` `!=` `=~` `!~`
std::string_view match_op_text(MatchOp op);

/// One label matcher of a selector. Regexes are RE2's, as Prometheus's (Go's regexp is RE2's
/// syntax and semantics: UTF-8, no backreferences, inline flags such as `(?i)`), matched in
/// time linear in the value, never backtracking; fully anchored as in Prometheus
/// (`^(?:value)$`). An absent label matches as the empty string, so `{a=""}` selects series
/// without label `a`.
class LabelMatcher {
 public:
  /// @return the matcher, or an error naming the invalid regex.
  static Expected<LabelMatcher> make(std::string name, MatchOp op, std::string value);

  const std::string& name() const { return name_; }
  MatchOp op() const { return op_; }
  const std::string& value() const { return value_; }

  /// @param label_value the series' value for name(), "" when the label is absent.
  bool matches(std::string_view label_value) const;
  /// True when the whole label set passes this matcher.
  bool matches(const Labels& labels) const { return matches(labels.get(name_)); }
  /// `name="value"` with the value escaped.
  std::string to_string() const;

 private:
  LabelMatcher(std::string name, MatchOp op, std::string value)
      : name_(std::move(name)), op_(op), value_(std::move(value)) {}

  std::string name_;
  MatchOp op_;
  std::string value_;
  std::shared_ptr<const re2::RE2> regex_;  // set for regex ops only
};

struct SeriesStoreOptions {
  std::size_t samples_per_series = 8192;  ///< ring capacity; oldest samples drop beyond it
  std::size_t max_series = 100000;        ///< appends creating a series beyond this are refused
  /// Ring capacity of the series of these metric names instead (the many per-key series keep
  /// less history than the few aggregate ones).
  std::map<std::string, std::size_t, std::less<>> samples_by_name = {};
};

enum class AppendStatus { ok, out_of_order, duplicate_timestamp, too_many_series, invalid_labels };

/// Result of one append: ok, or why the sample was refused (nothing changed then).
struct AppendResult {
  AppendStatus status = AppendStatus::ok;
  std::string reason;  ///< one line naming the series and the cause; empty when ok
  bool ok() const { return status == AppendStatus::ok; }
};

/// A series and its samples in a queried time range, oldest first. Samples may include stale
/// markers (see is_stale_marker); PromQL evaluation interprets them.
struct SeriesSamples {
  Labels labels;
  std::vector<Sample> samples;
};

/// A series and its newest sample in a queried time range (SeriesStore::select_newest).
struct LatestSample {
  Labels labels;
  Sample sample;
};

class SeriesStore {
 public:
  explicit SeriesStore(SeriesStoreOptions options = {});
  ~SeriesStore();
  SeriesStore(const SeriesStore&) = delete;
  SeriesStore& operator=(const SeriesStore&) = delete;

  /// Appends one sample. Timestamps per series must increase strictly: an older or equal
  /// timestamp is refused with a reason, as Prometheus's TSDB does. A NaN value is stored as
  /// is (it is a valid sample); use append_stale() for staleness.
  /// @param labels series identity, must contain a non-empty `__name__`.
  AppendResult append(const Labels& labels, Sample sample);

  /// Marks the series stale at t_ms (it vanished from a scrape). No-op (ok) for an unknown
  /// series or one already stale.
  AppendResult append_stale(const Labels& labels, std::int64_t t_ms);

  /// Every series passing all matchers, with its samples in [mint_ms, maxt_ms] (both
  /// inclusive). Series with no sample in range are left out. Ordered by labels.
  /// @param matchers AND-ed; an empty list selects every series.
  std::vector<SeriesSamples> select(std::span<const LabelMatcher> matchers, std::int64_t mint_ms,
                                    std::int64_t maxt_ms) const;

  /// As select(), but each series carries only its newest sample in [mint_ms, maxt_ms] (what
  /// an instant-vector selector needs; copies one sample per series instead of all).
  std::vector<SeriesSamples> select_latest(std::span<const LabelMatcher> matchers,
                                           std::int64_t mint_ms, std::int64_t maxt_ms) const;

  /// The series whose labels are exactly `labels`, with its samples in [mint_ms, maxt_ms]; none
  /// when there is no such series or it has no sample in range. One hash lookup: what a caller
  /// that already holds a series' labels (from a select) uses to read more of it, instead of
  /// matching every series of its name against each label.
  std::optional<SeriesSamples> select_series(const Labels& labels, std::int64_t mint_ms,
                                             std::int64_t maxt_ms) const;

  /// Calls `visit(labels, sample)` for every series named `name` with a number (not NaN, not
  /// a stale marker) among its samples in [mint_ms, maxt_ms], with the newest such sample, in
  /// label order, under the store's read lock. Nothing is copied: `visit` copies what it keeps
  /// and must not call the store. What ranks thousands of series to draw a few (the charts'
  /// emptiest or fullest keys) uses it instead of a select() that copies every series.
  void visit_newest_numbers(std::string_view name, std::int64_t mint_ms, std::int64_t maxt_ms,
                            const std::function<void(const Labels&, Sample)>& visit) const;

  /// As select_latest(), without a sample vector per series (PromQL's instant selectors).
  std::vector<LatestSample> select_newest(std::span<const LabelMatcher> matchers,
                                          std::int64_t mint_ms, std::int64_t maxt_ms) const;

  /// Removes every series whose newest sample is older than before_ms (keys no longer read:
  /// expired, or let go for the tracking cap), so a long session holds the series of the
  /// keys it follows now, not of every key it ever saw. @return the labels removed
  std::vector<Labels> drop_idle(std::int64_t before_ms);

  std::size_t series_count() const;
  std::size_t sample_count() const;
  /// Samples evicted from full rings since construction.
  std::uint64_t dropped_samples() const;
  /// Appends refused (out of order, duplicate, series limit) since construction.
  std::uint64_t rejected_samples() const;
  /// Upper bound of sample memory: max_series × the largest ring capacity × sizeof(Sample)
  /// bytes (label strings come on top, bounded by max_series). A ring grows with its samples
  /// and never past its capacity.
  std::size_t sample_memory_bound_bytes() const;
  const SeriesStoreOptions& options() const { return options_; }

 private:
  struct Series;
  /// The series of `labels`, created when new. @return it, or why it cannot be (its labels
  /// are invalid, or the store is full)
  Expected<Series*, AppendResult> find_or_create(const Labels& labels);
  std::vector<SeriesSamples> select_impl(std::span<const LabelMatcher> matchers,
                                         std::int64_t mint_ms, std::int64_t maxt_ms,
                                         bool latest_only) const;
  // Calls take(series, first, last) for every series passing `matchers` with samples
  // [first, last) in [mint_ms, maxt_ms] (the newest only with latest_only); lock held.
  // @return true when the series came in label order (by the name index)
  template <class Take>
  bool scan(std::span<const LabelMatcher> matchers, std::int64_t mint_ms, std::int64_t maxt_ms,
            bool latest_only, Take&& take) const;

  SeriesStoreOptions options_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<Labels, std::unique_ptr<Series>, LabelsHash> series_;
  // Series by metric name: most selectors name their metric, so select() need not visit all.
  std::unordered_map<std::string, std::vector<const Series*>> by_name_;
  std::uint64_t dropped_ = 0;
  std::uint64_t rejected_ = 0;
};

/// Sum of the drops of a counter over samples (oldest first): each time a value falls below
/// its predecessor the counter was reset, and the predecessor's value is added back, as
/// Prometheus's rate()/increase() do. @return 0 for fewer than two samples.
double counter_reset_correction(std::span<const Sample> samples);
/// Number of resets (a value lower than the previous one) in samples.
std::size_t counter_resets(std::span<const Sample> samples);

}  // namespace limitscope::metrics
