#include "core/metrics/series_store.h"

#include <re2/re2.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <mutex>
#include <tuple>

namespace limitscope::metrics {

namespace {
constexpr std::uint64_t kStaleBits = 0x7ff0000000000002ULL;
// RE2 matches in linear time, but a hostile selector could still ask it to compile a huge
// program; real selectors are far shorter than these bounds.
constexpr std::size_t kMaxRegexLength = 512;
constexpr int kMaxRegexNesting = 16;
}  // namespace

double stale_marker() {
  return std::bit_cast<double>(kStaleBits);
}

bool is_stale_marker(double v) {
  return std::bit_cast<std::uint64_t>(v) == kStaleBits;
}

std::string_view match_op_text(MatchOp op) {
  switch (op) {
    case MatchOp::equal:
      return "=";
    case MatchOp::not_equal:
      return "!=";
    case MatchOp::regex_match:
      return "=~";
    case MatchOp::regex_no_match:
      return "!~";
  }
  return "?";
}

Expected<LabelMatcher> LabelMatcher::make(std::string name, MatchOp op, std::string value) {
  LabelMatcher m(std::move(name), op, std::move(value));
  if (op == MatchOp::regex_match || op == MatchOp::regex_no_match) {
    if (m.value_.size() > kMaxRegexLength) {
      return make_error("regex for label " + m.name_ + " is longer than " +
                        std::to_string(kMaxRegexLength) + " characters");
    }
    int depth = 0;
    int max_depth = 0;
    for (char c : m.value_) {
      if (c == '(') max_depth = std::max(max_depth, ++depth);
      if (c == ')') --depth;
    }
    if (max_depth > kMaxRegexNesting) {
      return make_error("regex for label " + m.name_ + " nests groups deeper than " +
                        std::to_string(kMaxRegexNesting));
    }
    // Prometheus anchors label regexes at both ends. RE2 refuses what Go's regexp refuses
    // (nested repetition such as "a**", backreferences), and says why.
    RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<const re2::RE2>("^(?:" + m.value_ + ")$", options);
    if (!re->ok()) {
      return make_error("invalid regex \"" + m.value_ + "\" for label " + m.name_ + ": " +
                        re->error());
    }
    m.regex_ = std::move(re);
  }
  return m;
}

bool LabelMatcher::matches(std::string_view label_value) const {
  switch (op_) {
    case MatchOp::equal:
      return label_value == value_;
    case MatchOp::not_equal:
      return label_value != value_;
    case MatchOp::regex_match:
      return RE2::FullMatch(label_value, *regex_);
    case MatchOp::regex_no_match:
      return !RE2::FullMatch(label_value, *regex_);
  }
  return false;
}

std::string LabelMatcher::to_string() const {
  std::string out = name_;
  out += match_op_text(op_);
  out += '"';
  for (char c : value_) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

// A bounded ring of samples in strictly increasing time order.
struct SeriesStore::Series {
  Labels labels;
  std::size_t capacity = 1;  // samples kept
  std::vector<Sample> ring;  // grows up to capacity (never allocating past it), then wraps
  std::size_t head = 0;      // index of the oldest sample once the ring is full
  // The oldest and newest times, kept beside the ring's pointer: a selection checks and
  // starts its search from them without two cache misses into the ring per series.
  std::int64_t oldest_t = 0;
  std::int64_t newest_t = 0;

  std::size_t size() const { return ring.size(); }
  const Sample& at(std::size_t i) const {
    std::size_t k = head + i;  // < 2 * size: one subtraction instead of a division
    return ring[k >= ring.size() ? k - ring.size() : k];
  }
  const Sample& back() const { return at(ring.size() - 1); }

  // @return true when an old sample had to be evicted.
  bool push(Sample s) {
    newest_t = s.t_ms;
    if (ring.size() < capacity) {
      if (ring.empty()) oldest_t = s.t_ms;
      if (ring.size() == ring.capacity())
        ring.reserve(std::min(capacity, std::max<std::size_t>(64, 2 * ring.size())));
      ring.push_back(s);
      return false;
    }
    ring[head] = s;
    head = (head + 1) % ring.size();
    oldest_t = ring[head].t_ms;
    return true;
  }

  // First index in [lo, hi) whose time is >= t (hi when none).
  std::size_t lower_bound(std::int64_t t, std::size_t lo, std::size_t hi) const {
    while (lo < hi) {
      std::size_t mid = lo + (hi - lo) / 2;
      if (at(mid).t_ms < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // First index whose time is >= t (size() when none). Samples usually come at a steady
  // interval, so the search starts where the mean spacing puts t, gallops from there until
  // t is bracketed, and bisects the bracket: one or two cache lines of the ring instead of
  // a bisection over all of it (which a query into the past, like an alert rule evaluated
  // at an earlier slot, pays for every series it selects).
  std::size_t search(std::int64_t t) const {
    const std::size_t n = size();
    if (n == 0 || t <= oldest_t) return 0;
    const std::int64_t front = oldest_t;
    const std::int64_t newest = newest_t;
    if (t > newest) return n;
    // Here n >= 2 and front < t <= newest.
    const double fraction = static_cast<double>(t - front) / static_cast<double>(newest - front);
    const std::size_t guess =
        std::min(n - 1, static_cast<std::size_t>(fraction * static_cast<double>(n - 1)));
    if (at(guess).t_ms < t) {
      std::size_t lo = guess;  // at(lo) < t
      std::size_t hi = n - 1;  // at(n - 1) = newest >= t
      for (std::size_t step = 1; lo + step < n - 1; step *= 2) {
        if (at(lo + step).t_ms >= t) {
          hi = lo + step;
          break;
        }
        lo += step;
      }
      return lower_bound(t, lo + 1, hi);  // hi qualifies when nothing before it does
    }
    std::size_t hi = guess;  // at(hi) >= t
    std::size_t lo = 0;
    for (std::size_t step = 1; step <= hi; step *= 2) {
      if (at(hi - step).t_ms < t) {
        lo = hi - step + 1;
        break;
      }
      hi -= step;
    }
    return lower_bound(t, lo, hi);
  }

  // The index range [first, last) of samples in [mint, maxt].
  std::pair<std::size_t, std::size_t> range(std::int64_t mint, std::int64_t maxt) const {
    const std::size_t n = size();
    if (n == 0) return {0, 0};
    const std::size_t last = newest_t <= maxt ? n : search(maxt + 1);
    return {std::min(search(mint), last), last};
  }
};

SeriesStore::SeriesStore(SeriesStoreOptions options) : options_(options) {
  if (options_.samples_per_series == 0) options_.samples_per_series = 1;
}

SeriesStore::~SeriesStore() = default;

Expected<SeriesStore::Series*, AppendResult> SeriesStore::find_or_create(const Labels& labels) {
  auto it = series_.find(labels);
  if (it != series_.end()) return it->second.get();
  if (labels.metric_name().empty())
    return AppendResult{AppendStatus::invalid_labels,
                        "series " + labels.to_string() + " has no metric name"};
  for (const auto& [name, value] : labels.pairs()) {
    if (name.empty())
      return AppendResult{AppendStatus::invalid_labels,
                          "series " + labels.to_string() + " has an empty label name"};
  }
  if (series_.size() >= options_.max_series) {
    return AppendResult{AppendStatus::too_many_series,
                        "series " + labels.to_string() + " refused: store holds its maximum of " +
                            std::to_string(options_.max_series) + " series"};
  }
  auto s = std::make_unique<Series>();
  s->labels = labels;
  const auto own = options_.samples_by_name.find(labels.metric_name());
  s->capacity = std::max<std::size_t>(
      1, own != options_.samples_by_name.end() ? own->second : options_.samples_per_series);
  Series* raw = s.get();
  series_.emplace(labels, std::move(s));
  // Kept sorted by labels, so selections by name come out ordered without a sort.
  auto& same_name = by_name_[std::string(labels.metric_name())];
  auto pos =
      std::lower_bound(same_name.begin(), same_name.end(), raw,
                       [](const Series* a, const Series* b) { return a->labels < b->labels; });
  same_name.insert(pos, raw);
  return raw;
}

AppendResult SeriesStore::append(const Labels& labels, Sample sample) {
  std::unique_lock lock(mutex_);
  const Expected<Series*, AppendResult> found = find_or_create(labels);
  if (!found) {
    ++rejected_;
    return found.error();
  }
  Series* s = *found;
  if (s->size() > 0) {
    const Sample& last = s->back();
    if (sample.t_ms < last.t_ms) {
      ++rejected_;
      return {AppendStatus::out_of_order,
              "sample of " + labels.to_string() + " at " + std::to_string(sample.t_ms) +
                  " ms is older than the last one at " + std::to_string(last.t_ms) + " ms"};
    }
    if (sample.t_ms == last.t_ms) {
      ++rejected_;
      return {AppendStatus::duplicate_timestamp, "series " + labels.to_string() +
                                                     " already has a sample at " +
                                                     std::to_string(sample.t_ms) + " ms"};
    }
  }
  if (s->push(sample)) ++dropped_;
  return {};
}

AppendResult SeriesStore::append_stale(const Labels& labels, std::int64_t t_ms) {
  {
    std::shared_lock lock(mutex_);
    auto it = series_.find(labels);
    if (it == series_.end()) return {};
    const Series& s = *it->second;
    if (s.size() > 0 && is_stale_marker(s.back().value)) return {};
  }
  // Only the single writer appends, so the series cannot change between the two locks.
  return append(labels, Sample{t_ms, stale_marker()});
}

std::vector<SeriesSamples> SeriesStore::select(std::span<const LabelMatcher> matchers,
                                               std::int64_t mint_ms, std::int64_t maxt_ms) const {
  return select_impl(matchers, mint_ms, maxt_ms, false);
}

std::vector<SeriesSamples> SeriesStore::select_latest(std::span<const LabelMatcher> matchers,
                                                      std::int64_t mint_ms,
                                                      std::int64_t maxt_ms) const {
  return select_impl(matchers, mint_ms, maxt_ms, true);
}

template <class Take>
bool SeriesStore::scan(std::span<const LabelMatcher> matchers, std::int64_t mint_ms,
                       std::int64_t maxt_ms, bool latest_only, Take&& take) const {
  auto named = std::find_if(matchers.begin(), matchers.end(), [](const LabelMatcher& m) {
    return m.name() == "__name__" && m.op() == MatchOp::equal;
  });
  auto consider = [&](const Series& series) {
    const Labels& labels = series.labels;
    for (auto m = matchers.begin(); m != matchers.end(); ++m) {
      if (m != named && !m->matches(labels)) return;  // the name index answered `named`
    }
    const std::size_t n = series.size();
    if (n == 0 || series.oldest_t > maxt_ms || series.newest_t < mint_ms) return;
    std::size_t first = 0;
    std::size_t last = 0;
    if (latest_only) {  // only the newest sample <= maxt counts: one search, not two
      last = series.newest_t <= maxt_ms ? n : series.search(maxt_ms + 1);
      if (last == 0 || series.at(last - 1).t_ms < mint_ms) return;
      first = last - 1;
    } else {
      std::tie(first, last) = series.range(mint_ms, maxt_ms);
      if (first >= last) return;
    }
    take(series, first, last);
  };
  if (named != matchers.end()) {
    auto it = by_name_.find(named->value());
    if (it != by_name_.end()) {
      for (const Series* series : it->second) consider(*series);
    }
    return true;
  }
  for (const auto& entry : series_) consider(*entry.second);  // named == end(): all checked
  return false;
}

std::vector<SeriesSamples> SeriesStore::select_impl(std::span<const LabelMatcher> matchers,
                                                    std::int64_t mint_ms, std::int64_t maxt_ms,
                                                    bool latest_only) const {
  std::vector<SeriesSamples> out;
  if (maxt_ms < mint_ms) return out;
  std::shared_lock lock(mutex_);
  const bool ordered = scan(matchers, mint_ms, maxt_ms, latest_only,
                            [&](const Series& series, std::size_t first, std::size_t last) {
                              SeriesSamples ss{series.labels, {}};
                              ss.samples.reserve(last - first);
                              for (std::size_t i = first; i < last; ++i)
                                ss.samples.push_back(series.at(i));
                              out.push_back(std::move(ss));
                            });
  lock.unlock();
  if (!ordered) {  // the name index is ordered already
    std::sort(out.begin(), out.end(),
              [](const SeriesSamples& a, const SeriesSamples& b) { return a.labels < b.labels; });
  }
  return out;
}

std::optional<SeriesSamples> SeriesStore::select_series(const Labels& labels, std::int64_t mint_ms,
                                                        std::int64_t maxt_ms) const {
  if (maxt_ms < mint_ms) return std::nullopt;
  std::shared_lock lock(mutex_);
  const auto it = series_.find(labels);
  if (it == series_.end()) return std::nullopt;
  const Series& series = *it->second;
  if (series.size() == 0 || series.oldest_t > maxt_ms || series.newest_t < mint_ms) {
    return std::nullopt;
  }
  const auto [first, last] = series.range(mint_ms, maxt_ms);
  if (first >= last) return std::nullopt;
  SeriesSamples out{series.labels, {}};
  out.samples.reserve(last - first);
  for (std::size_t i = first; i < last; ++i) out.samples.push_back(series.at(i));
  return out;
}

void SeriesStore::visit_newest_numbers(
    std::string_view name, std::int64_t mint_ms, std::int64_t maxt_ms,
    const std::function<void(const Labels&, Sample)>& visit) const {
  if (maxt_ms < mint_ms) return;
  std::shared_lock lock(mutex_);
  const auto named = by_name_.find(std::string(name));
  if (named == by_name_.end()) return;
  for (const Series* series : named->second) {  // in label order (find_or_create)
    if (series->size() == 0 || series->oldest_t > maxt_ms || series->newest_t < mint_ms) continue;
    const auto [first, last] = series->range(mint_ms, maxt_ms);
    for (std::size_t i = last; i > first; --i) {
      const Sample& s = series->at(i - 1);
      if (std::isnan(s.value)) continue;
      visit(series->labels, s);
      break;
    }
  }
}

std::vector<LatestSample> SeriesStore::select_newest(std::span<const LabelMatcher> matchers,
                                                     std::int64_t mint_ms,
                                                     std::int64_t maxt_ms) const {
  std::vector<LatestSample> out;
  if (maxt_ms < mint_ms) return out;
  std::shared_lock lock(mutex_);
  const bool ordered = scan(matchers, mint_ms, maxt_ms, true,
                            [&](const Series& series, std::size_t, std::size_t last) {
                              out.push_back(LatestSample{series.labels, series.at(last - 1)});
                            });
  lock.unlock();
  if (!ordered) {
    std::sort(out.begin(), out.end(),
              [](const LatestSample& a, const LatestSample& b) { return a.labels < b.labels; });
  }
  return out;
}

std::vector<Labels> SeriesStore::drop_idle(std::int64_t before_ms) {
  std::unique_lock lock(mutex_);
  std::vector<Labels> dropped;
  for (auto it = series_.begin(); it != series_.end();) {
    const Series& s = *it->second;
    if (s.size() > 0 && s.back().t_ms >= before_ms) {
      ++it;
      continue;
    }
    auto named = by_name_.find(std::string(s.labels.metric_name()));
    if (named != by_name_.end()) {
      std::erase(named->second, &s);
      if (named->second.empty()) by_name_.erase(named);
    }
    dropped.push_back(it->first);
    it = series_.erase(it);
  }
  return dropped;
}

std::size_t SeriesStore::series_count() const {
  std::shared_lock lock(mutex_);
  return series_.size();
}

std::size_t SeriesStore::sample_count() const {
  std::shared_lock lock(mutex_);
  std::size_t n = 0;
  for (const auto& entry : series_) n += entry.second->size();
  return n;
}

std::uint64_t SeriesStore::dropped_samples() const {
  std::shared_lock lock(mutex_);
  return dropped_;
}

std::uint64_t SeriesStore::rejected_samples() const {
  std::shared_lock lock(mutex_);
  return rejected_;
}

std::size_t SeriesStore::sample_memory_bound_bytes() const {
  std::size_t largest = options_.samples_per_series;
  for (const auto& [name, n] : options_.samples_by_name) largest = std::max(largest, n);
  return options_.max_series * largest * sizeof(Sample);
}

double counter_reset_correction(std::span<const Sample> samples) {
  double correction = 0;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    if (samples[i].value < samples[i - 1].value) correction += samples[i - 1].value;
  }
  return correction;
}

std::size_t counter_resets(std::span<const Sample> samples) {
  std::size_t n = 0;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    if (samples[i].value < samples[i - 1].value) ++n;
  }
  return n;
}

}  // namespace limitscope::metrics
