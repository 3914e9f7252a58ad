#pragma once
// Reading a test's SeriesStore by metric name and some labels: what a source recorded.

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/series_store.h"

namespace limitscope::test {

/// Every series called `name` whose labels include each pair of `want`, all their samples.
inline std::vector<metrics::SeriesSamples> series_of(const metrics::SeriesStore& store,
                                                     std::string_view name,
                                                     const metrics::Labels& want = {}) {
  auto m = metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal, std::string(name));
  std::vector<metrics::SeriesSamples> out;
  for (auto& s : store.select(std::span(&*m, 1), 0, INT64_MAX)) {
    bool match = true;
    for (const auto& [k, v] : want.pairs()) match = match && s.labels.get(k) == v;
    if (match) out.push_back(std::move(s));
  }
  return out;
}

/// The samples of the first such series, oldest first; empty when there is none.
inline std::vector<metrics::Sample> samples_of(const metrics::SeriesStore& store,
                                               std::string_view name,
                                               const metrics::Labels& want = {}) {
  auto all = series_of(store, name, want);
  return all.empty() ? std::vector<metrics::Sample>{} : std::move(all.front().samples);
}

/// The newest value of the first such series that has a sample; NaN when none has.
inline double latest(const metrics::SeriesStore& store, std::string_view name,
                     const metrics::Labels& want = {}) {
  for (const auto& s : series_of(store, name, want)) {
    if (!s.samples.empty()) return s.samples.back().value;
  }
  return NAN;
}

}  // namespace limitscope::test
