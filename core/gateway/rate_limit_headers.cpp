#include "core/gateway/rate_limit_headers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace limitscope::gateway {
namespace {

std::string count_text(double v) {
  // Remaining is shown rounded down: a client must never be told it has more than it has.
  // Capacities may exceed int64 (1e30 printed -9223372036854775808): whole numbers as text.
  if (!std::isfinite(v) || v < 0) v = 0;
  const double whole = std::floor(v + 1e-9);
  if (whole < 9e18) return std::to_string(static_cast<std::int64_t>(whole));
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.0f", whole);
  return buf;
}

// Seconds an empty limit needs to be whole again (bucket: C / r; window: its length).
std::int64_t window_seconds(const LimitParams& p) {
  if (is_window_algorithm(p.algorithm))
    return std::max<std::int64_t>(1, whole_seconds_up(p.window));
  const double r = p.refill.per_second();
  if (!(r > 0)) return 1;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(p.capacity / r - 1e-9)));
}

struct Rule {
  const char* name;         // the IETF policy name
  const char* openai_name;  // OpenAI's header suffix: x-ratelimit-limit-<openai_name>
  const LimitParams* params;
  const Decision* decision;
  double unit;  // cost units per unit of OpenAI's header (the model's weight for requests)
};

}  // namespace

std::string openai_duration(Nanos d) {
  std::int64_t ms = whole_millis_up(d);
  if (ms == 0) return "0s";
  if (ms < 1000) return std::to_string(ms) + "ms";
  std::string out;
  if (ms >= 3'600'000) {
    out += std::to_string(ms / 3'600'000) + "h";
    ms %= 3'600'000;
  }
  if (!out.empty() || ms >= 60'000) {
    out += std::to_string(ms / 60'000) + "m";
    ms %= 60'000;
  }
  out += std::to_string(ms / 1000);
  if (std::int64_t frac = ms % 1000; frac != 0) {
    std::string digits = std::to_string(1000 + frac).substr(1);  // 3 digits, leading zeros
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out + "s";
}

void append_retry_after(HttpHeaders& out, Nanos wait) {
  // At least 1: "Retry-After: 0" invites an immediate retry that would fail again.
  out.push_back({"Retry-After", std::to_string(retry_after_seconds(wait))});
  out.push_back(
      {"retry-after-ms", std::to_string(std::max<std::int64_t>(1, whole_millis_up(wait)))});
}

std::optional<Nanos> retry_after_of(const AdmissionResult& r) {
  if (r.allowed) return std::nullopt;
  std::optional<Nanos> wait;
  auto consider = [&](const Decision& d) {
    if (d.allowed) return true;
    if (!d.retry_after) return false;
    wait = std::max(wait.value_or(Nanos{0}), *d.retry_after);
    return true;
  };
  if (r.reported != ReportedRules::llm_tokens_only && !consider(r.requests)) return std::nullopt;
  if (r.reported != ReportedRules::requests_only && r.llm_tokens && !consider(*r.llm_tokens)) {
    return std::nullopt;
  }
  return wait;
}

void append_rate_limit_headers(HttpHeaders& out, const AdmissionResult& r) {
  if (r.tier == nullptr || r.reported == ReportedRules::none) return;
  std::vector<Rule> rules;
  // A request costs the model's weight: OpenAI's requests headers count requests of it.
  const double request_cost = r.cost > 0 ? r.cost : 1;
  if (r.reported != ReportedRules::llm_tokens_only) {
    rules.push_back(Rule{"requests", "requests", &r.tier->requests, &r.requests, request_cost});
  }
  if (r.reported != ReportedRules::requests_only && r.tier->llm_tokens && r.llm_tokens) {
    rules.push_back(Rule{"llm-tokens", "tokens", &*r.tier->llm_tokens, &*r.llm_tokens, 1});
  }
  if (rules.empty()) return;
  std::string policy;
  std::string state;
  for (const Rule& rule : rules) {
    // The decision's own limit: with a shared backend it is the live config's, which may
    // differ from the policy file's until the next reload.
    const double limit_units =
        rule.decision->limit > 0 ? rule.decision->limit : rule.params->max_cost();
    const std::string limit = count_text(limit_units);
    const std::string remaining = count_text(rule.decision->remaining);
    const std::string reset = std::to_string(whole_seconds_up(rule.decision->reset_after));
    if (rule.decision == &r.requests) {
      // The conventional trio, in cost units and whole seconds (as before OpenAI's names).
      out.push_back({"X-RateLimit-Limit", limit});
      out.push_back({"X-RateLimit-Remaining", remaining});
      out.push_back({"X-RateLimit-Reset", reset});
    }
    const std::string suffix = std::string("-") + rule.openai_name;
    out.push_back({"x-ratelimit-limit" + suffix, count_text(limit_units / rule.unit)});
    out.push_back(
        {"x-ratelimit-remaining" + suffix, count_text(rule.decision->remaining / rule.unit)});
    out.push_back({"x-ratelimit-reset" + suffix, openai_duration(rule.decision->reset_after)});
    if (!policy.empty()) {
      policy += ", ";
      state += ", ";
    }
    policy += "\"" + std::string(rule.name) + "\";q=" + limit +
              ";w=" + std::to_string(window_seconds(*rule.params));
    state += "\"" + std::string(rule.name) + "\";r=" + remaining + ";t=" + reset;
  }
  out.push_back({"RateLimit-Policy", policy});
  out.push_back({"RateLimit", state});
  if (auto wait = retry_after_of(r)) append_retry_after(out, *wait);
}

}  // namespace limitscope::gateway
