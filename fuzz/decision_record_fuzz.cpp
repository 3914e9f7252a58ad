// libFuzzer target for decide.lua's decision records (core/redis/decision_record): any reply
// element either fails with a message (a protocol error naming the reply, or the element's own
// error) or gives a decision whose fields are in range; a parsed record, written back in
// ls_record's layout, parses again to the same decision. The same bytes as a GCRA state
// (core/redis/state_codec.h, issue 18's format 3 or the TAT's text) are refused or within the
// bounds decide.lua checks, and written back in format 3 read again to the same state.
// seed-corpus: tests/data/fuzz/decision_record
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/redis/decision_record.h"
#include "core/redis/state_codec.h"
#include "fuzz/fuzz_check.h"

namespace {

using namespace limitscope;
using namespace limitscope::redis;

void put_double(std::string& out, double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xffU));
}

unsigned reason_code(DenyReason r) {
  switch (r) {
    case DenyReason::none:
      return 0;
    case DenyReason::exhausted:
      return 1;
    case DenyReason::cost_above_capacity:
      return 3;
    default:
      break;
  }
  check(r == DenyReason::invalid_cost);  // no other reason comes from a record
  return 4;
}

// ls_record's layout of a parsed decision.
std::string written_back(const RedisDecision& r) {
  std::string s;
  s.push_back(static_cast<char>(r.decision.allowed ? 1 : 0));
  s.push_back(static_cast<char>(reason_code(r.decision.reason)));
  s.push_back(static_cast<char>(r.state_reset ? 1 : 0));
  s.push_back(static_cast<char>(!r.shadow_allowed ? 0 : (*r.shadow_allowed ? 2 : 1)));
  put_double(s, r.decision.remaining);
  put_double(s, r.decision.limit);
  put_double(s,
             r.decision.retry_after ? static_cast<double>(r.decision.retry_after->count()) : -1.0);
  put_double(s, static_cast<double>(r.decision.reset_after.count()));
  put_double(s, static_cast<double>(r.config_version));
  return s + r.binding_limit;
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// The little-endian double at byte `at` of `s`, read here independently of the parser.
double le_double_at(const std::string& s, std::size_t at) {
  std::uint64_t b = 0;
  for (std::size_t i = 8; i-- > 0;) b = (b << 8) | static_cast<unsigned char>(s[at + i]);
  return std::bit_cast<double>(b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // The first byte picks how the element came (string, status, error, integer, nil), the rest
  // is its text.
  const unsigned kind = size == 0 ? 0 : data[0] % 5;
  const std::string text = size == 0 ? std::string() : bytes.substr(1);
  if (const auto g = decode_gcra_state(text)) {
    check(g->tat_us >= 0 && g->tat_us <= 9007199254740992.0 && g->rem_ns >= 0 && g->rem_ns <= 999 &&
          g->exp_ms >= 0 && std::isfinite(g->exp_ms));
    check(text.size() == 24 || g->exp_ms == 0);
    const auto again = decode_gcra_state(encode_gcra_state(*g));
    check(again.has_value() && again->tat_ns() == g->tat_ns() &&
          same_bits(again->exp_ms, g->exp_ms));
  }
  Value v;
  switch (kind) {
    case 0:
      v = Value::of_string(text);
      break;
    case 1:
      v = Value::of_status(text);
      break;
    case 2:
      v = Value::of_error(text);
      break;
    case 3:
      v = Value::of_integer(static_cast<std::int64_t>(text.size()));
      break;
    default:
      v = Value::nil();
      break;
  }
  auto r = parse_decision_record(v);
  if (!r.ok()) {
    check(!r.error().message.empty());
    if (v.is_error() && !text.empty()) {
      check(r.error().message == text);
    } else {
      check(r.error().kind == ErrorKind::protocol);
      check(r.error().message.rfind("decide.lua reply: ", 0) == 0);
    }
    return 0;
  }
  // An admission with nothing else to report comes as the short record (issue 18).
  const bool short_record = v.is_string() && v.str.size() == kAdmittedRecordBytes;
  check(v.is_string() && (short_record || v.str.size() >= kRecordBytes));
  const RedisDecision& d = *r;
  check(d.config_version >= 0 && d.config_version <= (std::int64_t{1} << 53));
  check(d.decision.reset_after.count() >= 0 &&
        d.decision.reset_after.count() <= (std::int64_t{1} << 61));
  if (d.decision.retry_after) {
    check(d.decision.retry_after->count() >= 0 &&
          d.decision.retry_after->count() <= (std::int64_t{1} << 61));
  }
  if (short_record) {
    check(d.decision.allowed && d.binding_limit.empty() && !d.state_reset && !d.shadow_allowed &&
          d.decision.retry_after == Nanos{0});
    check(same_bits(d.decision.remaining, le_double_at(v.str, 0)) &&
          same_bits(d.decision.limit, le_double_at(v.str, 8)));
  } else {
    check(d.binding_limit == v.str.substr(kRecordBytes));
    check(d.decision.allowed == (v.str[0] == 1));
    check(same_bits(d.decision.remaining, le_double_at(v.str, 4)) &&
          same_bits(d.decision.limit, le_double_at(v.str, 12)));
  }
  // Written back, the record parses to the same decision, bit for bit.
  auto again = parse_decision_record(Value::of_string(written_back(d)));
  check(again.ok());
  check(again->decision.allowed == d.decision.allowed &&
        again->decision.reason == d.decision.reason);
  check(same_bits(again->decision.remaining, d.decision.remaining) &&
        same_bits(again->decision.limit, d.decision.limit));
  check(again->decision.retry_after == d.decision.retry_after &&
        again->decision.reset_after == d.decision.reset_after);
  check(again->config_version == d.config_version && again->binding_limit == d.binding_limit);
  check(again->state_reset == d.state_reset && again->shadow_allowed == d.shadow_allowed);
  return 0;
}
