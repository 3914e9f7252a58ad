#pragma once
// The scenario the load plan and load report tests start from.

#include "core/gateway/load_plan.h"

namespace limitscope::gateway::test {

/// One client: API key "key" on tier "free", every request to gpt-4.1, otherwise ClientSpec's
/// defaults (its traffic and retry behaviour).
inline ScenarioSpec single_client_scenario() {
  ScenarioSpec s;
  s.name = "test";
  ClientSpec c;
  c.api_key = "key";
  c.tier = "free";
  c.models = {default_model_share("gpt-4.1", 1)};
  s.clients.push_back(c);
  return s;
}

}  // namespace limitscope::gateway::test
