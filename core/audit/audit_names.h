#pragma once
// What an audit calls a key. Audits read keys as the gateways label them: api_key_hash (12 hex
// digits of the key's SHA-256), a Redis identity "<32 hex>:<model>", or, in a foreign
// gateway's decision stream, whatever it wrote. They show the tenant's name where one is known
// (a policy key's "name", the --key-names CSV, a gateway's limitscope_key_info), and never a
// raw API key: a label that is a key the policy lists is shown by its hash.

#include <string>
#include <string_view>

#include "core/dashboard/key_names.h"
#include "core/limiter/policy.h"
#include "core/probe/metrics_scrape.h"

namespace limitscope::audit {

/// The names of the keys `policy` names, by their hash.
KeyNames policy_key_names(const Policy& policy);

/// Adds the names of the limitscope_key_info samples in `scrape` (an empty name is none).
void add_key_info(KeyNames& names, const probe::Scrape& scrape);

/// One key as an audit shows it.
struct ShownKey {
  std::string key;   ///< the label, or the 12-digit hash when the label is a key `policy` lists
  std::string name;  ///< the tenant's name, empty when none is known
};

/// @param label the key as the source wrote it
/// @param names known names (joined on the hash the label starts with)
/// @param policy the policy the gateways run, or nullptr: its raw keys are never shown
ShownKey show_key(std::string_view label, const KeyNames& names, const Policy* policy);

}  // namespace limitscope::audit
