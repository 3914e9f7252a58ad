#include "core/audit/audit_names.h"

#include "core/common/sha256.h"
#include "core/metrics/metric_names.h"

namespace limitscope::audit {

KeyNames policy_key_names(const Policy& policy) {
  KeyNames out;
  for (const auto& [key, name] : policy.key_names) out.set(api_key_hash(key), name);
  return out;
}

void add_key_info(KeyNames& names, const probe::Scrape& scrape) {
  for (const auto& s : scrape.samples) {
    if (s.labels.metric_name() != metrics::names::kKeyInfo) continue;
    const std::string_view name = s.labels.get(metrics::names::kName);
    if (!name.empty()) names.set(s.labels.get(metrics::names::kApiKeyHash), std::string(name));
  }
}

ShownKey show_key(std::string_view label, const KeyNames& names, const Policy* policy) {
  ShownKey out;
  if (policy != nullptr && policy->keys.contains(label)) {
    // A foreign gateway logged the key itself: show what our gateway would, its hash.
    out.key = api_key_hash(label);
    if (auto n = policy->key_names.find(label); n != policy->key_names.end()) out.name = n->second;
  } else {
    out.key = std::string(label);
  }
  if (out.name.empty()) {
    if (const std::string* n = names.find(out.key)) out.name = *n;
  }
  return out;
}

}  // namespace limitscope::audit
