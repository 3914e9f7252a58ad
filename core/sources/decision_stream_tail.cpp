#include "core/sources/decision_stream_tail.h"

#include <algorithm>

#include "core/common/parse_number.h"

namespace limitscope {

namespace {

constexpr std::size_t kMaxErrors = 5;
constexpr std::string_view kConfigSuffix = ":config";

// One XRANGE entry [id, [field, value, ...]] → a decision row; nullopt (and an error) when
// it is not a decision.
// The `at`-th of a composite's comma-separated costs ("1,1500"), else the first.
std::optional<double> cost_at(const std::string& costs, std::size_t at) {
  std::size_t begin = 0;
  for (std::size_t i = 0; i < at; ++i) {
    const std::size_t comma = costs.find(',', begin);
    if (comma == std::string::npos) return parse_finite(costs.substr(0, costs.find(',')));
    begin = comma + 1;
  }
  const std::size_t end = costs.find(',', begin);
  return parse_finite(
      costs.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
}

std::optional<DecisionRow> decision_of(const redis::Value& entry, const std::string& stream,
                                       const std::string& rule,
                                       const std::vector<std::string>* limit_order,
                                       StreamRead& out) {
  auto fail = [&](const std::string& why) {
    if (out.errors.size() < kMaxErrors) out.errors.push_back(stream + " entry " + why);
    return std::nullopt;
  };
  if (!entry.is_array() || entry.elements.size() != 2 || !entry.elements[1].is_array())
    return fail("?: not a stream entry");
  const std::string& id = entry.elements[0].str;
  DecisionRow d;
  d.tier = rule;
  std::optional<double> t, allowed, level, tokens, retry_us, shadow;
  std::string costs;
  const auto& f = entry.elements[1].elements;
  for (std::size_t i = 0; i + 1 < f.size(); i += 2) {
    const std::string& name = f[i].str;
    const std::string& v = f[i + 1].str;
    if (name == "t")
      t = parse_finite(v);
    else if (name == "key")
      d.api_key = v;
    else if (name == "cost")
      costs = v;  // composite: "c1,c2", in the order of its limits
    else if (name == "limit")
      d.limit = v;
    else if (name == "retry_us")
      retry_us = parse_finite(v);
    else if (name == "allowed")
      allowed = parse_finite(v);
    else if (name == "level")
      level = parse_finite(v);
    else if (name == "model")
      d.model = v;
    else if (name == "tokens")
      tokens = parse_finite(v);
    else if (name == "shadow")
      shadow = parse_finite(v);  // 1: the shadow admitted, 0: refused
  }
  if (!t || *t < 0 || *t > 9e15) return fail(id + ": field t is not a time in µs");
  if (d.api_key.empty()) return fail(id + ": no key");
  if (!allowed || (*allowed != 0 && *allowed != 1))
    return fail(id + ": field allowed is not 0 or 1");
  d.t_ns = static_cast<std::int64_t>(*t) * 1000;  // Redis TIME: whole µs
  // The reported limit's cost, when the rule's order of limits is known; else the first.
  std::size_t at = 0;
  if (!d.limit.empty() && limit_order != nullptr) {
    const auto it = std::find(limit_order->begin(), limit_order->end(), d.limit);
    if (it != limit_order->end()) at = static_cast<std::size_t>(it - limit_order->begin());
  }
  d.cost = costs.empty() ? 1 : cost_at(costs, at).value_or(1);
  d.allowed = *allowed == 1;
  d.remaining = level.value_or(0);
  // Logged by the gateway with --log-decisions; a bad count is left unknown, not an error of
  // the decision.
  if (tokens && *tokens >= 0 && *tokens == std::floor(*tokens))
    d.llm_tokens = static_cast<std::int64_t>(*tokens);
  if (shadow && (*shadow == 0 || *shadow == 1))
    d.shadow_allowed = *shadow == 1;  // else: not evaluated
  if (!d.allowed)
    d.reason = "exhausted";  // the stream keeps no reason; a logged 429 is a limit hit
  // What the gateway's Retry-After is rounded up from; absent: it can never succeed.
  if (!d.allowed && retry_us && *retry_us >= 0) d.retry_after_s = *retry_us / 1e6;
  return d;
}

}  // namespace

std::string decisions_key_for_config(const std::string& config_key) {
  if (!config_key.ends_with(kConfigSuffix)) return {};
  return config_key.substr(0, config_key.size() - kConfigSuffix.size()) + ":decisions";
}

redis::Result<StreamRead> DecisionStreamTail::read(
    redis::Connection& c, const std::map<std::string, std::string>& rules,
    const std::map<std::string, std::vector<std::string>>& limit_order) {
  struct Ask {
    const std::string* rule;
    const std::string* key;
    bool first;
  };
  std::vector<Ask> asks;
  std::vector<std::vector<std::string>> commands;
  const std::string budget = std::to_string(std::max<std::size_t>(1, options_.count_per_refresh));
  for (const auto& [rule, key] : rules) {
    const auto it = last_id_.find(key);
    if (it == last_id_.end()) {
      if (last_id_.size() >= options_.max_streams) continue;
      commands.push_back({"XREVRANGE", key, "+", "-", "COUNT",
                          std::to_string(std::max<std::size_t>(1, options_.backlog))});
      asks.push_back({&rule, &key, true});
    } else {
      // "(" makes the start exclusive (Redis 6.2+): everything after the last id read.
      commands.push_back({"XRANGE", key, "(" + it->second, "+", "COUNT", budget});
      asks.push_back({&rule, &key, false});
    }
  }
  StreamRead out;
  if (commands.empty()) return out;
  auto replies = c.pipeline(commands);
  if (!replies) return replies.error();
  for (std::size_t i = 0; i < asks.size(); ++i) {
    const redis::Value& r = (*replies)[i];
    const std::string& key = *asks[i].key;
    if (r.is_error()) {
      // Not a stream (WRONGTYPE): say so, do not follow it.
      if (out.errors.size() < kMaxErrors) out.errors.push_back(key + ": " + r.str);
      continue;
    }
    if (!r.is_array()) continue;
    std::vector<const redis::Value*> entries;
    for (const auto& e : r.elements) entries.push_back(&e);
    if (asks[i].first) std::reverse(entries.begin(), entries.end());  // XREVRANGE: newest first
    std::string last = asks[i].first ? "0-0" : last_id_[key];
    for (const redis::Value* e : entries) {
      if (e->is_array() && !e->elements.empty()) last = e->elements[0].str;
      const auto order = limit_order.find(*asks[i].rule);
      if (auto d = decision_of(*e, key, *asks[i].rule,
                               order != limit_order.end() ? &order->second : nullptr, out))
        (asks[i].first ? out.backlog : out.fresh).push_back(std::move(*d));
    }
    last_id_[key] = last;
    if (!asks[i].first && r.elements.size() >= options_.count_per_refresh) ++out.lagging;
  }
  const auto by_time = [](const DecisionRow& a, const DecisionRow& b) { return a.t_ns < b.t_ns; };
  std::stable_sort(out.backlog.begin(), out.backlog.end(), by_time);
  std::stable_sort(out.fresh.begin(), out.fresh.end(), by_time);
  return out;
}

}  // namespace limitscope
