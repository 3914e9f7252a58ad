#include "core/limiter/policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace limitscope {
namespace {

using nlohmann::json;

// A refusal found while walking the document: where (JSON pointer) and why.
struct PolicyProblem {
  std::string path;
  std::string reason;
};

std::string number_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// One JSON pointer token: '~' -> "~0", '/' -> "~1" (RFC 6901), so model names such as
// "openai/gpt-4.1" keep the path unambiguous.
std::string pointer_token(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string child(const std::string& path, std::string_view name) {
  return path + "/" + pointer_token(name);
}

std::string type_name(const json& v) {
  if (v.is_number()) return "number " + v.dump();
  if (v.is_string()) return "string " + v.dump();
  return std::string(v.type_name());
}

[[noreturn]] void refuse(const std::string& path, std::string reason) {
  throw PolicyProblem{path, std::move(reason)};
}

const json& require_object(const json& v, const std::string& path) {
  if (!v.is_object()) refuse(path, "expected an object, got " + type_name(v));
  return v;
}

// Refuses members the format does not define: a typo ("capacty") must not silently fall
// back to a default.
void allow_only(const json& obj, const std::string& path,
                std::initializer_list<std::string_view> names, std::string_view hint = {}) {
  for (const auto& [name, value] : obj.items()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::string allowed;
      for (auto n : names) allowed += (allowed.empty() ? "" : ", ") + std::string(n);
      std::string reason = "unknown field \"" + name + "\" (allowed here: " + allowed + ")";
      if (!hint.empty()) reason += "; " + std::string(hint);
      refuse(child(path, name), reason);
    }
  }
}

const json* member(const json& obj, std::string_view name) {
  auto it = obj.find(name);
  return it == obj.end() ? nullptr : &*it;
}

const json& required(const json& obj, const std::string& path, std::string_view name) {
  const json* v = member(obj, name);
  if (v == nullptr) refuse(child(path, name), "required field is missing");
  return *v;
}

// A finite number > 0 (or >= 0 when zero_ok).
double positive_number(const json& v, const std::string& path, bool zero_ok = false) {
  if (!v.is_number()) refuse(path, "expected a number, got " + type_name(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0 || (!zero_ok && d == 0)) {
    refuse(path, std::string("must be a finite number ") + (zero_ok ? ">= 0" : "> 0") + ", got " +
                     number_text(d));
  }
  return d;
}

const std::string& string_value(const json& v, const std::string& path) {
  if (!v.is_string()) refuse(path, "expected a string, got " + type_name(v));
  return v.get_ref<const std::string&>();
}

Rate rate_value(const json& v, const std::string& path) {
  if (v.is_number()) {
    refuse(path,
           "a rate needs a unit, like \"50/s\" or \"100/min\"; got the bare number " + v.dump());
  }
  auto r = parse_rate(string_value(v, path));
  if (!r) refuse(path, r.error());
  if (!std::isfinite(r->per_second()) || !(r->per_second() > 0)) {
    refuse(path, "rate " + v.dump() + " is not a finite rate > 0");
  }
  return *r;
}

Nanos duration_value(const json& v, const std::string& path) {
  if (v.is_number()) {
    refuse(path, "a window needs a unit, like \"60s\" or \"1h\"; got the bare number " + v.dump());
  }
  auto d = parse_duration(string_value(v, path));
  if (!d) refuse(path, d.error());
  return *d;
}

LimitParams parse_limit(const json& v, const std::string& path) {
  require_object(v, path);
  LimitParams p;
  const std::string alg_path = child(path, "algorithm");
  const std::string& alg_name = string_value(required(v, path, "algorithm"), alg_path);
  auto alg = parse_algorithm(alg_name);
  if (!alg) {
    refuse(alg_path, "unknown algorithm \"" + alg_name +
                         "\" (known: token-bucket, gcra, sliding-log, sliding-counter, "
                         "fixed-window, leaky-bucket)");
  }
  p.algorithm = *alg;
  if (is_window_algorithm(p.algorithm)) {
    allow_only(v, path, {"algorithm", "limit", "window"},
               "window algorithms take limit and window");
    p.limit = positive_number(required(v, path, "limit"), child(path, "limit"));
    p.window = duration_value(required(v, path, "window"), child(path, "window"));
  } else {
    allow_only(v, path, {"algorithm", "capacity", "refill"},
               "bucket algorithms take capacity and refill");
    p.capacity = positive_number(required(v, path, "capacity"), child(path, "capacity"));
    p.refill = rate_value(required(v, path, "refill"), child(path, "refill"));
  }
  if (Status why = p.validate(); !why.ok()) refuse(path, why.error());
  return p;
}

std::string tier_list(const Policy& p) {
  std::string out;
  for (const auto& t : p.tiers) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

std::size_t tier_reference(const Policy& p, const json& v, const std::string& path) {
  const std::string& name = string_value(v, path);
  auto idx = p.tier_index(name);
  if (!idx) refuse(path, "unknown tier \"" + name + "\" (tiers: " + tier_list(p) + ")");
  return *idx;
}

void parse_tiers(const json& root, Policy& out) {
  const json& tiers = require_object(required(root, "", "tiers"), "/tiers");
  if (tiers.empty()) refuse("/tiers", "at least one tier is required");
  for (const auto& [name, t] : tiers.items()) {
    const std::string path = child("/tiers", name);
    if (name.empty()) refuse(path, "tier name must not be empty");
    require_object(t, path);
    allow_only(t, path, {"requests", "llm_tokens", "daily_quota", "description"});
    TierPolicy tier;
    tier.name = name;
    tier.requests = parse_limit(required(t, path, "requests"), child(path, "requests"));
    if (const json* tokens = member(t, "llm_tokens"); tokens != nullptr && !tokens->is_null()) {
      const std::string tokens_path = child(path, "llm_tokens");
      LimitParams p = parse_limit(*tokens, tokens_path);
      if (p.algorithm != Algorithm::token_bucket) {
        refuse(child(tokens_path, "algorithm"),
               "llm_tokens takes token-bucket only (a request's token estimate is settled "
               "against the upstream's usage afterwards), got \"" +
                   std::string(to_string(p.algorithm)) + "\"");
      }
      tier.llm_tokens = p;
    }
    if (const json* q = member(t, "daily_quota"); q != nullptr && !q->is_null()) {
      tier.daily_quota = positive_number(*q, child(path, "daily_quota"));
    }
    if (const json* d = member(t, "description")) string_value(*d, child(path, "description"));
    out.tiers.push_back(std::move(tier));  // nlohmann objects iterate in name order
  }
}

void parse_models(const json& root, Policy& out) {
  const json& models = require_object(required(root, "", "models"), "/models");
  if (models.empty()) refuse("/models", "at least one model is required");
  for (const auto& [name, m] : models.items()) {
    const std::string path = child("/models", name);
    if (name.empty()) refuse(path, "model name must not be empty");
    require_object(m, path);
    allow_only(m, path, {"cost", "price_per_million_tokens", "description"});
    ModelPolicy model;
    model.name = name;
    model.cost = positive_number(required(m, path, "cost"), child(path, "cost"));
    if (const json* price = member(m, "price_per_million_tokens")) {
      model.price_per_million_tokens =
          positive_number(*price, child(path, "price_per_million_tokens"), /*zero_ok=*/true);
    }
    if (const json* d = member(m, "description")) string_value(*d, child(path, "description"));
    // A request that can never fit a tier's limit would be refused forever: catch it here.
    for (const auto& tier : out.tiers) {
      if (model.cost > tier.requests.max_cost()) {
        refuse(child(path, "cost"),
               "cost " + number_text(model.cost) + " is above the " +
                   (is_window_algorithm(tier.requests.algorithm) ? "limit " : "capacity ") +
                   number_text(tier.requests.max_cost()) + " of tier \"" + tier.name +
                   "\": its requests could never be admitted");
      }
    }
    out.models.push_back(std::move(model));
  }
}

void parse_keys(const json& root, Policy& out) {
  const json* keys = member(root, "keys");
  if (keys == nullptr) return;
  require_object(*keys, "/keys");
  for (const auto& [key, value] : keys->items()) {
    const std::string path = child("/keys", key);
    if (key.empty()) refuse(path, "API key must not be empty");
    if (!value.is_object()) {
      out.keys.emplace(key, tier_reference(out, value, path));
      continue;
    }
    // {"tier": ..., "name": ...}: the name operators know the tenant by (docs/policy.md).
    allow_only(value, path, {"tier", "name"});
    out.keys.emplace(key, tier_reference(out, required(value, path, "tier"), child(path, "tier")));
    if (const json* n = member(value, "name")) {
      const std::string& name = string_value(*n, child(path, "name"));
      if (name.empty() || name.size() > kMaxKeyNameLength) {
        refuse(child(path, "name"), "a key's name must be 1 to " +
                                        std::to_string(kMaxKeyNameLength) + " characters, got " +
                                        std::to_string(name.size()));
      }
      out.key_names.emplace(key, name);
    }
  }
}

Policy build(const json& root, std::string_view source_name) {
  if (!root.is_object()) refuse("", "the document must be a JSON object, got " + type_name(root));
  allow_only(root, "", {"version", "description", "default_tier", "tiers", "models", "keys"});
  if (const json* version = member(root, "version")) {
    if (!version->is_number_integer() || version->get<long long>() != 1) {
      refuse("/version",
             "unsupported version " + version->dump() + " (this build reads version 1)");
    }
  }
  if (const json* d = member(root, "description")) string_value(*d, "/description");
  Policy out;
  out.source = std::string(source_name);
  parse_tiers(root, out);
  parse_models(root, out);
  parse_keys(root, out);
  if (const json* def = member(root, "default_tier"); def != nullptr && !def->is_null()) {
    out.default_tier = tier_reference(out, *def, "/default_tier");
  }
  return out;
}

// nlohmann keeps the last of two equal keys silently; a policy with two "free" tiers is a
// mistake worth naming, so the parse callback tracks the keys of every open object.
struct DuplicateKey {
  std::string path;
  std::string key;
};

class DuplicateKeyCheck {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        frames_.push_back(Frame{true, {}, pending_});
        break;
      case json::parse_event_t::array_start:
        frames_.push_back(Frame{false, {}, pending_});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        Frame& f = frames_.back();
        if (!f.keys.insert(key).second) throw DuplicateKey{f.path, key};
        pending_ = child(f.path, key);
        break;
      }
      case json::parse_event_t::value:
        break;
    }
    if (!frames_.empty() && !frames_.back().is_object) pending_ = frames_.back().path + "/-";
    return true;
  }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;
    std::string path;
  };
  std::vector<Frame> frames_;
  std::string pending_;  // path of the value about to start
};

