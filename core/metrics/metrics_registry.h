#pragma once
// Thread-safe metric families (counter, gauge, histogram) with labels, rendered in the text
// exposition format 0.0.4. Label values are given at observation; each label-value
// combination gets one child, created once and cached, so a hot path can keep the reference
// and update it with atomics alone. Each family caps its series: past the cap, observations
// go to one series whose label values are all "__overflow__", and are counted.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/expected.h"
#include "core/metrics/exposition_parser.h"

namespace limitscope::metrics {

/// A child series of a family; the concrete types below.
class MetricChild {
 public:
  virtual ~MetricChild() = default;
};

/// Monotonic counter. inc() ignores negative and NaN amounts (a counter never goes down).
class Counter final : public MetricChild {
 public:
  void inc(double by = 1.0);
  double value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> v_{0.0};
};

class Gauge final : public MetricChild {
 public:
  void set(double v) { v_.store(v, std::memory_order_relaxed); }
  void add(double by) { v_.fetch_add(by, std::memory_order_relaxed); }
  void inc() { add(1.0); }
  void dec() { add(-1.0); }
  double value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> v_{0.0};
};

struct HistogramSnapshot {
  std::vector<std::uint64_t> cumulative;  // one per bound, then the +Inf bucket
  double sum = 0;
  std::uint64_t count = 0;  // equals cumulative.back()
};

class Histogram final : public MetricChild {
 public:
  /// @param bounds upper bounds, strictly increasing, finite; shared with the family
  explicit Histogram(const std::vector<double>& bounds);
  /// Counts v in the first bucket whose bound is >= v (NaN goes to +Inf only).
  void observe(double v);
  HistogramSnapshot snapshot() const;

 private:
  const std::vector<double>& bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // per bucket, not cumulative
  std::atomic<double> sum_{0.0};
};

class MetricFamilyBase {
 public:
  MetricFamilyBase(std::string name, std::string help, MetricType type,
                   std::vector<std::string> label_names, std::size_t max_series);
  virtual ~MetricFamilyBase() = default;
  MetricFamilyBase(const MetricFamilyBase&) = delete;
  MetricFamilyBase& operator=(const MetricFamilyBase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  MetricType type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  /// Distinct series, not counting the overflow series.
  std::size_t series_count() const;
  /// Observations routed to the overflow series since the family was made.
  std::uint64_t overflow_count() const { return overflow_.load(std::memory_order_relaxed); }

  /// Appends HELP, TYPE and every series, children sorted by label values.
  void render(std::string& out) const;

 protected:
  /// The child for these label values (created on first use, or the overflow child).
  /// Throws std::invalid_argument when the number of values differs from label_names().
  MetricChild& child(std::span<const std::string_view> values);
  virtual std::unique_ptr<MetricChild> make_child() const = 0;
  virtual void render_child(std::string& out, std::span<const LabelView> labels,
                            const MetricChild& c) const = 0;

 private:
  struct Entry {
    std::vector<std::string> values;
    std::unique_ptr<MetricChild> child;
  };

  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> label_names_;
  std::size_t max_series_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, Entry> children_;  // key: values joined by '\xff'
  std::unique_ptr<MetricChild> overflow_child_;      // created when first needed
  std::atomic<std::uint64_t> overflow_{0};
};

class CounterFamily final : public MetricFamilyBase {
 public:
  using MetricFamilyBase::MetricFamilyBase;
  /// @param values label values in the order of label_names()
  Counter& with(std::initializer_list<std::string_view> values) {
    return static_cast<Counter&>(child({values.begin(), values.size()}));
  }
  Counter& with(std::span<const std::string_view> values) {
    return static_cast<Counter&>(child(values));
  }

 private:
  std::unique_ptr<MetricChild> make_child() const override;
  void render_child(std::string& out, std::span<const LabelView> labels,
                    const MetricChild& c) const override;
};

class GaugeFamily final : public MetricFamilyBase {
 public:
  using MetricFamilyBase::MetricFamilyBase;
  Gauge& with(std::initializer_list<std::string_view> values) {
    return static_cast<Gauge&>(child({values.begin(), values.size()}));
  }
  Gauge& with(std::span<const std::string_view> values) {
    return static_cast<Gauge&>(child(values));
  }

 private:
  std::unique_ptr<MetricChild> make_child() const override;
  void render_child(std::string& out, std::span<const LabelView> labels,
                    const MetricChild& c) const override;
};

class HistogramFamily final : public MetricFamilyBase {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::size_t max_series, std::vector<double> bounds);
  Histogram& with(std::initializer_list<std::string_view> values) {
    return static_cast<Histogram&>(child({values.begin(), values.size()}));
  }
  Histogram& with(std::span<const std::string_view> values) {
    return static_cast<Histogram&>(child(values));
  }
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::unique_ptr<MetricChild> make_child() const override;
  void render_child(std::string& out, std::span<const LabelView> labels,
                    const MetricChild& c) const override;
  std::vector<double> bounds_;
  std::vector<std::string> bound_text_;  // the le values, formatted once
};

struct FamilyOptions {
  std::size_t max_series = 10'000;  // per family; beyond it, the "__overflow__" series
};

/// Owns families; registration validates names and refuses duplicates.
class MetricsRegistry {
 public:
  /// @return the family (owned by the registry, valid as long as it), or why not
  Expected<CounterFamily*> counter(std::string_view name, std::string_view help,
                                   std::vector<std::string> label_names,
                                   FamilyOptions options = {});
  Expected<GaugeFamily*> gauge(std::string_view name, std::string_view help,
                               std::vector<std::string> label_names, FamilyOptions options = {});
  /// @param bounds strictly increasing finite upper bounds; a trailing +Inf is dropped
  Expected<HistogramFamily*> histogram(std::string_view name, std::string_view help,
                                       std::vector<std::string> label_names,
                                       std::vector<double> bounds, FamilyOptions options = {});

  /// The whole registry in text format 0.0.4, families in registration order, then
  /// limitscope_metric_series_overflow_total when any family has overflowed.
  std::string render() const;

 private:
  std::optional<Error> check_new(std::string_view name, const std::vector<std::string>& labels,
                                 bool histogram) const;

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<MetricFamilyBase>> families_;
};

}  // namespace limitscope::metrics
