#include "core/metrics/metrics_registry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/metrics/exposition_writer.h"
#include "core/metrics/metric_names.h"

namespace limitscope::metrics {

void Counter::inc(double by) {
  if (!(by >= 0)) return;  // negative or NaN: a counter only goes up
  v_.fetch_add(by, std::memory_order_relaxed);
}

Histogram::Histogram(const std::vector<double>& bounds)
    : bounds_(bounds), counts_(new std::atomic<std::uint64_t>[bounds.size() + 1]) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v) {
  // Bucket i holds bounds_[i-1] < v <= bounds_[i]; the last one is +Inf.
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
  const auto idx = std::isnan(v) ? bounds_.size() : static_cast<std::size_t>(it - bounds_.begin());
  counts_[idx].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

HistogramSnapshot Histogram::snapshot() const {
  HistogramSnapshot s;
  s.cumulative.resize(bounds_.size() + 1);
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    acc += counts_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = acc;
  }
  s.count = acc;  // derived from the buckets, so _count always equals the +Inf bucket
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

MetricFamilyBase::MetricFamilyBase(std::string name, std::string help, MetricType type,
                                   std::vector<std::string> label_names, std::size_t max_series)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      max_series_(max_series) {}

std::size_t MetricFamilyBase::series_count() const {
  std::shared_lock lock(mu_);
  return children_.size();
}

MetricChild& MetricFamilyBase::child(std::span<const std::string_view> values) {
  if (values.size() != label_names_.size()) {
    throw std::invalid_argument(name_ + ": " + std::to_string(values.size()) +
                                " label values given, the family has " +
                                std::to_string(label_names_.size()) + " labels");
  }
  std::string key;
  for (std::string_view v : values) {
    key += v;
    key += '\xff';  // never inside UTF-8 text, so joined keys cannot collide
  }
  {
    std::shared_lock lock(mu_);
    if (auto it = children_.find(key); it != children_.end()) return *it->second.child;
  }
  std::unique_lock lock(mu_);
  if (auto it = children_.find(key); it != children_.end()) return *it->second.child;
  if (children_.size() >= max_series_) {
    overflow_.fetch_add(1, std::memory_order_relaxed);
    if (!overflow_child_) overflow_child_ = make_child();
    return *overflow_child_;
  }
  Entry e;
  e.values.assign(values.begin(), values.end());
  e.child = make_child();
  MetricChild& c = *e.child;
  children_.emplace(std::move(key), std::move(e));
  return c;
}

void MetricFamilyBase::render(std::string& out) const {
  append_help_line(out, name_, help_);
  append_type_line(out, name_, type_);
  std::shared_lock lock(mu_);
  std::vector<const Entry*> sorted;
  sorted.reserve(children_.size());
  for (const auto& [key, e] : children_) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry* a, const Entry* b) { return a->values < b->values; });
  std::vector<LabelView> labels(label_names_.size());
  for (std::size_t i = 0; i < label_names_.size(); ++i) labels[i].name = label_names_[i];
  for (const Entry* e : sorted) {
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i].value = e->values[i];
    render_child(out, labels, *e->child);
  }
  if (overflow_child_) {
    for (auto& l : labels) l.value = names::kOverflowLabelValue;
    render_child(out, labels, *overflow_child_);
  }
}

std::unique_ptr<MetricChild> CounterFamily::make_child() const {
  return std::make_unique<Counter>();
}

void CounterFamily::render_child(std::string& out, std::span<const LabelView> labels,
                                 const MetricChild& c) const {
  append_sample_line(out, name(), labels, static_cast<const Counter&>(c).value());
}

std::unique_ptr<MetricChild> GaugeFamily::make_child() const {
  return std::make_unique<Gauge>();
}

void GaugeFamily::render_child(std::string& out, std::span<const LabelView> labels,
                               const MetricChild& c) const {
  append_sample_line(out, name(), labels, static_cast<const Gauge&>(c).value());
}

HistogramFamily::HistogramFamily(std::string name, std::string help,
                                 std::vector<std::string> label_names, std::size_t max_series,
                                 std::vector<double> bounds)
    : MetricFamilyBase(std::move(name), std::move(help), MetricType::kHistogram,
                       std::move(label_names), max_series),
      bounds_(std::move(bounds)) {
  for (double b : bounds_) {
    std::string s;
    append_value(s, b);
    bound_text_.push_back(std::move(s));
  }
  bound_text_.emplace_back("+Inf");
}

std::unique_ptr<MetricChild> HistogramFamily::make_child() const {
  return std::make_unique<Histogram>(bounds_);
}

