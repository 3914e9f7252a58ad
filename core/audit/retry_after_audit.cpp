#include "core/audit/retry_after_audit.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "core/audit/audit_names.h"
#include "core/redis/endpoint.h"

namespace limitscope::audit {
namespace {

constexpr std::size_t kPage = 10000;
constexpr std::size_t kMaxErrors = 10;

std::optional<std::int64_t> integer(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// The decision of one stream entry, or the reason it is not one.
Expected<LoggedDecision> decision_of(const redis::Value& fields_value) {
  LoggedDecision d;
  std::optional<std::int64_t> t;
  std::optional<std::int64_t> allowed;
  const auto& fields = fields_value.elements;
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
    const std::string& f = fields[i].str;
    const std::string& v = fields[i + 1].str;
    if (f == "t") t = integer(v);
    if (f == "key") d.key = v;
    if (f == "allowed") allowed = integer(v);
    if (f == "retry_us") d.retry_us = integer(v);
  }
  if (!t || *t < 0) return make_error("field t is not a time in µs");
  if (!allowed || (*allowed != 0 && *allowed != 1)) {
    return make_error("field allowed is not 0 or 1");
  }
  if (d.key.empty()) return make_error("no key");
  d.t_us = *t;
  d.allowed = *allowed == 1;
  return d;
}

}  // namespace

redis::Result<DecisionRead> read_decision_stream(redis::Connection& c,
                                                 const redis::KeySchema& schema,
                                                 const std::string& rule, std::size_t max_entries) {
  if (Status why = redis::KeySchema::check_rule(rule); !why.ok()) {
    return redis::make_redis_error(redis::ErrorKind::usage, "rule: " + why.error());
  }
  const std::string key = schema.decisions_key(rule);
  DecisionRead out;
  std::string start = "-";
  while (out.entries < max_entries) {
    const std::size_t want = std::min(kPage, max_entries - out.entries);
    auto page = c.command({"XRANGE", key, start, "+", "COUNT", std::to_string(want)});
    if (!page) return page.error();
    if (!page->is_array() || page->elements.empty()) break;
    for (const auto& entry : page->elements) {
      ++out.entries;
      if (!entry.is_array() || entry.elements.size() != 2 || !entry.elements[1].is_array()) {
        if (out.errors.size() < kMaxErrors) out.errors.push_back("not a stream entry");
        continue;
      }
      const std::string& id = entry.elements[0].str;
      start = "(" + id;  // exclusive: continue after this id
      auto d = decision_of(entry.elements[1]);
      if (!d) {
        if (out.errors.size() < kMaxErrors) out.errors.push_back("entry " + id + ": " + d.error());
        continue;
      }
      if (!d->allowed && !d->retry_us) ++out.refusals_without_retry;
      out.decisions.push_back(std::move(*d));
    }
    if (page->elements.size() < want) break;
  }
  // Entries are in id order, which is the order of the script runs; t is their server time.
  std::stable_sort(
      out.decisions.begin(), out.decisions.end(),
      [](const LoggedDecision& a, const LoggedDecision& b) { return a.t_us < b.t_us; });
  return out;
}

redis::Result<DecisionRead> read_rule_decisions(const redis::RedisUrl& url,
                                                const redis::ConnectOptions& connect,
                                                const redis::KeySchema& schema,
                                                const std::string& rule, std::size_t max_entries,
                                                Clock& clock) {
  redis::Endpoint endpoint(url, redis::EndpointOptions::with(connect), clock);
  return endpoint.on_rule<DecisionRead>(schema, rule, [&](redis::Connection& c) {
    return read_decision_stream(c, schema, rule, max_entries);
  });
}

void name_keys(RetryAfterAudit& audit, const KeyNames& names, const Policy* policy) {
  for (KeyRetryFindings& k : audit.keys) {
    ShownKey shown = show_key(k.key, names, policy);
    k.key = std::move(shown.key);
    k.name = std::move(shown.name);
  }
}

RetryAfterAudit audit_retry_after(const std::vector<LoggedDecision>& decisions,
                                  std::size_t max_examples) {
  RetryAfterAudit out;
  std::unordered_map<std::string, std::size_t> index;              // key -> position in out.keys
  std::unordered_map<std::string, const LoggedDecision*> pending;  // key -> its open refusal
  auto findings = [&](const std::string& key) -> KeyRetryFindings& {
    auto [it, fresh] = index.try_emplace(key, out.keys.size());
    if (fresh) {
      out.keys.emplace_back();
      out.keys.back().key = key;
    }
    return out.keys[it->second];
  };
  for (const LoggedDecision& d : decisions) {
    auto open = pending.find(d.key);
    if (open != pending.end()) {
      const LoggedDecision& refusal = *open->second;
      KeyRetryFindings& k = findings(d.key);
      const RetryExample ex{refusal.t_us, *refusal.retry_us, d.t_us - refusal.t_us};
      if (ex.waited_us < ex.promised_us) {
        ++k.impatient;
        if (k.impatient_examples.size() < max_examples) k.impatient_examples.push_back(ex);
      } else if (!d.allowed) {
        ++k.lies;
        if (k.lie_examples.size() < max_examples) k.lie_examples.push_back(ex);
      } else {
        ++k.honoured;
      }
      pending.erase(open);
    }
    if (!d.allowed && d.retry_us) {
      ++findings(d.key).refusals;
      pending[d.key] = &d;
    }
  }
  for (const auto& [key, refusal] : pending) ++findings(key).unanswered;
  for (const auto& k : out.keys) {
    out.refusals += k.refusals;
    out.impatient += k.impatient;
    out.lies += k.lies;
    out.honoured += k.honoured;
    out.unanswered += k.unanswered;
  }
  std::stable_sort(out.keys.begin(), out.keys.end(), [](const auto& a, const auto& b) {
    return a.lies != b.lies ? a.lies > b.lies : a.impatient > b.impatient;
  });
  return out;
}

}  // namespace limitscope::audit
