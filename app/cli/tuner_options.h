#pragma once
// Options shared by replay, sweep and bench-sweep: loading a trace (refused when it has bad
// lines unless --skip-bad-lines) and the algorithm's fixed parameters.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/options/args.h"
#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/limiter/policy.h"
#include "core/trace/trace.h"
#include "core/tuner/pricing.h"
#include "core/tuner/replay.h"

namespace limitscope::cli {

/// --trace, --skip-bad-lines.
std::vector<OptionSpec> trace_option_specs();

/// Loads --trace. A trace with bad lines is an error listing the first ones with their line
/// numbers, unless --skip-bad-lines (then `skipped` counts them).
Expected<trace::Trace> load_trace_option(const Args& args, std::size_t* skipped);

/// --policy, --tokens-per-request: what prices the replayed requests.
std::vector<OptionSpec> pricing_option_specs();

/// The policy whose prices and quotas a replay uses, and the options pointing at it (not
/// copyable: options.policy points into policy).
struct PricingChoice {
  Policy policy;
  tuner::PricingOptions options;
  PricingChoice() = default;
  PricingChoice(const PricingChoice&) = delete;
  PricingChoice& operator=(const PricingChoice&) = delete;
};

/// Reads --policy (default: the embedded default policy) and --tokens-per-request into `out`
/// (an out-parameter: a PricingChoice points into itself, so it cannot be returned).
/// @return ok, or an error naming the option and the reason
Status pricing_from(const Args& args, PricingChoice& out);

/// Counts as every tuner command prints them: admitted, rejected, admitted_cost,
/// rejected_cost, ratio_429, spend_usd (docs/cli.md, replay).
nlohmann::json counts_json(const tuner::Counts& c);

/// --algorithm, --capacity, --refill, --window, --limit: one limiter setting.
std::vector<OptionSpec> limit_option_specs();

/// --algorithm with --capacity/--refill (buckets) or --window/--limit (windows), validated.
Expected<LimitParams> limit_params_from(const Args& args);

/// The trace, the limit's and the pricing options together, in that order: what replay and
/// the what-ifs take first.
std::vector<OptionSpec> replay_option_specs();

/// What replay and the what-ifs read first: one setting, the trace and what prices it.
struct ReplayInputs {
  LimitParams params;
  trace::Trace trace;
  std::size_t skipped = 0;  ///< bad trace lines skipped (--skip-bad-lines)
  PricingChoice pricing;
};

/// Reads the options of replay_option_specs() into `out` (which holds a PricingChoice).
/// @return ok, or an error naming the option and the reason
Status replay_inputs_from(const Args& args, ReplayInputs& out);

}  // namespace limitscope::cli
