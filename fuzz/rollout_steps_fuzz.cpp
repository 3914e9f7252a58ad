// libFuzzer target for the steps of a staged rollout (core/redis/rollout_steps): any bytes
// either fail with a message or give shares in basis points that increase strictly, lie in
// [1, 10000] and end at 10000.
// seed-corpus: tests/data/fuzz/rollout_steps
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/redis/rollout_steps.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto steps = limitscope::redis::parse_rollout_steps(text);
  if (!steps.ok()) {
    check(!steps.error().empty());
    return 0;
  }
  check(!steps->empty());
  check(steps->back() == limitscope::redis::kAllKeys);
  for (std::size_t i = 0; i < steps->size(); ++i) {
    check((*steps)[i] >= 1 && (*steps)[i] <= limitscope::redis::kAllKeys);
    if (i > 0) check((*steps)[i] > (*steps)[i - 1]);
  }
  return 0;
}
