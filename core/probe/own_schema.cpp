#include "core/probe/own_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "core/limiter/fixed_window.h"
#include "core/limiter/gcra.h"
#include "core/limiter/sliding_counter.h"
#include "core/limiter/token_bucket.h"
#include "core/redis/state_codec.h"

namespace limitscope::probe {

namespace {

std::optional<std::int64_t> int_of(const redis::Value& v) {
  return v.as_integer();
}

// At most the first 30 bytes of a state for an error text, bytes outside printable ASCII as '.'.
std::string printable_prefix(std::string_view bytes) {
  std::string out(bytes.substr(0, 30));
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '.';
  }
  return out;
}

void fill_bucket(KeyReading& r, double available, double capacity) {
  r.level = std::clamp(available, 0.0, capacity);
  r.capacity = capacity;
  r.fill = *r.level / capacity;
}

void fill_window(KeyReading& r, double available, double limit) {
  r.limit = limit;
  r.count = std::clamp(limit - available, 0.0, limit);
  r.occupancy = *r.count / limit;
}

}  // namespace

std::optional<OwnKey> parse_own_key(const std::string& key) {
  const auto open = key.find('{');
  if (open == std::string::npos) return std::nullopt;
  const auto close = key.find('}', open + 1);
  if (close == std::string::npos || close == open + 1) return std::nullopt;
  if (key.compare(close + 1, 3, ":s:") != 0 || close + 4 > key.size()) return std::nullopt;
  OwnKey k;
  k.rule = key.substr(open + 1, close - open - 1);
  k.config_key = key.substr(0, close + 1) + ":config";
  k.rest = key.substr(close + 4);
  return k;
}

namespace {
// "<prefix>{R}" of "<prefix>{R}:config".
std::string rule_base(const std::string& config_key) {
  constexpr std::string_view kConfigSuffix = ":config";
  return config_key.ends_with(kConfigSuffix)
             ? config_key.substr(0, config_key.size() - kConfigSuffix.size())
             : config_key;
}
}  // namespace

std::string pressure_key_for_config(const std::string& config_key) {
  return rule_base(config_key) + ":pressure";
}

std::string stamp_key_for_config(const std::string& config_key) {
  return rule_base(config_key) + ":stamp";
}

bool legacy_states_possible(const redis::Value& stamp, std::int64_t now_us) {
  if (!stamp.is_string()) return true;  // no stamp (or not readable): old states may exist
  constexpr std::string_view kMark = " legacy ";
  const auto at = stamp.str.rfind(kMark);
  if (at == std::string::npos) return false;
  std::int64_t until = 0;
  const char* first = stamp.str.data() + at + kMark.size();
  const char* last = stamp.str.data() + stamp.str.size();
  const auto [end, ec] = std::from_chars(first, last, until);
  if (ec != std::errc{} || end != last) return true;
  return now_us < until;
}

std::vector<std::string> state_keys_for_label(const std::string& config_key,
                                              const redis::RuleConfig& config,
                                              const std::string& label) {
  const std::string state = rule_base(config_key) + ":s:" + label;
  if (!config.composite()) return {state};
  std::vector<std::string> keys;
  for (const auto& l : config.limits) keys.push_back(state + ":" + l.name);
  return keys;
}

const redis::NamedLimit* limit_for(const redis::RuleConfig& config, const std::string& rest) {
  if (!config.composite()) return config.limits.empty() ? nullptr : &config.limits.front();
  for (const auto& l : config.limits) {
    const std::string suffix = ":" + l.name;
    if (rest.size() > suffix.size() && rest.ends_with(suffix)) return &l;
  }
  return nullptr;
}

std::size_t own_read_commands(redis::CommandBatch& out, const LimitParams& params,
                              const std::string& key, std::int64_t now_us, bool with_ttl,
                              bool legacy) {
  const bool hash_too = params.algorithm == Algorithm::token_bucket && legacy;
  switch (params.algorithm) {
    case Algorithm::token_bucket:
      // The string (24 bytes, or the 16 of format 1: state_codec.h), and the hash a state
      // written before issue 18 may still be (one of the two answers WRONGTYPE) where the
      // rule's stamp says one may.
      out.add({"GET", key});
      if (hash_too) out.add({"HMGET", key, "tokens", "ts"});
      break;
    case Algorithm::gcra:
      out.add({"GET", key});
      break;
    case Algorithm::fixed_window:
      out.add({"HMGET", key, "ws", "count"});
      break;
    case Algorithm::sliding_counter:
      out.add({"HMGET", key, "ws", "prev", "curr"});
      break;
    case Algorithm::sliding_log: {
      // Entries "<t_us>:<cost>" still inside the window (t > now − W).
      const std::int64_t from = now_us - params.window.count() / 1000;
      out.add({"ZRANGEBYSCORE", key, "(" + std::to_string(from), "+inf"});
      break;
    }
    case Algorithm::leaky_bucket:
      out.add({"TYPE", key});  // not run on Redis; answered as unsupported below
      break;
  }
  if (with_ttl) out.add({"PTTL", key});
  const std::size_t reads = hash_too ? 2 : 1;
  return reads + (with_ttl ? 1 : 0);
}

KeyReading own_evaluate(const std::string& profile, const std::string& key,
                        const LimitParams& params, std::span<const redis::Value> replies,
                        std::int64_t now_us, const std::string* parameters) {
  KeyReading r;
  r.key = key;
  r.profile = profile;
  r.kind = ProfileKind::limitscope;
  r.algorithm = std::string(to_string(params.algorithm));
  r.parameters = parameters != nullptr ? *parameters : params.describe();
  own_evaluate_into(r, params, replies, now_us);
  return r;
}

