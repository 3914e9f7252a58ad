#pragma once
// Retry-After honesty, from a rule's decision stream ("clients retry on Retry-After and get 429
// again": redis-cell #56, agentgateway #3328). Per key, each refusal is followed to that key's
// next decision:
//   - it came sooner than the promised wait: an impatient client;
//   - it came after at least the promised wait and was refused again: the promise was a lie
//     (the header was too short, or another limit or another client of the key took the room);
//   - it came after at least the wait and was admitted: the promise held.
// A refusal with no later decision of its key is "unanswered". The promise is the stream's
// `retry_us` (the limiter's retry_after, µs rounded up); our gateway's Retry-After header rounds
// it up to whole seconds, so a client that honours the header waits at least that long.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/dashboard/key_names.h"
#include "core/limiter/policy.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"

namespace limitscope::audit {

/// One logged decision.
struct LoggedDecision {
  std::int64_t t_us = 0;  ///< Redis TIME of the decision
  std::string key;        ///< the stream's key label
  bool allowed = false;
  std::optional<std::int64_t> retry_us;  ///< refusals: the promised wait
};

struct DecisionRead {
  std::vector<LoggedDecision> decisions;   ///< oldest first
  std::size_t entries = 0;                 ///< stream entries read
  std::size_t refusals_without_retry = 0;  ///< refusals without retry_us (older scripts, never)
  std::vector<std::string> errors;         ///< malformed entries (first few), by entry id
};

/// Reads up to `max_entries` of `rule`'s decision stream, oldest first, in pages.
redis::Result<DecisionRead> read_decision_stream(redis::Connection& c,
                                                 const redis::KeySchema& schema,
                                                 const std::string& rule, std::size_t max_entries);
/// read_decision_stream on the server of `url` that holds `rule` (its shard of a cluster).
/// @param clock paces a cluster's retries
redis::Result<DecisionRead> read_rule_decisions(const redis::RedisUrl& url,
                                                const redis::ConnectOptions& connect,
                                                const redis::KeySchema& schema,
                                                const std::string& rule, std::size_t max_entries,
                                                Clock& clock);

/// One refusal and what followed.
struct RetryExample {
  std::int64_t t_us = 0;         ///< the refusal
  std::int64_t promised_us = 0;  ///< its retry_us
  std::int64_t waited_us = 0;    ///< until the key's next decision
};

struct KeyRetryFindings {
  std::string key;
  std::size_t refusals = 0;  ///< with a promise
  std::size_t impatient = 0;
  std::size_t lies = 0;
  std::size_t honoured = 0;
  std::size_t unanswered = 0;
  std::vector<RetryExample> impatient_examples;  ///< the first few
  std::vector<RetryExample> lie_examples;
  std::string name;  ///< the tenant's name, when known (name_keys)
};

struct RetryAfterAudit {
  std::vector<KeyRetryFindings> keys;  ///< keys with any refusal: most lies, then most impatient
  std::size_t refusals = 0;
  std::size_t impatient = 0;
  std::size_t lies = 0;
  std::size_t honoured = 0;
  std::size_t unanswered = 0;
};

/// The audit of `decisions` (in time order). `max_examples` per kind and key.
RetryAfterAudit audit_retry_after(const std::vector<LoggedDecision>& decisions,
                                  std::size_t max_examples = 3);

/// Names each key as audit_names.h's show_key does: the tenant's name where `names` or the
/// policy know it, and a key the policy lists (a foreign gateway that logs raw keys) replaced
/// by its hash.
void name_keys(RetryAfterAudit& audit, const KeyNames& names, const Policy* policy);

}  // namespace limitscope::audit
