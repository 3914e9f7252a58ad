// libFuzzer target for Redis URLs (core/redis/redis_url): any bytes either fail with a message
// that never shows the password, or give a URL whose ports are in range; a URL with a password
// prints (redacted()) without it.
// seed-corpus: tests/data/fuzz/redis_url
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/redis/redis_url.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace limitscope::redis;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto url = parse_redis_url(text);
  if (!url.ok()) {
    check(!url.error().empty());
    return 0;
  }
  check(url->port >= 1 && url->port <= 65535);
  check(url->db >= 0);
  for (const ClusterSeed& s : url->cluster_seeds) {
    check(!s.host.empty() && s.port >= 1 && s.port <= 65535);
  }
  if (url->unix_path.empty() && !url->cluster()) check(!url->host.empty());
  const std::string shown = url->redacted();
  // A password is never printed; a sentinel password checks it whatever the rest of the URL
  // (unless the input itself spells the sentinel, in a path or a host).
  if (text.find("SECRET") != std::string_view::npos) return 0;
  if (!url->password.empty()) {
    RedisUrl marked = *url;
    marked.password = "\x01SECRET\x02";
    check(marked.redacted().find("SECRET") == std::string::npos);
  }
  // The same URL with a known password: an error about it must not echo the password.
  std::string with_secret = "redis://user:\x01SECRET\x02@" + std::string(text);
  auto again = parse_redis_url(with_secret);
  if (!again.ok()) check(again.error().find("SECRET") == std::string::npos);
  return 0;
}
