#include "core/redis/rollout_steps.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

namespace limitscope::redis {

Expected<std::vector<std::int64_t>> parse_rollout_steps(std::string_view text) {
  std::vector<std::int64_t> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view part = text.substr(at, comma - at);
    double v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    const std::optional<double> pct = ec == std::errc() && end == part.data() + part.size()
                                          ? std::optional<double>(v)
                                          : std::nullopt;
    if (!pct || !(*pct > 0) || *pct > 100) {
      return make_error("steps: '" + std::string(part) + "' is not a percentage in (0, 100]");
    }
    const auto bp = static_cast<std::int64_t>(*pct * 100 + 0.5);
    if (bp < 1) return make_error("steps: '" + std::string(part) + "' is below 0.01%");
    if (!out.empty() && bp <= out.back())
      return make_error("steps must increase, got " + std::string(text));
    out.push_back(bp);
    at = comma + 1;
  }
  if (out.empty() || out.back() != kAllKeys)
    return make_error("steps must end at 100, got " + std::string(text));
  return out;
}

}  // namespace limitscope::redis
