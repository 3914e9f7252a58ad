#include "core/redis/decision_record.h"

#include <cmath>

#include "core/redis/connection.h"  // classify_error_reply (error_reply.cpp)
#include "core/redis/state_codec.h"

namespace limitscope::redis {

namespace {

// decide.lua's reason codes (LS_REASON in common.lua, ordered by severity).
std::optional<DenyReason> reason_of_code(unsigned code) {
  switch (code) {
    case 0:
      return DenyReason::none;
    case 1:
      return DenyReason::exhausted;
    case 3:
      return DenyReason::cost_above_capacity;
    case 4:
      return DenyReason::invalid_cost;
    default:
      return std::nullopt;
  }
}

// A duration in integral ns within [0, 2^61] (what decide.lua reports).
bool in_ns_range(double ns) {
  return ns >= 0 && ns <= 2305843009213693952.0 && ns == std::floor(ns);
}

}  // namespace

RedisError decide_reply_error(const Value& v, std::string_view what) {
  return make_redis_error(ErrorKind::protocol,
                          "decide.lua reply: " + std::string(what) + " in " + v.describe());
}

Result<RedisDecision> parse_decision_record(const Value& v) {
  // A decision the script refused to make (its log write failed: LSLOG; a bad settlement):
  // its error in its place, nothing was written.
  if (v.is_error()) {
    if (v.str.empty()) return decide_reply_error(v, "an error element without text");
    return make_redis_error(classify_error_reply(v.str), v.str);
  }
  const bool admitted = v.is_string() && v.str.size() == kAdmittedRecordBytes;
  if (!v.is_string() || (v.str.size() < kRecordBytes && !admitted))
    return decide_reply_error(v, "expected a decision record");
  const auto byte = [&](std::size_t at) { return static_cast<unsigned char>(v.str[at]); };
  const auto num = [&](std::size_t at) {
    return decode_le_double(std::string_view(v.str).substr(at, 8));
  };
  const auto integral = [](double x) {
    return x >= 0 && x <= 9007199254740992.0 && x == std::floor(x);
  };
  RedisDecision r;
  Decision& d = r.decision;
  if (admitted) {
    // An admission with nothing else to report: remaining, limit, reset_after, version.
    const double reset = num(16), version = num(24);
    if (!in_ns_range(reset) || !integral(version))
      return decide_reply_error(v, "a field is out of range");
    d.allowed = true;
    d.reason = DenyReason::none;
    d.remaining = num(0);
    d.limit = num(8);
    d.retry_after = Nanos{0};
    d.reset_after = Nanos{static_cast<std::int64_t>(reset)};
    r.config_version = static_cast<std::int64_t>(version);
    return r;
  }
  const auto reason = reason_of_code(byte(1));
  const double retry = num(20), reset = num(28), version = num(36);
  if (byte(0) > 1 || byte(2) > 1 || byte(3) > 2 || !reason ||
      !(retry == -1 || in_ns_range(retry)) || !in_ns_range(reset) || !integral(version)) {
    return decide_reply_error(v, "a field is out of range");
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

}  // namespace limitscope::redis
