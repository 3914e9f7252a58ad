#include "core/sim/step_sample.h"

namespace limitscope {
namespace {

void accumulate(SimTotals::Row& r, const KeyStepSample& k) {
  r.admitted += k.admitted;
  r.rejected += k.rejected;
  r.degraded += k.degraded;
  r.retries += k.retries;
  r.llm_tokens += k.llm_tokens;
  r.cost += k.cost;
  r.spend += k.spend;
}

}  // namespace

void SimTotals::add(const StepSample& s) {
  duration += s.step;
  gave_up += s.gave_up;
  for (const KeyStepSample& k : s.keys) {
    Row& key = by_key[k.api_key];
    key.tier = k.tier;
    key.quota_burn = k.quota_burn;
    accumulate(key, k);
    accumulate(by_model[k.model], k);
    accumulate(by_tier[k.tier], k);
    accumulate(all, k);
  }
}

double SimTotals::ratio_429() const {
  const std::int64_t n = all.admitted + all.rejected;
  return n == 0 ? 0.0 : static_cast<double>(all.rejected) / static_cast<double>(n);
}

}  // namespace limitscope
