#include "core/sim/sim_random.h"

#include <cmath>

namespace limitscope {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double SimRandom::uniform01() {
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

double SimRandom::uniform01_open_low() {
  return (static_cast<double>(engine_() >> 11) + 1.0) * 0x1.0p-53;
}

std::int64_t SimRandom::uniform_int(std::int64_t lo, std::int64_t hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;  // 0 means the full 2^64 range
  if (span == 0) return static_cast<std::int64_t>(engine_());
  // Modulo bias is span / 2^64: below 1e-12 for every span the simulation uses.
  return lo + static_cast<std::int64_t>(engine_() % span);
}

double SimRandom::exponential(double rate) {
  // Inverse CDF. The one libm call in the simulation: results are rounded to whole
  // nanoseconds by the caller, so a last-bit difference between math libraries almost never
  // shows; same binary + same seed is always byte-identical.
  return -std::log(uniform01_open_low()) / rate;
}

}  // namespace limitscope
