// libFuzzer target for probe profiles documents (core/probe/limiter_profile): any bytes either
// fail with a message or give profiles that, each written back with profile_to_json into a
// document, parse again to profiles that write the same text and describe themselves the same.
// seed-corpus: tests/data/fuzz/probe_profiles
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/probe/limiter_profile.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace limitscope::probe;

std::string document(const std::vector<LimiterProfile>& profiles) {
  std::string out = "{\"profiles\": [";
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    out += (i ? "," : "") + profile_to_json(profiles[i]);
  }
  return out + "]}";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto profiles = parse_profiles(text);
  if (!profiles.ok()) {
    check(!profiles.error().empty());
    return 0;
  }
  const std::string written = document(*profiles);
  auto again = parse_profiles(written);
  check(again.ok());
  check(again->size() == profiles->size());
  check(document(*again) == written);
  for (std::size_t i = 0; i < again->size(); ++i) {
    check((*again)[i].describe() == (*profiles)[i].describe());
    (void)match_profile(*again, text.substr(0, 64));
  }
  return 0;
}
