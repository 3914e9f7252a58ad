// libFuzzer target: any byte string given to parse_promql either fails with a message or
// yields a tree whose canonical text parses back to the same text; every parsed tree then
// evaluates (instant and range) against a small fixed store without crashing.
// seed-corpus: tests/data/promql/seeds
// dict: fuzz/promql.dict
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/metrics/promql.h"

namespace {

using limitscope::metrics::Labels;
using limitscope::metrics::SeriesStore;

const SeriesStore& fixed_store() {
  static SeriesStore* store = [] {
    auto* s = new SeriesStore();
    const char* tiers[] = {"free", "pro"};
    const char* les[] = {"0", "5", "10", "+Inf"};
    for (int i = 0; i <= 40; ++i) {
      std::int64_t t = i * 15000;
      for (const char* tier : tiers) {
        double reset_base = i > 20 ? (i - 20) * 3.0 : i * 7.0;  // one counter reset
        s->append(Labels{{"__name__", "hits_total"}, {"tier", tier}}, {t, reset_base});
        s->append(Labels{{"__name__", "burn"}, {"tier", tier}, {"model", "m"}}, {t, (i % 9) / 8.0});
        double cum = 0;
        for (const char* le : les) {
          cum += i + 1;
          s->append(Labels{{"__name__", "usage_bucket"}, {"tier", tier}, {"le", le}}, {t, cum});
        }
      }
    }
    s->append_stale(Labels{{"__name__", "burn"}, {"tier", "pro"}, {"model", "m"}}, 610000);
    return s;
  }();
  return *store;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // long inputs add nothing but time
  std::string_view query(reinterpret_cast<const char*>(data), size);
  auto parsed = limitscope::metrics::parse_promql(query);
  if (!parsed) {
    if (parsed.error().empty()) __builtin_trap();  // every refusal says why
    return 0;
  }
  const auto& expr = **parsed;
  std::string text = limitscope::metrics::to_string(expr);
  auto again = limitscope::metrics::parse_promql(text);
  if (!again || limitscope::metrics::to_string(**again) != text) __builtin_trap();

  limitscope::metrics::EvalOptions opts;
  opts.max_samples = 200000;
  for (std::int64_t t : {0LL, 301000LL, 600000LL, 3600000LL}) {
    (void)limitscope::metrics::evaluate(expr, fixed_store(), t, opts);
  }
  (void)limitscope::metrics::evaluate_range(expr, fixed_store(), 0, 600000, 60000, opts);
  return 0;
}
