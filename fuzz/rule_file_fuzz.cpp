// libFuzzer target for alert/recording rule files (core/metrics/rule_file): any bytes, read as
// YAML, as JSON and by sniffing, either fail with a message or give groups whose rules all have
// a name, a parsed expression, labels sorted by name and, for YAML, a source line.
// seed-corpus: tests/data/fuzz/rule_file
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/metrics/rule_file.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace limitscope::metrics;

template <class Pairs>
bool sorted_by_name(const Pairs& pairs) {
  for (std::size_t i = 1; i < pairs.size(); ++i) {
    if (pairs[i - 1].name > pairs[i].name) return false;
  }
  return true;
}

void check_one(std::string_view text, RuleFileFormat format) {
  auto parsed = parse_rule_file(text, "fuzz.yml", format);
  if (!parsed.ok()) {
    check(!parsed.error().empty());
    return;
  }
  for (const RuleGroup& g : parsed->groups) {
    check(!g.name.empty());
    check(g.interval_ms >= 0);
    for (const Rule& r : g.rules) {
      check(!r.name.empty());
      check(r.expr != nullptr);
      check(sorted_by_name(r.labels) && sorted_by_name(r.annotations));
      check(r.for_ms >= 0 && r.keep_firing_for_ms >= 0);
      if (format == RuleFileFormat::yaml) check(r.line >= 1);
      if (r.kind == RuleKind::recording) check(r.annotations.empty());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_one(text, RuleFileFormat::automatic);
  check_one(text, RuleFileFormat::yaml);
  check_one(text, RuleFileFormat::json);
  return 0;
}
