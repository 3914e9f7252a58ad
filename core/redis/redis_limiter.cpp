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

std::optional<std::string> check(const KeySchema& schema, std::string_view rule,
                                  const std::vector<DecideRequest>& requests) {
  if (auto e = schema.check_prefix()) return e;
  if (auto e = KeySchema::check_rule(rule)) return e;
  for (const DecideRequest& r : requests) {
    if (r.costs.empty()) return "request for key \"" + r.key + "\" has no cost";
    if (!std::isfinite(r.settle_delta)) return "request for key \"" + r.key + "\": the settlement must be finite";
  }
  return std::nullopt;
}

// decide.lua's log flag: "" (no log), "1", or "1:<tokens>:<model>" (either may be empty).
std::string log_flag(const DecideRequest& r) {
  if (!r.log) return {};
  if (!r.llm_tokens && r.model.empty()) return "1";
  return "1:" + (r.llm_tokens ? std::to_string(*r.llm_tokens) : std::string()) + ":" + r.model;
}

// decide.lua's options of a decision: "" (none), else "<now>|<settlement>|<log flag>".
std::string options_arg(const DecideRequest& r) {
  if (!r.now_us && r.settle_delta == 0 && !r.log) return {};
  std::string settle;
  if (r.settle_delta != 0) settle = exact(r.settle_delta) + (r.settle_limit.empty() ? "" : ":" + r.settle_limit);
  return (r.now_us ? std::to_string(*r.now_us) : std::string()) + "|" + settle + "|" + log_flag(r);
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
  call.args.reserve(3 + 2 * (to - from));
  if (o.now_us) {
    call.args.push_back(std::to_string(*o.now_us));
  } else if (o.deadline_us) {
    call.args.push_back("by:" + std::to_string(*o.deadline_us));
  } else {
    call.args.emplace_back();
  }
  call.args.push_back(std::to_string(o.log_max_len));
  call.args.push_back(std::to_string(o.ttl_pad_ms));
  for (std::size_t i = from; i < to; ++i) {
    const DecideRequest& r = requests[i];
    call.keys.push_back(schema.state_key(rule, r.key));
    std::string costs;
    for (double c : r.costs) {
      if (!costs.empty()) costs += ',';
      costs += exact(c);
    }
    call.args.push_back(std::move(costs));
    call.args.push_back(options_arg(r));
  }
  return call;
}

RedisError bad_reply(const Value& v, std::string_view what) {
  return make_redis_error(ErrorKind::protocol,
                          "decide.lua reply: " + std::string(what) + " in " + v.describe());
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

// decide.lua's reason codes (LS_REASON in common.lua, ordered by severity).
std::optional<DenyReason> reason_of_code(unsigned code) {
  switch (code) {
    case 0: return DenyReason::none;
    case 1: return DenyReason::exhausted;
    case 3: return DenyReason::cost_above_capacity;
    case 4: return DenyReason::invalid_cost;
    default: return std::nullopt;
  }
}

// A duration in integral ns within [0, 2^61] (what decide.lua reports).
bool in_ns_range(double ns) { return ns >= 0 && ns <= 2305843009213693952.0 && ns == std::floor(ns); }

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
      out.emplace_back(bad_reply(reply, "expected " + std::to_string(n) + " decisions"));
    }
    return;
  }
  for (const Value& v : reply.elements) out.push_back(parse_decision_record(v));
}

Result<RedisDecision> parse_decision_record(const Value& v) {
  // A decision the script refused to make (its log write failed: LSLOG; a bad settlement):
  // its error in its place, nothing was written.
  if (v.is_error()) return make_redis_error(classify_error_reply(v.str), v.str);
  if (!v.is_string() || v.str.size() < kRecordBytes) return bad_reply(v, "expected a decision record");
  const auto byte = [&](std::size_t at) { return static_cast<unsigned char>(v.str[at]); };
  const auto num = [&](std::size_t at) { return decode_le_double(std::string_view(v.str).substr(at, 8)); };
  RedisDecision r;
  Decision& d = r.decision;
  const auto reason = reason_of_code(byte(1));
  const double retry = num(20), reset = num(28), version = num(36);
  if (byte(0) > 1 || byte(2) > 1 || byte(3) > 2 || !reason || !(retry == -1 || in_ns_range(retry)) ||
      !in_ns_range(reset) || !(version >= 0 && version <= 9007199254740992.0 && version == std::floor(version))) {
    return bad_reply(v, "a field is out of range");
  }
  d.allowed = byte(0) == 1;
  d.reason = *reason;
  r.state_reset = byte(2) == 1;
  d.remaining = num(4);
  d.limit = num(12);
  if (retry >= 0) d.retry_after = Nanos{static_cast<std::int64_t>(retry)};
  d.reset_after = Nanos{static_cast<std::int64_t>(reset)};
  r.config_version = static_cast<std::int64_t>(version);
  r.binding_limit = v.str.substr(kRecordBytes);
  if (byte(3) != 0) r.shadow_allowed = byte(3) == 2;
  return r;
}

Result<std::int64_t> read_server_time_us(Connection& c) {
  auto v = c.command({"TIME"});
  if (!v) return v.error();
  auto us = v->as_time_us();
  if (!us) return make_redis_error(ErrorKind::protocol, "TIME: unexpected reply " + v->describe());
  return *us;
}

Result<Unit> check_decision_log_write(Connection& c, const KeySchema& schema, std::string_view rule) {
  if (auto e = KeySchema::check_rule(rule)) return make_redis_error(ErrorKind::usage, *e);
  auto r = c.command({"XADD", schema.decisions_key(rule), "0-0", "limitscope-access-probe", "1"});
  // Redis 5+ never adds 0-0; were one added, the user may XADD all the same.
  if (r) return Unit{};
  const RedisError& e = r.error();
  if (e.kind == ErrorKind::reply && e.message.find("greater than 0-0") != std::string::npos) return Unit{};
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
  if (auto e = check(schema_, rule, one)) return make_redis_error(ErrorKind::usage, *e);
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
  if (auto e = schema_.check_prefix()) return make_redis_error(ErrorKind::usage, *e);
  if (auto e = KeySchema::check_rule(rule)) return make_redis_error(ErrorKind::usage, *e);
  if (!std::isfinite(request.token_delta)) {
    return make_redis_error(ErrorKind::usage, "settle of \"" + request.key + "\": the delta must be finite");
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
  if (!level) return bad_reply(*reply, "settle: expected a level or nil");
  return std::optional<double>(*level);
}

Result<std::vector<Result<RedisDecision>>> RedisLimiter::decide_pipelined(
    Connection& c, std::string_view rule, const std::vector<DecideRequest>& requests,
    const DecideOptions& options) const {
  return decide_batch(c, rule, requests, 1, options);
}

Result<std::vector<ScriptCall>> RedisLimiter::batch_calls(std::string_view rule,
                                                          const std::vector<DecideRequest>& requests,
                                                          std::size_t per_call,
                                                          const DecideOptions& options) const {
  if (auto e = check(schema_, rule, requests)) return make_redis_error(ErrorKind::usage, *e);
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
