#include "app/cli/bench_pressure_variant.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "core/redis/limiter_scripts.h"

namespace limitscope::cli {

namespace {

constexpr std::string_view kThreshold = "local LS_PRESSURE_BELOW = 0.1";
constexpr std::string_view kNever = "local LS_PRESSURE_BELOW = -1e300";  // below any level or debt

std::string replaced(std::string s, std::string_view what, std::string_view with) {
  const auto at = s.find(what);
  // pressure.lua changed under the benchmark: a build error, not input.
  if (at == std::string::npos)
    throw std::logic_error("bench-redis: pressure.lua has no '" + std::string(what) + "'");
  return s.replace(at, what.size(), with);
}

std::string replaced_all(std::string s, std::string_view what, std::string_view with) {
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size())) {
    s.replace(at, what.size(), with);
  }
  return s;
}

}  // namespace

const redis::Script& decide_without_pressure_index() {
  static const redis::Script s = [] {
    const redis::Script& real = redis::decide_script();
    const redis::FunctionLibrary& lib = redis::function_library();
    const std::string version = lib.name.substr(std::string_view("limitscope_").size());
    auto variant = std::make_shared<redis::FunctionLibrary>();
    variant->name = lib.name + "n";
    variant->source =
        replaced_all(replaced(lib.source, kThreshold, kNever), version, version + "n");
    return redis::Script(real.name() + "_without_pressure_index",
                         replaced(real.source(), kThreshold, kNever), real.function() + "n",
                         variant);
  }();
  return s;
}

}  // namespace limitscope::cli