void own_evaluate_into(KeyReading& r, const LimitParams& params,
                       std::span<const redis::Value> replies, std::int64_t now_us) {
  r.clear_figures();
  if (replies.empty()) {
    r.error = "incomplete reply";
    return;
  }
  const redis::Value& state = replies[0];
  if (replies.size() > 1 && replies.back().type == redis::Value::Type::integer) {
    if (replies.back().integer == -2) r.missing = true;
    if (replies.back().integer >= 0) r.ttl_ms = replies.back().integer;
  }
  if (state.is_error() && !(params.algorithm == Algorithm::token_bucket && replies.size() > 1 &&
                            replies[1].is_array())) {
    r.error = state.str.starts_with("WRONGTYPE")
                  ? "wrong type for a " + std::string(to_string(params.algorithm)) + " state"
                  : state.str;
    return;
  }
  const Nanos now{now_us * 1000};
  const auto field = [&](std::size_t i) -> const redis::Value& { return state.elements[i]; };
  const auto corrupt = [&](const std::string& what) {
    r.error = "state " + what + " (the next decision resets it, docs/redis-schema.md)";
  };
  switch (params.algorithm) {
    case Algorithm::token_bucket: {
      if (state.is_nil()) {
        fill_bucket(r, params.capacity, params.capacity);  // absent: a fresh, full bucket
        return;
      }
      if (state.is_string()) {
        const auto v = redis::decode_token_bucket_state(state.str);
        if (!v || !std::isfinite(v->tokens) || !std::isfinite(v->ts_us) || !(v->exp_ms >= 0) ||
            !std::isfinite(v->exp_ms))
          return corrupt("is not 24 (or 16) bytes of tokens, ts (and exp)");
        TokenBucket::State s{v->tokens, static_cast<std::int64_t>(v->ts_us) * 1000};
        fill_bucket(r, TokenBucket::available(params, s, now), params.capacity);
        return;
      }
      const redis::Value& hash = replies.size() > 1 ? replies[1] : state;
      if (!hash.is_array() || hash.elements.size() != 2)
        return corrupt("is neither a string nor a hash");
      if (hash.elements[0].is_nil() && hash.elements[1].is_nil()) {
        fill_bucket(r, params.capacity, params.capacity);  // absent: a fresh, full bucket
        return;
      }
      const auto tokens = hash.elements[0].as_number();
      const auto ts = int_of(hash.elements[1]);
      if (!tokens || !ts) return corrupt("tokens/ts are not numbers");
      TokenBucket::State s{*tokens, *ts * 1000};
      fill_bucket(r, TokenBucket::available(params, s, now), params.capacity);
      return;
    }
    case Algorithm::gcra: {
      if (state.is_nil()) {
        fill_bucket(r, params.capacity, params.capacity);
        return;
      }
      // The TAT's decimal ns text, or format 3's 24 bytes (state_codec.h).
      const auto v = state.is_string() ? redis::decode_gcra_state(state.str)
                                       : std::optional<redis::GcraStateValue>{};
      if (!v) {
        return corrupt("TAT '" + printable_prefix(state.str) +
                       "' is neither an integer of ns nor 24 bytes of TAT and exp");
      }
      Gcra::State s{v->tat_ns()};
      fill_bucket(r, Gcra::available(params, s, now), params.capacity);
      return;
    }
    case Algorithm::fixed_window: {
      if (!state.is_array() || state.elements.size() != 2) return corrupt("is not a hash");
      if (field(0).is_nil()) {
        fill_window(r, params.limit, params.limit);
        return;
      }
      const auto ws = int_of(field(0));
      const auto count = field(1).as_number();
      if (!ws || !count) return corrupt("ws/count are not numbers");
      FixedWindow::State s{*ws * 1000, *count};
      fill_window(r, FixedWindow::available(params, s, now), params.limit);
      return;
    }
    case Algorithm::sliding_counter: {
      if (!state.is_array() || state.elements.size() != 3) return corrupt("is not a hash");
      if (field(0).is_nil()) {
        fill_window(r, params.limit, params.limit);
        return;
      }
      const auto ws = int_of(field(0));
      const auto prev = field(1).as_number();
      const auto curr = field(2).as_number();
      if (!ws || !prev || !curr) return corrupt("ws/prev/curr are not numbers");
      SlidingCounter::State s{*ws * 1000, *prev, *curr};
      fill_window(r, SlidingCounter::available(params, s, now), params.limit);
      return;
    }
    case Algorithm::sliding_log: {
      if (!state.is_array()) return corrupt("is not a sorted set");
      double used = 0;
      for (const auto& m : state.elements) {
        const auto colon = m.str.find(':');
        if (colon == std::string::npos || m.str.starts_with("u:")) continue;
        double cost = 0;
        const char* b = m.str.data() + colon + 1;
        const char* e = m.str.data() + m.str.size();
        auto [p, ec] = std::from_chars(b, e, cost);
        if (ec != std::errc{} || p != e) return corrupt("member '" + m.str + "' is not <t>:<cost>");
        used += cost;
      }
      fill_window(r, params.limit - used, params.limit);
      return;
    }
    case Algorithm::leaky_bucket:
      r.error = "leaky-bucket rules do not run on Redis";
      return;
  }
}

}  // namespace limitscope::probe
