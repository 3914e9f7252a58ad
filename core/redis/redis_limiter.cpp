#include "core/redis/redis_limiter.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/redis/limiter_scripts.h"
#include "core/redis/script.h"
#include "core/redis/state_codec.h"

namespace limitscope::redis {

namespace {

// %.17g: the exact double, which the script reads back bit for bit.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Status check(const KeySchema& schema, std::string_view rule,
             const std::vector<DecideRequest>& requests) {
  if (Status e = schema.check_names(rule); !e.ok()) return e;
  for (const DecideRequest& r : requests) {
    if (r.costs.empty()) return make_error("request for key \"" + r.key + "\" has no cost");
    if (!std::isfinite(r.settle_delta))
      return make_error("request for key \"" + r.key + "\": the settlement must be finite");
  }
  return {};
}

// decide.lua's log flag: "" (no log), "1", or "1:<tokens>:<model>" (either may be empty).
std::string log_flag(const DecideRequest& r) {
  if (!r.log) return {};
  if (!r.llm_tokens && r.model.empty()) return "1";
  return "1:" + (r.llm_tokens ? std::to_string(*r.llm_tokens) : std::string()) + ":" + r.model;
}

// decide.lua's argument of a decision: its costs ("c", or "c1,c2" one per composite limit),
// then, only when it has any options, "|<now>|<settlement>|<log flag>". `own_now`: the request's
// instant goes with it (it is not the call's).
std::string decision_arg(const DecideRequest& r, bool own_now) {
  std::string a;
  for (double c : r.costs) {
    if (!a.empty()) a += ',';
    a += exact(c);
  }
  const bool now = own_now && r.now_us;
  if (!now && r.settle_delta == 0 && !r.log) return a;
  std::string settle;
  if (r.settle_delta != 0)
    settle = exact(r.settle_delta) + (r.settle_limit.empty() ? "" : ":" + r.settle_limit);
  return a + "|" + (now ? std::to_string(*r.now_us) : std::string()) + "|" + settle + "|" +
         log_flag(r);
}

// The instant every request of `requests[from, to)` carries, when they all carry the same one
// (test mode): it is the call's then, and the decisions' arguments stay plain costs.
std::optional<std::int64_t> shared_now(const std::vector<DecideRequest>& requests, std::size_t from,
                                       std::size_t to) {
  const std::optional<std::int64_t> t = requests[from].now_us;
  for (std::size_t i = from + 1; i < to && t; ++i) {
    if (requests[i].now_us != t) return std::nullopt;
  }
  return t;
}

// decide.lua's first argument: the call's time ("" = TIME, "<µs>" test mode, "by:<µs>" a
// deadline), then ",<log MAXLEN>" when a decision of the call logs or a TTL pad follows, and
// ",<pad ms>" when there is one (test mode).
std::string header_arg(const std::vector<DecideRequest>& requests, std::size_t from, std::size_t to,
                       const DecideOptions& o) {
  std::string h;
  if (o.now_us) {
    h = std::to_string(*o.now_us);
  } else if (o.deadline_us) {
    h = "by:" + std::to_string(*o.deadline_us);
  } else if (const auto t = shared_now(requests, from, to)) {
    h = std::to_string(*t);
  }
  bool logs = false;
  for (std::size_t i = from; i < to && !logs; ++i) logs = requests[i].log;
  if (logs || o.ttl_pad_ms != 0) h += "," + std::to_string(o.log_max_len);
  if (o.ttl_pad_ms != 0) h += "," + std::to_string(o.ttl_pad_ms);
  return h;
}

// One decide.lua call deciding `requests[from, to)`.
ScriptCall make_call(const KeySchema& schema, std::string_view rule,
                     const std::vector<DecideRequest>& requests, std::size_t from, std::size_t to,
                     const DecideOptions& o) {
  ScriptCall call;
  call.keys.reserve(kFixedKeys + to - from);
  call.keys.push_back(schema.config_key(rule));
  call.keys.push_back(schema.decisions_key(rule));
  call.keys.push_back(schema.config_stamp_key(rule));
  call.args.reserve(1 + to - from);
  call.args.push_back(header_arg(requests, from, to, o));
  // Requests' own instants stay theirs unless the header carries them (shared_now).
  const bool own_now = o.now_us || o.deadline_us || !shared_now(requests, from, to);
  for (std::size_t i = from; i < to; ++i) {
    call.keys.push_back(schema.state_key(rule, requests[i].key));
    call.args.push_back(decision_arg(requests[i], own_now));
  }
  return call;
}

// An integral number comes as an integer reply, any other as the 8 bytes of the double,
// little-endian (settle.lua's ls_reply_num; exact and cheap to write in Lua), or as decimal
// text (%.17g, exact).
std::optional<double> parse_double(const Value& v) {
  if (v.type == Value::Type::integer) return static_cast<double>(v.integer);
  if (!v.is_string()) return std::nullopt;
  if (v.str.size() == 8) return decode_le_double(v.str);
  double d = 0;
  const char* end = v.str.data() + v.str.size();
  auto [p, ec] = std::from_chars(v.str.data(), end, d);
  if (ec != std::errc() || p != end) return std::nullopt;
  return d;
}

}  // namespace

// A script call's reply (an array of one record per decision, or an error; a call of one
// decision replies with its record or error alone) spread over `n` results.
void collect_decisions(const Value& reply, std::size_t n, std::vector<Result<RedisDecision>>& out) {
  if (n == 1 && !reply.is_array()) {
    out.push_back(parse_decision_record(reply));
    return;
  }
  if (reply.is_error()) {
    for (std::size_t i = 0; i < n; ++i) {
      out.emplace_back(make_redis_error(classify_error_reply(reply.str), reply.str));
    }
    return;
  }
  if (!reply.is_array() || reply.elements.size() != n) {
    for (std::size_t i = 0; i < n; ++i) {
      out.emplace_back(decide_reply_error(reply, "expected " + std::to_string(n) + " decisions"));
    }
    return;
  }
  for (const Value& v : reply.elements) out.push_back(parse_decision_record(v));
}

