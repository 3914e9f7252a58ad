#pragma once
// The simulation's only source of randomness. Built on std::mt19937_64, whose raw output the
// standard fixes bit for bit; the distributions below are our own arithmetic on those raw
// draws (std::uniform_real_distribution and friends differ between standard libraries), so
// one seed gives byte-identical simulations on every platform.

#include <cstdint>
#include <random>

namespace limitscope {

/// Mixes a seed with a stream number (splitmix64), so every client gets its own independent
/// stream and adding a client never changes the draws of another.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

class SimRandom {
 public:
  explicit SimRandom(std::uint64_t seed) : engine_(seed) {}

  /// One raw 64-bit draw.
  std::uint64_t next() { return engine_(); }
  /// Uniform in [0, 1): the top 53 bits of one draw.
  double uniform01();
  /// Uniform in (0, 1]: never 0, so log() of it is finite.
  double uniform01_open_low();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  /// Uniform integer in [lo, hi] (lo <= hi); bias below 1e-12 for our ranges.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  /// Exponentially distributed with the given rate (> 0), mean 1/rate: Poisson gaps.
  double exponential(double rate);
  /// True with probability p.
  bool chance(double p) { return uniform01() < p; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace limitscope
