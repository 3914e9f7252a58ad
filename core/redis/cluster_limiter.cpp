#include "core/redis/cluster_limiter.h"

#include <map>
#include <numeric>
#include <thread>

#include "core/redis/limiter_scripts.h"
#include "core/redis/script.h"

namespace limitscope::redis {

namespace {

// The calls one node gets in one round.
struct NodeBatch {
  ClusterNode node;
  bool asking = false;
  std::vector<std::size_t> calls;  ///< indices into the round's pending calls
  // Outcome:
  std::optional<RedisError> error;
  bool unreachable = false;
  std::vector<Value> replies;
};

void send(ClusterClient& cluster, NodeBatch& b, const std::vector<PendingScriptCall>& pending) {
  auto lease = cluster.lease(b.node);
  if (!lease) {
    b.error = lease.error();
    b.unreachable = true;
    return;
  }
  std::vector<ScriptCall> calls;
  calls.reserve(b.calls.size());
  for (std::size_t i : b.calls) calls.push_back(pending[i].call);
  (*lease)->set_asking(b.asking);
  auto replies = eval_pipeline(**lease, decide_script(), calls);
  (*lease)->set_asking(false);
  if (!replies) {
    b.error = replies.error();
  } else {
    b.replies = std::move(replies).value();
  }
}

// Queues one rule's script calls for its slot. Together the calls carry `requests` (indices
// into the caller's list), in order, each call as many as it has keys beyond the fixed ones.
void add_pending(std::vector<PendingScriptCall>& pending, int slot, std::vector<ScriptCall>& calls,
                 const std::vector<std::size_t>& requests) {
  auto next = requests.begin();
  for (ScriptCall& call : calls) {
    PendingScriptCall p;
    p.slot = slot;
    const auto count = static_cast<std::ptrdiff_t>(call.keys.size() - kFixedKeys);
    p.requests.assign(next, next + count);
    next += count;
    p.call = std::move(call);
    pending.push_back(std::move(p));
  }
}

// Each request's result; one that no call answered is a protocol error.
std::vector<Result<RedisDecision>> decided(std::vector<std::optional<Result<RedisDecision>>>& out) {
  std::vector<Result<RedisDecision>> results;
  results.reserve(out.size());
  for (auto& r : out) {
    results.push_back(
        r ? std::move(*r)
          : Result<RedisDecision>(make_redis_error(ErrorKind::protocol, "request left undecided")));
  }
  return results;
}

}  // namespace

int rule_slot(const KeySchema& schema, std::string_view rule) {
  return cluster_slot(schema.config_key(rule));
}

void ClusterLimiter::route_calls(std::vector<PendingScriptCall> pending,
                                 std::vector<std::optional<Result<RedisDecision>>>& out) {
  auto fail = [&out](const std::vector<std::size_t>& which, const RedisError& e) {
    for (std::size_t i : which) out[i].emplace(e);
  };
  Backoff backoff = cluster_.retry_backoff();
  Nanos waited{0};
  int hops = 0;
  while (!pending.empty()) {
    auto topo = cluster_.topology();
    if (!topo) {
      for (const auto& p : pending) fail(p.requests, topo.error());
      break;
    }
    // Group the calls by the node (and ASKING mode) they go to.
    std::map<std::string, NodeBatch> batches;
    std::vector<PendingScriptCall> again;
    std::optional<RedisError> retry_error;
    bool pause = false;
    bool redirected = false;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const ClusterNode* node =
          pending[i].ask ? &*pending[i].ask : (*topo)->master_of(pending[i].slot);
      if (node == nullptr) {
        retry_error = make_redis_error(
            ErrorKind::io,
            "redis cluster: slot " + std::to_string(pending[i].slot) + " is served by no master");
        pause = true;
        again.push_back(std::move(pending[i]));
        continue;
      }
      NodeBatch& b = batches[node->address() + (pending[i].ask ? " asking" : "")];
      b.node = *node;
      b.asking = pending[i].ask.has_value();
      b.calls.push_back(i);
    }
    // Every node's pipeline at once: one thread per node beyond the first.
    std::vector<NodeBatch*> list;
    for (auto& [key, b] : batches) list.push_back(&b);
    std::vector<std::thread> threads;
    for (std::size_t k = 1; k < list.size(); ++k) {
      threads.emplace_back([&, k] { send(cluster_, *list[k], pending); });
    }
    if (!list.empty()) send(cluster_, *list[0], pending);
    for (auto& t : threads) t.join();

    for (NodeBatch* b : list) {
      if (b->error) {
        // An unreachable master may have been replaced: re-send if the map moved its slots.
        if (b->unreachable && !b->asking && cluster_.note_unreachable()) {
          for (std::size_t i : b->calls) again.push_back(std::move(pending[i]));
          redirected = true;
          retry_error = b->error;
          continue;
        }
        if (b->error->breaks_connection()) cluster_.note_unreachable();
        for (std::size_t i : b->calls) fail(pending[i].requests, *b->error);
        continue;
      }
      for (std::size_t k = 0; k < b->calls.size(); ++k) {
        PendingScriptCall& p = pending[b->calls[k]];
        const Value& reply = b->replies[k];
        if (reply.is_error()) {
          if (auto ce = parse_cluster_error(reply.str, b->node.host)) {
            cluster_.note(*ce);
            p.ask.reset();
            if (ce->kind == ClusterErrorKind::ask) p.ask = ce->node;
            if (ce->kind == ClusterErrorKind::moved || ce->kind == ClusterErrorKind::ask) {
              redirected = true;
            } else {
              pause = true;
            }
            retry_error =
                make_redis_error(ErrorKind::reply, "redis " + b->node.address() + ": " + reply.str);
            again.push_back(std::move(p));
            continue;
          }
        }
        std::vector<Result<RedisDecision>> decided;
        collect_decisions(reply, p.requests.size(), decided);
        for (std::size_t j = 0; j < p.requests.size(); ++j)
          out[p.requests[j]].emplace(std::move(decided[j]));
      }
    }
    if (again.empty()) break;
    if (redirected && ++hops > cluster_.options().max_redirects) {
      RedisError e =
          make_redis_error(ErrorKind::io, "redis cluster: more than " +
                                              std::to_string(cluster_.options().max_redirects) +
                                              " redirections, the last: " + retry_error->message);
      for (const auto& p : again) fail(p.requests, e);
      break;
    }
    if (pause && !cluster_.retry_pause(backoff, waited)) {
      const RedisError e = cluster_unavailable(*retry_error, waited);
      for (const auto& p : again) fail(p.requests, e);
      break;
    }
    pending = std::move(again);
  }
}

