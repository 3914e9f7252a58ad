#pragma once
// A synthetic, gateway-like exposition (text format 0.0.4) of a chosen size, for the parse
// benchmarks and the fuzz seeds: the gateway_* families per API key, plus limitscope's
// request counter. Deterministic for a given seed.

#include <cstddef>
#include <cstdint>
#include <string>

namespace limitscope::metrics {

struct GeneratedExposition {
  std::string text;
  std::size_t series = 0;  // sample lines, all distinct series
  std::size_t families = 0;
};

/// @param series how many sample lines to write (at least 15: one API key's worth)
/// @param seed varies the label hashes and values
GeneratedExposition generate_gateway_exposition(std::size_t series, std::uint64_t seed = 1);

}  // namespace limitscope::metrics