void HistogramFamily::render_child(std::string& out, std::span<const LabelView> labels,
                                   const MetricChild& c) const {
  const HistogramSnapshot s = static_cast<const Histogram&>(c).snapshot();
  const std::string bucket = name() + "_bucket";
  for (std::size_t i = 0; i < s.cumulative.size(); ++i) {
    const LabelView le{"le", bound_text_[i]};
    append_sample_line(out, bucket, labels, static_cast<double>(s.cumulative[i]), &le);
  }
  append_sample_line(out, name() + "_sum", labels, s.sum);
  append_sample_line(out, name() + "_count", labels, static_cast<double>(s.count));
}

namespace {

bool valid_name(std::string_view s, bool allow_colon) {
  if (s.empty()) return false;
  auto ok = [allow_colon](char c, bool first) {
    const bool alpha =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
    return alpha || (!first && c >= '0' && c <= '9');
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!ok(s[i], i == 0)) return false;
  }
  return true;
}

}  // namespace

std::optional<Error> MetricsRegistry::check_new(std::string_view name,
                                                const std::vector<std::string>& labels,
                                                bool histogram) const {
  const std::string n(name);
  if (!valid_name(name, true)) return make_error("invalid metric name \"" + n + "\"");
  for (const auto& f : families_) {
    if (f->name() == name) return make_error("metric family " + n + " registered twice");
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto& l = labels[i];
    if (!valid_name(l, false) || l.starts_with("__")) {
      return make_error(n + ": invalid label name \"" + l + "\"");
    }
    if (histogram && l == "le") return make_error(n + ": label \"le\" is reserved for buckets");
    if (std::find(labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(i), l) !=
        labels.begin() + static_cast<std::ptrdiff_t>(i)) {
      return make_error(n + ": label \"" + l + "\" given twice");
    }
  }
  return std::nullopt;
}

namespace {

// Keeps `f` among `families` and returns it.
template <class F>
F* keep(std::vector<std::unique_ptr<MetricFamilyBase>>& families, std::unique_ptr<F> f) {
  F* p = f.get();
  families.push_back(std::move(f));
  return p;
}

}  // namespace

Expected<CounterFamily*> MetricsRegistry::counter(std::string_view name, std::string_view help,
                                                  std::vector<std::string> label_names,
                                                  FamilyOptions options) {
  std::lock_guard lock(mu_);
  if (auto e = check_new(name, label_names, false)) return *e;
  return keep(families_, std::make_unique<CounterFamily>(
                             std::string(name), std::string(help), MetricType::kCounter,
                             std::move(label_names), options.max_series));
}

Expected<GaugeFamily*> MetricsRegistry::gauge(std::string_view name, std::string_view help,
                                              std::vector<std::string> label_names,
                                              FamilyOptions options) {
  std::lock_guard lock(mu_);
  if (auto e = check_new(name, label_names, false)) return *e;
  return keep(families_, std::make_unique<GaugeFamily>(std::string(name), std::string(help),
                                                       MetricType::kGauge, std::move(label_names),
                                                       options.max_series));
}

Expected<HistogramFamily*> MetricsRegistry::histogram(std::string_view name, std::string_view help,
                                                      std::vector<std::string> label_names,
                                                      std::vector<double> bounds,
                                                      FamilyOptions options) {
  std::lock_guard lock(mu_);
  if (auto e = check_new(name, label_names, true)) return *e;
  if (!bounds.empty() && std::isinf(bounds.back()) && bounds.back() > 0) bounds.pop_back();
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && !(bounds[i] > bounds[i - 1]))) {
      return make_error(std::string(name) +
                        ": histogram bounds must be finite and strictly increasing");
    }
  }
  return keep(families_, std::make_unique<HistogramFamily>(std::string(name), std::string(help),
                                                           std::move(label_names),
                                                           options.max_series, std::move(bounds)));
}

std::string MetricsRegistry::render() const {
  std::lock_guard lock(mu_);
  std::string out;
  bool any_overflow = false;
  for (const auto& f : families_) {
    f->render(out);
    any_overflow = any_overflow || f->overflow_count() > 0;
  }
  if (any_overflow) {
    append_help_line(out, names::kSeriesOverflow,
                     "Observations sent to a family's __overflow__ series by its series cap.");
    append_type_line(out, names::kSeriesOverflow, MetricType::kCounter);
    for (const auto& f : families_) {
      if (f->overflow_count() == 0) continue;
      const LabelView family{names::kFamily, f->name()};
      append_sample_line(out, names::kSeriesOverflow, {&family, 1},
                         static_cast<double>(f->overflow_count()));
    }
  }
  return out;
}

}  // namespace limitscope::metrics