std::vector<Result<RedisDecision>> ClusterLimiter::decide_many(
    const std::vector<RuleRequest>& requests, std::size_t per_call, const DecideOptions& options) {
  std::vector<std::optional<Result<RedisDecision>>> out(requests.size());
  auto fail = [&out](const std::vector<std::size_t>& which, const RedisError& e) {
    for (std::size_t i : which) out[i].emplace(e);
  };

  // Each rule's requests, in their order, as the script calls one server would get.
  std::vector<PendingScriptCall> pending;
  {
    std::map<std::string, std::vector<std::size_t>> by_rule;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      auto& v = by_rule[requests[i].rule];
      if (v.empty()) order.push_back(requests[i].rule);
      v.push_back(i);
    }
    for (const std::string& rule : order) {
      const auto& idx = by_rule[rule];
      std::vector<DecideRequest> sub;
      sub.reserve(idx.size());
      for (std::size_t i : idx) sub.push_back(requests[i].request);
      auto calls = limiter_.batch_calls(rule, sub, per_call, options);
      if (!calls) {
        fail(idx, calls.error());
        continue;
      }
      add_pending(pending, rule_slot(limiter_.schema(), rule), *calls, idx);
    }
  }

  route_calls(std::move(pending), out);
  return decided(out);
}

Result<RedisDecision> ClusterLimiter::decide(const std::string& rule, const DecideRequest& request,
                                             const DecideOptions& options) {
  auto r = decide_many({RuleRequest{rule, request}}, 1, options);
  return std::move(r.front());
}