// 1-based line and column of a byte offset (nlohmann reports the byte after the error).
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t byte) {
  std::size_t line = 1;
  std::size_t col = 1;
  const std::size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// The index of the element called `name` in `sorted` (ordered by name), if there is one.
template <class T>
std::optional<std::size_t> index_by_name(const std::vector<T>& sorted, std::string_view name) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), name,
                             [](const T& e, std::string_view n) { return e.name < n; });
  if (it == sorted.end() || it->name != name) return std::nullopt;
  return static_cast<std::size_t>(it - sorted.begin());
}

}  // namespace

Expected<Policy> parse_policy(std::string_view json_text, std::string_view source_name) {
  const std::string src(source_name);
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end(), DuplicateKeyCheck{});
  } catch (const json::parse_error& e) {
    auto [line, col] = line_column(json_text, e.byte);
    std::string what = e.what();
    const auto colon = what.find(": ");
    const std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    return make_error(src + ":" + std::to_string(line) + ":" + std::to_string(col) +
                      ": malformed JSON: " + reason);
  } catch (const DuplicateKey& d) {
    return make_error(src + ": " + (d.path.empty() ? "/" : d.path) + ": duplicate key \"" + d.key +
                      "\"");
  } catch (const json::exception& e) {
    // e.g. "[json.exception.out_of_range.406] number overflow parsing '1e400'": keep the reason.
    std::string what = e.what();
    const auto bracket = what.find("] ");
    return make_error(src + ": malformed JSON: " +
                      (bracket == std::string::npos ? what : what.substr(bracket + 2)));
  }
  try {
    return build(root, source_name);
  } catch (const PolicyProblem& p) {
    return make_error(src + ": " + (p.path.empty() ? "document root" : p.path) + ": " + p.reason);
  }
}

