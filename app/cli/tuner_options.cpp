#include "app/cli/tuner_options.h"

#include <cmath>
#include <cstdlib>

#include "app/cli/redis_options.h"
#include "core/limiter/rate.h"
#include "core/redis/connection.h"
#include "core/tuner/stream_trace.h"

namespace limitscope::cli {

std::vector<OptionSpec> trace_option_specs() {
  return {
      {"trace", "FILE",
       "JSON lines {\"t\", \"key\", \"cost\", \"model\", \"tier\", \"tokens\"} or CSV with those "
       "columns"},
      {"skip-bad-lines", "",
       "replay the good lines of a trace that has bad ones (they are counted)"},
      {"redis", "URL", "instead of --trace: the decision stream of --rule in this Redis"},
      redis_password_file_spec(),
      {"rule", "NAME", "with --redis: the rule whose logged decisions to replay"},
      {"prefix", "P", "with --redis: key prefix (default limitscope:)"},
  };
}

nlohmann::json counts_json(const tuner::Counts& c) {
  return {{"admitted", c.admitted},           {"rejected", c.rejected},
          {"admitted_cost", c.admitted_cost}, {"rejected_cost", c.rejected_cost},
          {"ratio_429", c.ratio_429()},       {"spend_usd", c.admitted_spend}};
}

std::vector<OptionSpec> limit_option_specs() {
  return {
      {"algorithm", "A",
       "token-bucket, gcra, sliding-log, sliding-counter, fixed-window, leaky-bucket"},
      {"capacity", "C", "bucket capacity (bucket algorithms)"},
      {"refill", "R", "refill rate with a unit, e.g. 10/s (bucket algorithms)"},
      {"window", "W", "window with a unit, e.g. 60s (window algorithms)"},
      {"limit", "L", "cost admitted per window (window algorithms)"},
  };
}

namespace {

// The decision stream of --rule in --redis, as a trace.
Expected<trace::TraceLoad> load_stream(const Args& args) {
  const auto rule = args.get("rule");
  if (!rule) return make_error("--redis needs --rule NAME (whose decision stream to read)");
  auto url = parse_redis_url_option(args);
  if (!url) return make_error(url.error());
  const redis::KeySchema schema(args.get("prefix").value_or(std::string(redis::kDefaultPrefix)));
  if (Status why = schema.check_prefix(); !why.ok()) return make_error("--prefix: " + why.error());
  if (Status why = redis::KeySchema::check_rule(*rule); !why.ok())
    return make_error("--rule: " + why.error());
  // On a redis+cluster:// URL the stream is read from the master holding the rule's slot.
  auto load = on_rule_connection<trace::TraceLoad>(
      *url, {std::chrono::seconds(2), std::chrono::seconds(30)}, schema, *rule,
      [&](redis::Connection& c) { return tuner::trace_from_decision_stream(c, schema, *rule); });
  if (!load) return make_error(load.error().message);
  return std::move(load).value();
}

}  // namespace

Expected<trace::Trace> load_trace_option(const Args& args, std::size_t* skipped) {
  const auto file = args.get("trace");
  if (file && args.get("redis")) return make_error("give one of --trace and --redis");
  if (!file && !args.get("redis"))
    return make_error("--trace FILE (or --redis URL --rule NAME) is required");
  const std::string source =
      file ? *file : "decision stream of rule " + args.get("rule").value_or("?");
  auto load = file ? trace::load_trace_file(*file) : load_stream(args);
  if (!load) return make_error(load.error());
  if (load->error_count > 0 && !args.has("skip-bad-lines")) {
    std::string msg = "trace " + source + ": " + std::to_string(load->error_count) +
                      " bad line(s), nothing replayed (--skip-bad-lines replays the " +
                      std::to_string(load->trace.events.size()) + " good ones):";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, load->errors.size()); ++i) {
      msg += " line " + std::to_string(load->errors[i].line) + ": " + load->errors[i].message + ";";
    }
    msg.pop_back();
    return make_error(msg);
  }
  if (load->trace.events.empty()) return make_error("trace " + source + ": no events");
  if (skipped != nullptr) *skipped = load->error_count;
  return std::move(load->trace);
}

std::vector<OptionSpec> pricing_option_specs() {
  return {
      {"policy", "FILE",
       "model prices, tier quotas and key tiers for spend (default: the embedded policy)"},
      {"tokens-per-request", "N", "LLM tokens assumed for requests whose trace line gives none"},
  };
}

Status pricing_from(const Args& args, PricingChoice& out) {
  if (auto file = args.get("policy")) {
    auto policy = load_policy_file(*file);
    if (!policy) return make_error("--policy: " + policy.error());
    out.policy = std::move(*policy);
  } else {
    out.policy = default_policy();
  }
  out.options.policy = &out.policy;
  if (auto t = args.get("tokens-per-request")) {
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (t->empty() || end != t->c_str() + t->size() || !std::isfinite(v) || v < 0) {
      return make_error("--tokens-per-request '" + *t + "': must be a number >= 0");
    }
    out.options.tokens_per_request = v;
  }
  return {};
}

Expected<LimitParams> limit_params_from(const Args& args) {
  LimitParams p;
  const auto alg = args.get("algorithm");
  if (!alg) return make_error("--algorithm is required");
  const auto a = parse_algorithm(*alg);
  if (!a) {
    return make_error("--algorithm '" + *alg +
                      "': expected token-bucket, gcra, sliding-log, "
                      "sliding-counter, fixed-window or leaky-bucket");
  }
  p.algorithm = *a;
  if (is_window_algorithm(p.algorithm)) {
    const auto w = args.get("window");
    const auto l = args.get("limit");
    if (!w || !l) return make_error("--window and --limit are required for " + *alg);
    auto window = parse_duration(*w);
    if (!window) return make_error("--window: " + window.error());
    p.window = *window;
    char* end = nullptr;
    p.limit = std::strtod(l->c_str(), &end);
    if (l->empty() || end != l->c_str() + l->size())
      return make_error("--limit '" + *l + "' is not a number");
  } else {
    const auto c = args.get("capacity");
    const auto r = args.get("refill");
    if (!c || !r) return make_error("--capacity and --refill are required for " + *alg);
    char* end = nullptr;
    p.capacity = std::strtod(c->c_str(), &end);
    if (c->empty() || end != c->c_str() + c->size())
      return make_error("--capacity '" + *c + "' is not a number");
    auto rate = parse_rate(*r);
    if (!rate) return make_error("--refill: " + rate.error());
    p.refill = *rate;
  }
  if (Status why = p.validate(); !why.ok()) return make_error(why.error());
  return p;
}

std::vector<OptionSpec> replay_option_specs() {
  auto specs = trace_option_specs();
  for (auto& spec : limit_option_specs()) specs.push_back(std::move(spec));
  for (auto& spec : pricing_option_specs()) specs.push_back(std::move(spec));
  return specs;
}

Status replay_inputs_from(const Args& args, ReplayInputs& out) {
  auto params = limit_params_from(args);
  if (!params) return make_error(params.error());
  out.params = *params;
  auto trace = load_trace_option(args, &out.skipped);
  if (!trace) return make_error(trace.error());
  out.trace = std::move(*trace);
  return pricing_from(args, out.pricing);
}

}  // namespace limitscope::cli
