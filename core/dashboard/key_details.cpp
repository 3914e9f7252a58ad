#include "core/dashboard/key_details.h"

#include <cmath>
#include <cstdio>

#include "core/common/number_format.h"

namespace limitscope {

std::string english_amount(double v, int decimals) {
  return grouped_digits(fixed_text(v, decimals));
}

std::string capacity_text(double v, const AmountText& amount) {
  if (v == std::floor(v)) return amount(v, 0);
  std::string s = amount(v, 3);
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

KeyDetails key_details(const KeyRow& r, const std::string& name, const AmountText& amount) {
  KeyDetails d;
  d.name = name;
  d.heading =
      " · " + r.tier + " · " + r.model + (r.limit.empty() ? std::string() : " · " + r.limit);
  if (name != r.api_key) d.lines.push_back("Key: " + r.api_key);
  if (!r.node.empty()) d.lines.push_back("Shard: " + r.node);
  // The limit and the level on one line: four lines fit the pane of a 720-pixel window.
  std::string limit = "Limit: " + r.parameters + " · ";
  if (r.capacity > 0) {
    limit += "level " + amount(r.level * r.capacity, r.capacity >= 1000 ? 0 : 1) + " of " +
             capacity_text(r.capacity, amount) + " (" + fixed_text(r.level * 100, 1) + "%)";
  } else {
    limit += "level not reported by this source (rates only)";
  }
  d.lines.push_back(std::move(limit));
  // What the source does not report reads "—", never 0.
  const std::string none = "—";
  d.lines.push_back(
      "Requests " + (r.rates_reported ? fixed_text(r.requests_per_s, 1) : none) + "/s · 429 " +
      (r.rates_reported ? fixed_text(r.rejected_per_s, 1) : none) + "/s (peak " +
      (r.peak_rejected_per_s ? fixed_text(*r.peak_rejected_per_s, 1) : none) + "/s) · spend " +
      (r.spend_reported ? "$" + fixed_text(r.spend, 2) : none) + " · quota burn " +
      (r.quota_reported ? fixed_text(r.quota_burn * 100, 1) + "%" : none));
  if (r.algorithm == "fixed-window")
    d.note = "Fixed window: up to twice the limit can pass across a window boundary.";
  return d;
}

}  // namespace limitscope