Result<std::int64_t> read_server_time_us(Connection& c) {
  auto v = c.command({"TIME"});
  if (!v) return v.error();
  auto us = v->as_time_us();
  if (!us) return make_redis_error(ErrorKind::protocol, "TIME: unexpected reply " + v->describe());
  return *us;
}

Result<void> check_decision_log_write(Connection& c, const KeySchema& schema,
                                      std::string_view rule) {
  if (Status e = KeySchema::check_rule(rule); !e.ok())
    return make_redis_error(ErrorKind::usage, e.error());
  auto r = c.command({"XADD", schema.decisions_key(rule), "0-0", "limitscope-access-probe", "1"});
  // Redis 5+ never adds 0-0; were one added, the user may XADD all the same.
  if (r) return {};
  const RedisError& e = r.error();
  if (e.kind == ErrorKind::reply && e.message.find("greater than 0-0") != std::string::npos)
    return {};
  return e;
}

std::optional<std::int64_t> late_server_time_us(const RedisError& e) {
  constexpr std::string_view kLate = "LSLATE server time ";
  const std::string& m = e.message;
  const std::size_t at = m.find(kLate);
  if (e.kind != ErrorKind::reply || at == std::string::npos) return std::nullopt;
  std::int64_t us = 0;
  const char* begin = m.data() + at + kLate.size();
  const auto [p, ec] = std::from_chars(begin, m.data() + m.size(), us);
  if (ec != std::errc() || p == begin) return std::nullopt;
  return us;
}

Result<RedisDecision> RedisLimiter::decide(Connection& c, std::string_view rule,
                                           std::string_view key, double cost,
                                           const DecideOptions& options) const {
  DecideRequest r;
  r.key = std::string(key);
  r.costs = {cost};
  return decide(c, rule, r, options);
}

Result<RedisDecision> RedisLimiter::decide(Connection& c, std::string_view rule,
                                           const DecideRequest& request,
                                           const DecideOptions& options) const {
  const std::vector<DecideRequest> one{request};
  if (Status e = check(schema_, rule, one); !e.ok())
    return make_redis_error(ErrorKind::usage, e.error());
  ScriptCall call = make_call(schema_, rule, one, 0, 1, options);
  auto reply = eval(c, decide_script(), call.keys, call.args);
  if (!reply) return reply.error();
  std::vector<Result<RedisDecision>> out;
  collect_decisions(*reply, 1, out);
  return std::move(out.front());
}

Result<std::optional<double>> RedisLimiter::settle(Connection& c, std::string_view rule,
                                                   const SettleRequest& request,
                                                   const DecideOptions& options) const {
  if (Status e = schema_.check_names(rule); !e.ok()) {
    return make_redis_error(ErrorKind::usage, e.error());
  }
  if (!std::isfinite(request.token_delta)) {
    return make_redis_error(ErrorKind::usage,
                            "settle of \"" + request.key + "\": the delta must be finite");
  }
  if (request.token_delta == 0) return std::optional<double>();
  std::string state = schema_.state_key(rule, request.key);
  if (!request.limit.empty()) state += ":" + request.limit;
  auto reply = eval(c, settle_script(), {schema_.config_key(rule), state},
                    {request.limit, exact(request.token_delta),
                     options.now_us ? std::to_string(*options.now_us) : std::string(),
                     std::to_string(options.ttl_pad_ms)});
  if (!reply) return reply.error();
  if (reply->type == Value::Type::nil) return std::optional<double>();
  auto level = parse_double(*reply);
  if (!level) return decide_reply_error(*reply, "settle: expected a level or nil");
  return std::optional<double>(*level);
}

Result<std::vector<Result<RedisDecision>>> RedisLimiter::decide_pipelined(
    Connection& c, std::string_view rule, const std::vector<DecideRequest>& requests,
    const DecideOptions& options) const {
  return decide_batch(c, rule, requests, 1, options);
}

Result<std::vector<ScriptCall>> RedisLimiter::batch_calls(
    std::string_view rule, const std::vector<DecideRequest>& requests, std::size_t per_call,
    const DecideOptions& options) const {
  if (Status e = check(schema_, rule, requests); !e.ok())
    return make_redis_error(ErrorKind::usage, e.error());
  if (per_call == 0) return make_redis_error(ErrorKind::usage, "per_call must be >= 1");
  std::vector<ScriptCall> calls;
  calls.reserve((requests.size() + per_call - 1) / per_call);
  for (std::size_t from = 0; from < requests.size(); from += per_call) {
    calls.push_back(make_call(schema_, rule, requests, from,
                              std::min(requests.size(), from + per_call), options));
  }
  return calls;
}

Result<std::vector<Result<RedisDecision>>> RedisLimiter::decide_batch(
    Connection& c, std::string_view rule, const std::vector<DecideRequest>& requests,
    std::size_t per_call, const DecideOptions& options) const {
  auto calls = batch_calls(rule, requests, per_call, options);
  if (!calls) return calls.error();
  if (requests.empty()) return std::vector<Result<RedisDecision>>{};
  auto replies = eval_pipeline(c, decide_script(), *calls);
  if (!replies) return replies.error();
  std::vector<Result<RedisDecision>> out;
  out.reserve(requests.size());
  for (std::size_t i = 0; i < calls->size(); ++i) {
    collect_decisions((*replies)[i], (*calls)[i].keys.size() - kFixedKeys, out);
  }
  return out;
}

}  // namespace limitscope::redis
