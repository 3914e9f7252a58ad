#include "core/tuner/first_guess.h"

#include <algorithm>
#include <cmath>

#include "core/tuner/candidate.h"
#include "core/tuner/number_text.h"
#include "core/tuner/well_behaved.h"

namespace limitscope::tuner {

namespace {

constexpr std::int64_t kSecondNs = 1'000'000'000;
constexpr std::int64_t kMinuteNs = 60 * kSecondNs;
constexpr double kQuantile = 0.95;

}  // namespace

std::vector<KeyPeaks> key_peaks(const trace::Trace& trace) {
  // Events of each key in time order, then the most cost inside a sliding window of each width.
  std::vector<std::vector<std::uint32_t>> by_key(trace.keys.size());
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    by_key[trace.events[i].key].push_back(static_cast<std::uint32_t>(i));
  }
  const std::int64_t span =
      trace.events.empty() ? 0 : trace.events.back().t_ns - trace.events.front().t_ns;
  const std::int64_t minute = std::clamp<std::int64_t>(span, kSecondNs, kMinuteNs);
  std::vector<KeyPeaks> out(trace.keys.size());
  const auto busiest = [&](const std::vector<std::uint32_t>& idx, std::int64_t width) {
    double best = 0;
    double sum = 0;
    std::size_t from = 0;
    for (std::size_t to = 0; to < idx.size(); ++to) {
      const trace::TraceEvent& e = trace.events[idx[to]];
      sum += e.cost;
      while (trace.events[idx[from]].t_ns <= e.t_ns - width) sum -= trace.events[idx[from++]].cost;
      best = std::max(best, sum);
    }
    return best;
  };
  for (std::size_t k = 0; k < by_key.size(); ++k) {
    out[k].busiest_second = busiest(by_key[k], kSecondNs);
    out[k].busiest_minute =
        busiest(by_key[k], minute) * static_cast<double>(kMinuteNs) / static_cast<double>(minute);
  }
  return out;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(std::clamp(p, 0.0, 1.0) * static_cast<double>(values.size()));
  const auto i = static_cast<std::size_t>(std::max(1.0, rank)) - 1;
  return values[std::min(i, values.size() - 1)];
}

FirstGuess first_guess(const trace::Trace& trace, Algorithm algorithm) {
  const auto peaks = key_peaks(trace);
  const auto keep = well_behaved_keys(trace);
  std::vector<double> second;
  std::vector<double> minute;
  for (std::size_t k = 0; k < peaks.size(); ++k) {
    if (!keep[k]) continue;
    second.push_back(peaks[k].busiest_second);
    minute.push_back(peaks[k].busiest_minute);
  }
  const double big = std::max(1.0, largest_cost(trace));
  const double per_minute = percentile(minute, kQuantile);  // cost units in a key's busiest minute
  const double per_second = percentile(second, kQuantile);
  FirstGuess g;
  g.params.algorithm = algorithm;
  const std::string keys =
      std::to_string(minute.size()) + " well-behaved key" + (minute.size() == 1 ? "" : "s");
  if (is_window_algorithm(algorithm)) {
    g.params.window = std::chrono::seconds(60);
    g.params.limit = std::max(big, round_significant(per_minute, 2));
    g.basis = "limit " + number_text(g.params.limit) +
              " per 60 s: the 95th percentile of a key's busiest minute (" + keys + ")";
  } else {
    g.params.capacity = std::max(big, round_significant(per_second, 2));
    g.params.refill = Rate{std::max(0.01, round_significant(per_minute / 60, 2)), Nanos{kSecondNs}};
    g.basis = "capacity " + number_text(g.params.capacity) +
              ": the 95th percentile of a key's busiest second; refill " +
              number_text(g.params.refill.per_second()) + "/s: of its busiest minute (" + keys +
              ")";
  }
  return g;
}

}  // namespace limitscope::tuner
