// libFuzzer target for the saved-connections file (core/connections/connections_file): any
// bytes either fail with "<source>:<line>: ..." or give a document that, written back with
// connections_to_json, parses again to a document that writes the same text.
// seed-corpus: tests/data/fuzz/connections
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/connections/connections_file.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace limitscope::connections;
  auto doc = parse_connections(text, "fuzz.json");
  if (!doc.ok()) {
    check(doc.error().rfind("fuzz.json:", 0) == 0);
    return 0;
  }
  check(doc->recent.size() <= kMaxRecent);
  const std::string written = connections_to_json(*doc);
  auto again = parse_connections(written, "written.json");
  check(again.ok());
  check(again->connections.size() == doc->connections.size());
  check(connections_to_json(*again) == written);
  return 0;
}
