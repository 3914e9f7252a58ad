#include "core/gateway/load_report.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace limitscope::gateway {
namespace {

using Json = nlohmann::ordered_json;

double ms(std::int64_t ns) {
  return std::round(static_cast<double>(ns) / 1e3) / 1e3;  // microsecond precision
}

// Nearest-rank percentile of sorted values.
std::int64_t percentile(const std::vector<std::int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

}  // namespace

void LoadReport::add(Counts& c, const AttemptResult& a) {
  ++c.sent;
  if (!a.status) {
    ++c.errors;
  } else if (*a.status >= 200 && *a.status < 300) {
    ++c.ok;
  } else if (*a.status == 429) {
    ++c.rate_limited;
  } else {
    ++c.other;
  }
}

void LoadReport::record(const PlannedRequest& r, const AttemptResult& a) {
  const ClientSpec& client = plan_.clients()[r.client];
  const std::string& model = client.models[r.share].model;
  std::lock_guard lock(mu_);
  ++sent_;
  if (r.attempt == 0) {
    ++first_tries_;
  } else {
    ++retries_;
    if (a.status && *a.status >= 200 && *a.status < 300) ++retries_ok_;
  }
  if (a.status) {
    ++status_[*a.status];
  } else {
    ++transport_errors_;
  }
  if (a.after_429 == RetryVerdict::gave_up) ++gave_up_;
  if (a.after_429 == RetryVerdict::past_end) ++past_end_;
  latency_ns_.push_back(a.latency.count());
  max_send_lag_ns_ = std::max<std::int64_t>(max_send_lag_ns_, a.send_lag.count());
  add(by_key_[client.api_key], a);
  add(by_tier_[client.tier], a);
  add(by_model_[model], a);
  if (a.status && *a.status >= 200 && *a.status < 300) ++ok_by_key_model_[client.api_key][model];
}

std::uint64_t LoadReport::sent() const {
  std::lock_guard lock(mu_);
  return sent_;
}

std::uint64_t LoadReport::status_count(int status) const {
  std::lock_guard lock(mu_);
  auto it = status_.find(status);
  return it == status_.end() ? 0 : it->second;
}

std::string LoadReport::json(const std::map<std::string, std::string>& header_json,
                             bool pretty) const {
  std::lock_guard lock(mu_);
  Json j;
  for (const auto& [k, v] : header_json) j[k] = Json::parse(v);
  j["sent"] = sent_;
  j["first_tries"] = first_tries_;
  j["retries"] = retries_;
  j["retries_succeeded"] = retries_ok_;
  j["gave_up"] = gave_up_;
  j["retries_past_end"] = past_end_;
  j["transport_errors"] = transport_errors_;
  Json status = Json::object();
  for (const auto& [code, n] : status_) status[std::to_string(code)] = n;
  j["status"] = status;
  std::vector<std::int64_t> sorted = latency_ns_;
  std::sort(sorted.begin(), sorted.end());
  j["latency_ms"] = Json{{"p50", ms(percentile(sorted, 50))},
                         {"p99", ms(percentile(sorted, 99))},
                         {"max", ms(sorted.empty() ? 0 : sorted.back())}};
  j["max_send_lag_ms"] = ms(max_send_lag_ns_);
  auto counts = [](const Counts& c) {
    return Json{{"sent", c.sent},
                {"ok", c.ok},
                {"rate_limited", c.rate_limited},
                {"other", c.other},
                {"errors", c.errors}};
  };
  std::map<std::string, std::string> tier_of;
  for (const ClientSpec& c : plan_.clients()) tier_of.emplace(c.api_key, c.tier);
  Json keys = Json::object();
  for (const auto& [key, c] : by_key_) {
    Json k = counts(c);
    k["tier"] = tier_of[key];
    Json models = Json::object();
    if (auto it = ok_by_key_model_.find(key); it != ok_by_key_model_.end()) {
      for (const auto& [m, n] : it->second) models[m] = n;
    }
    k["ok_by_model"] = models;
    keys[key] = k;
  }
  j["by_key"] = keys;
  Json tiers = Json::object();
  for (const auto& [t, c] : by_tier_) tiers[t] = counts(c);
  j["by_tier"] = tiers;
  Json models = Json::object();
  for (const auto& [m, c] : by_model_) models[m] = counts(c);
  j["by_model"] = models;
  return pretty ? j.dump(2) + "\n" : j.dump() + "\n";
}

}  // namespace limitscope::gateway
