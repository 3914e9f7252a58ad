#pragma once
// bench-redis's "without the pressure index" phases: the limiter's decide function as it is
// built, with the pressure index's threshold set so that no level is ever below it (so the
// decisions never write the index and pay only the comparison), loaded as a function library
// of its own name beside the real one. Same arguments, same decisions otherwise, so a phase
// with and a phase without run the same traffic in one run.

#include "core/redis/script.h"

namespace limitscope::cli {

/// decide.lua with the pressure index off (a library named "limitscope_<version>n").
const redis::Script& decide_without_pressure_index();

}  // namespace limitscope::cli
