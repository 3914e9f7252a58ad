// libFuzzer target for promtool rule test files (core/metrics/promtool_test_file): any bytes
// either fail with a message or give tests whose eval_time, printed as promtool prints it,
// parses back to the same milliseconds. The input series notation ("1+2x3 _ stale") and the
// series selector ("up{job=\"x\"}") parsers get the same bytes.
// seed-corpus: tests/data/fuzz/promtool_test_file
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/metrics/prom_duration.h"
#include "core/metrics/promtool_test_file.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace limitscope::metrics;

void check_time(std::int64_t ms, const std::string& text) {
  check(ms >= 0);
  auto back = parse_prom_duration(text);
  check(back.ok() && *back == ms);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = parse_rule_test_file(text, "fuzz_test.yml");
  if (!file.ok()) {
    check(!file.error().empty());
  } else {
    check(file->evaluation_interval_ms > 0);
    for (const RuleTestGroup& g : file->tests) {
      check(g.interval_ms >= 0);
      for (const AlertTestCase& c : g.alert_tests) {
        check(!c.alertname.empty());
        check_time(c.eval_time_ms, c.eval_time_text);
      }
      for (const PromqlTestCase& c : g.promql_tests) check_time(c.eval_time_ms, c.eval_time_text);
    }
  }
  auto values = expand_series_values(text);
  if (!values.ok()) check(!values.error().empty());
  auto labels = parse_metric(text);
  if (!labels.ok()) check(!labels.error().empty());
  return 0;
}