Result<std::vector<Result<RedisDecision>>> ClusterLimiter::decide_batch(
    const std::string& rule, const std::vector<DecideRequest>& requests, std::size_t per_call,
    const DecideOptions& options) {
  if (per_call == 0) return make_redis_error(ErrorKind::usage, "per_call must be >= 1");
  if (requests.empty()) return std::vector<Result<RedisDecision>>{};
  // One rule: its calls as they are, no regrouping.
  auto calls = limiter_.batch_calls(rule, requests, per_call, options);
  if (!calls) return calls.error();
  std::vector<std::size_t> all(requests.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  std::vector<PendingScriptCall> pending;
  pending.reserve(calls->size());
  add_pending(pending, rule_slot(limiter_.schema(), rule), *calls, all);
  std::vector<std::optional<Result<RedisDecision>>> out(requests.size());
  route_calls(std::move(pending), out);
  auto results = decided(out);
  for (const auto& r : results) {
    if (!r && r.error().kind != ErrorKind::reply) return r.error();
  }
  return results;
}

Result<std::optional<RuleConfig>> get_config(ClusterClient& cluster, const KeySchema& schema,
                                             std::string_view rule) {
  return on_rule_shard<std::optional<RuleConfig>>(
      cluster, schema, rule, [&](Connection& c) { return get_config(c, schema, rule); });
}

Result<RuleConfig> set_config(ClusterClient& cluster, const KeySchema& schema,
                              std::string_view rule, const RuleConfig& config,
                              const ChangeInfo& change) {
  return on_rule_shard<RuleConfig>(cluster, schema, rule, [&](Connection& c) {
    return set_config(c, schema, rule, config, change);
  });
}

Result<std::string> stored_version_field(ClusterClient& cluster, const KeySchema& schema,
                                         std::string_view rule) {
  return on_rule_shard<std::string>(
      cluster, schema, rule, [&](Connection& c) { return stored_version_field(c, schema, rule); });
}

Result<std::vector<AuditEntry>> config_history(ClusterClient& cluster, const KeySchema& schema,
                                               std::string_view rule, std::size_t count) {
  return on_rule_shard<std::vector<AuditEntry>>(
      cluster, schema, rule, [&](Connection& c) { return config_history(c, schema, rule, count); });
}

Result<RuleConfig> undo_config(ClusterClient& cluster, const KeySchema& schema,
                               std::string_view rule, const ChangeInfo& change) {
  return on_rule_shard<RuleConfig>(
      cluster, schema, rule, [&](Connection& c) { return undo_config(c, schema, rule, change); });
}

Result<std::optional<double>> ClusterLimiter::settle(const std::string& rule,
                                                     const SettleRequest& request,
                                                     const DecideOptions& options) {
  // A redirected settle.lua did not run, so repeating it on the new owner settles once.
  return on_rule_shard<std::optional<double>>(
      cluster_, limiter_.schema(), rule,
      [&](Connection& c) { return limiter_.settle(c, rule, request, options); });
}

Result<std::optional<RuleConfig>> ClusterLimiter::get_config(const std::string& rule) {
  return redis::get_config(cluster_, limiter_.schema(), rule);
}

Result<RuleConfig> ClusterLimiter::set_config(const std::string& rule, const RuleConfig& config,
                                              const ChangeInfo& change) {
  return redis::set_config(cluster_, limiter_.schema(), rule, config, change);
}

Result<std::string> ClusterLimiter::stored_version_field(const std::string& rule) {
  return redis::stored_version_field(cluster_, limiter_.schema(), rule);
}

Result<std::int64_t> ClusterLimiter::server_time_us(const std::string& rule) {
  return on_rule_shard<std::int64_t>(cluster_, limiter_.schema(), rule,
                                     [](Connection& c) { return read_server_time_us(c); });
}

Result<void> ClusterLimiter::check_decision_log_write(const std::string& rule) {
  return on_rule_shard<void>(cluster_, limiter_.schema(), rule, [&](Connection& c) {
    return redis::check_decision_log_write(c, limiter_.schema(), rule);
  });
}

}  // namespace limitscope::redis
