#pragma once
// limitscope-cli rollout (cmd_rollout.cpp), declared apart from commands.h so that adding it
// rebuilds main.cpp alone.

#include "app/cli/commands.h"

namespace limitscope::cli {

int run_rollout(const CommandArgs& args);  // cmd_rollout.cpp

}  // namespace limitscope::cli
