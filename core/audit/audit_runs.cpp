#include "core/audit/audit_runs.h"

#include "core/audit/audit_names.h"
#include "core/audit/audit_tables.h"
#include "core/audit/clock_audit.h"
#include "core/audit/replica_sources.h"
#include "core/audit/retry_after_audit.h"
#include "core/limiter/policy.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"

namespace limitscope::audit {
namespace {

Expected<std::vector<http::HttpUrl>> metrics_of(const AuditSetup& s) {
  std::vector<http::HttpUrl> out;
  for (const std::string& text : s.metrics_urls) {
    auto url = http::parse_http_url(text);
    if (!url) return make_error("/metrics \"" + text + "\": " + url.error());
    out.push_back(std::move(*url));
  }
  return out;
}

http::FetchOptions fetch_with(const http::HttpAuth& auth) {
  http::FetchOptions o;
  auth.apply_to(o);
  return o;
}

Expected<Policy> policy_of(const AuditSetup& s) {
  if (s.policy_file.empty()) return default_policy();
  auto p = load_policy_file(s.policy_file);
  if (!p) return make_error("policy: " + p.error());
  return std::move(*p);
}

// The policy's names, with the key-names file's over them.
Expected<KeyNames> names_of(const AuditSetup& s, const Policy& policy) {
  KeyNames names = policy_key_names(policy);
  if (!s.key_names_file.empty()) {
    auto file = load_key_names_file(s.key_names_file);
    if (!file) return make_error("key names: " + file.error());
    names.merge(*file);
  }
  return names;
}

}  // namespace

AuditAvailability available_audits(const AuditSetup& s) {
  AuditAvailability a;
  a.replicas = !s.metrics_urls.empty() || !s.prometheus_url.empty();
  if (!a.replicas) a.replicas_why = "needs the gateways' /metrics or a Prometheus";
  a.retry_after = !s.redis_url.empty() && !s.rule.empty();
  if (s.redis_url.empty())
    a.retry_after_why = "needs a Redis (its rules' decision streams)";
  else if (s.rule.empty())
    a.retry_after_why = "needs the rule whose decision stream to read";
  a.clock = !s.metrics_urls.empty();
  if (!a.clock) a.clock_why = "needs the gateways' /metrics (their clocks)";
  return a;
}

Expected<ResultTable> run_replica_audit(const AuditSetup& s, Clock& clock, CancelToken& cancel) {
  auto policy = policy_of(s);
  if (!policy) return make_error(policy.error());
  auto names = names_of(s, *policy);
  if (!names) return make_error(names.error());
  ReplicaSources sources;
  if (!s.metrics_urls.empty()) {
    auto urls = metrics_of(s);
    if (!urls) return make_error(urls.error());
    sources.metrics = std::move(*urls);
    sources.fetch = fetch_with(s.metrics_auth);
    sources.interval = s.replica_interval;
  } else {
    auto url = http::parse_http_url(s.prometheus_url);
    if (!url) return make_error("Prometheus \"" + s.prometheus_url + "\": " + url.error());
    sources.prometheus = std::move(*url);
    sources.fetch = fetch_with(s.prometheus_auth);
    sources.prometheus_window = s.prometheus_window;
  }
  auto read = read_replicas(sources, *policy, clock, cancel);
  if (!read) return make_error(read.error());
  KeyNames shown = std::move(read->key_info);
  shown.merge(*names);
  return replica_table(audit_replicas(read->windows, *policy, {s.tolerance, &shown}));
}

Expected<ResultTable> run_retry_after_audit(const AuditSetup& s, Clock& clock) {
  auto policy = policy_of(s);
  if (!policy) return make_error(policy.error());
  auto names = names_of(s, *policy);
  if (!names) return make_error(names.error());
  auto url = redis::parse_redis_url(s.redis_url);
  if (!url) return make_error("Redis: " + url.error());
  const redis::KeySchema schema(s.prefix.empty() ? std::string(redis::kDefaultPrefix) : s.prefix);
  if (Status why = schema.check_prefix(); !why.ok()) return make_error("prefix: " + why.error());
  if (Status why = redis::KeySchema::check_rule(s.rule); !why.ok())
    return make_error("rule: " + why.error());
  auto read = read_rule_decisions(*url, {}, schema, s.rule, s.max_entries, clock);
  if (!read) return make_error("Redis " + url->redacted() + ": " + read.error().message);
  auto a = audit_retry_after(read->decisions);
  name_keys(a, *names, &*policy);
  return retry_after_table(a, *read, s.rule);
}

Expected<ResultTable> run_clock_audit(const AuditSetup& s, Clock& clock) {
  auto urls = metrics_of(s);
  if (!urls) return make_error(urls.error());
  std::vector<RedisClockReading> redis_clocks;
  if (!s.redis_url.empty()) {
    auto url = redis::parse_redis_url(s.redis_url);
    if (!url) return make_error("Redis: " + url.error());
    auto read = read_redis_clocks(*url, {}, clock);
    if (!read) return make_error("Redis " + url->redacted() + ": " + read.error());
    redis_clocks = std::move(*read);
  }
  const http::FetchOptions fetch = fetch_with(s.metrics_auth);
  std::vector<GatewayClockReading> gateways;
  for (const auto& url : *urls) gateways.push_back(read_gateway_clock(url, fetch, clock));
  return clock_table(audit_clocks(gateways, redis_clocks, s.clock_threshold_s));
}

}  // namespace limitscope::audit
