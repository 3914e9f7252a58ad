#pragma once
// Options shared by replay, sweep and bench-sweep: loading a trace (refused when it has bad
// lines unless --skip-bad-lines) and the algorithm's fixed parameters.

#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/common/expected.h"
#include "core/limiter/limit_params.h"
#include "core/tuner/trace.h"

namespace limitscope::cli {

/// --trace, --skip-bad-lines.
std::vector<OptionSpec> trace_option_specs();

/// Loads --trace. A trace with bad lines is an error listing the first ones with their line
/// numbers, unless --skip-bad-lines (then `skipped` counts them).
Expected<tuner::Trace> load_trace_option(const Args& args, std::size_t* skipped);

/// --algorithm with --capacity/--refill (buckets) or --window/--limit (windows), validated.
Expected<LimitParams> limit_params_from(const Args& args);

}  // namespace limitscope::cli