Expected<Policy> load_policy_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open policy file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(path + ": read error");
  return parse_policy(text.str(), path);
}

std::optional<std::size_t> Policy::tier_index_for_key(std::string_view api_key) const {
  if (keys.empty()) return default_tier;  // skips hashing the key when no key is listed
  if (auto it = keys.find(api_key); it != keys.end()) return it->second;
  return default_tier;
}

const TierPolicy* Policy::tier_for_key(std::string_view api_key) const {
  auto idx = tier_index_for_key(api_key);
  return idx ? &tiers[*idx] : nullptr;
}

std::optional<std::size_t> Policy::tier_index(std::string_view name) const {
  return index_by_name(tiers, name);
}

const TierPolicy* Policy::find_tier(std::string_view name) const {
  auto idx = tier_index(name);
  return idx ? &tiers[*idx] : nullptr;
}

std::optional<std::size_t> Policy::model_index(std::string_view name) const {
  return index_by_name(models, name);
}

Expected<const ModelPolicy*> Policy::model(std::string_view name) const {
  if (auto idx = model_index(name)) return &models[*idx];
  std::string known;
  for (const auto& m : models) known += (known.empty() ? "" : ", ") + m.name;
  return make_error("unknown model \"" + std::string(name) + "\" in policy " + source +
                    " (known: " + known + ")");
}

Expected<double> Policy::model_cost(std::string_view name) const {
  auto m = model(name);
  if (!m) return make_error(m.error());
  return (*m)->cost;
}

Expected<double> Policy::price_of_tokens(std::string_view name, double llm_tokens) const {
  auto m = model(name);
  if (!m) return make_error(m.error());
  return (*m)->price_per_million_tokens * llm_tokens / 1e6;
}

const Policy& default_policy() {
  // Parsed once; a test proves the embedded text is valid, so failure here is a build defect.
  static const Policy kPolicy = [] {
    auto p = parse_policy(default_policy_json(), "<embedded default policy>");
    if (!p) throw std::logic_error(p.error());
    return std::move(p).value();
  }();
  return kPolicy;
}

}  // namespace limitscope
