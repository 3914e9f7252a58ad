#pragma once
// Random traffic for the tuner's tests: Poisson arrivals over a few keys.

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

#include "core/trace/trace.h"

namespace limitscope::test {

/// Calls add(t_ns, key) `events` times, in time order: exponential gaps at `rate_per_s` from
/// `start_s` seconds, each key drawn uniformly from 0 .. keys − 1. `rng` is the caller's, so
/// add() may draw more (a cost, a token count) from it.
template <class Add>
void poisson_arrivals(std::mt19937_64& rng, std::size_t events, double rate_per_s, int keys,
                      double start_s, Add&& add) {
  std::exponential_distribution<double> gap(rate_per_s);
  std::uniform_int_distribution<int> key(0, keys - 1);
  double now = start_s;
  for (std::size_t i = 0; i < events; ++i) {
    now += gap(rng);
    const int k = key(rng);
    add(static_cast<std::int64_t>(now * 1e9), k);
  }
}

/// poisson_arrivals() as a trace: keys "k0" .. "k<keys − 1>", each cost drawn from `cost`.
template <class CostDistribution>
trace::Trace random_trace(std::uint64_t seed, std::size_t events, double rate_per_s, int keys,
                          CostDistribution cost, double start_s = 0) {
  std::mt19937_64 rng(seed);
  trace::Trace t;
  poisson_arrivals(rng, events, rate_per_s, keys, start_s, [&](std::int64_t t_ns, int k) {
    t.add(t_ns, "k" + std::to_string(k), cost(rng));
  });
  return t;
}

}  // namespace limitscope::test
