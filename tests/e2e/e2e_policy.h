#pragma once
// The policy the end-to-end tests run the gateway with: small limits so 429s come quickly,
// the scenario keys listed with their tiers, and no default tier (unknown keys get 403).

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/gateway/redis_admission.h"
#include "core/redis/connection.h"
#include "core/redis/key_schema.h"
#include "support/canned_http_server.h"
#include "support/child_process.h"
#include "support/gateway_chat.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {

inline std::string e2e_policy_json(int free_capacity = 3) {
  return R"({
  "tiers": {
    "free": { "requests": { "algorithm": "token-bucket", "capacity": )" +
         std::to_string(free_capacity) + R"(, "refill": "1/s" },
              "llm_tokens": { "algorithm": "token-bucket", "capacity": 20000, "refill": "20000/min" },
              "daily_quota": 1000 },
    "pro": { "requests": { "algorithm": "token-bucket", "capacity": 50, "refill": "20/s" },
             "llm_tokens": { "algorithm": "token-bucket", "capacity": 1000000, "refill": "1000000/min" } },
    "enterprise": { "requests": { "algorithm": "token-bucket", "capacity": 500, "refill": "200/s" } }
  },
  "models": {
    "gpt-4.1": { "cost": 2, "price_per_million_tokens": 8 },
    "claude-sonnet-4.5": { "cost": 3, "price_per_million_tokens": 15 },
    "gemini-2.5-flash": { "cost": 1, "price_per_million_tokens": 2.5 },
    "deepseek-v3.2": { "cost": 1, "price_per_million_tokens": 0.42 }
  },
  "keys": {
    "free-key": "free", "pro-key": "pro",
    "free-hobbyist": "free", "pro-startup": "pro", "enterprise-bank": "enterprise",
    "loop-bot": "free", "pro-batch": "pro"
  }
})";
}

/// Drives loadgen's `runaway` scenario (whose keys outrun their limits) into the gateway at
/// `gateway_url` for `duration` at `rate` requests/s with `seed`.
/// @return loadgen's JSON report; when loadgen fails, a test failure (with its stderr) and null
inline nlohmann::json e2e_runaway_load(const std::string& gateway_url, const std::string& duration,
                                       int rate, int seed) {
  auto load =
      run_cli("loadgen --target " + gateway_url + " --scenario runaway --duration " + duration +
              " --rate " + std::to_string(rate) + " --seed " + std::to_string(seed) + " --json");
  EXPECT_EQ(load.exit_code, 0) << load.err;
  return load.exit_code == 0 ? nlohmann::json::parse(load.out) : nlohmann::json();
}

/// How many of the state keys of pro-key's gemini-2.5-flash limits (rule gw-pro: requests and
/// llm_tokens) exist in Redis: 0 when nothing was ever charged to them; -1 on a Redis error.
inline long long e2e_pro_state_keys(redis::Connection& c) {
  const std::string state = redis::KeySchema().state_key(
      "gw-pro", gateway::RedisAdmission::limited_key("pro-key", "gemini-2.5-flash"));
  auto n = c.command({"EXISTS", state + ":requests", state + ":llm_tokens"});
  return n ? n->integer : -1;
}

/// The Redis stats line "<name>:...<field>=<n>..." of INFO `section`, as n; 0 when absent,
/// -1 on a Redis error.
inline long long e2e_info_count(redis::Connection& c, const std::string& section,
                                const std::string& name, const std::string& field) {
  auto info = c.command({"INFO", section});
  if (!info) return -1;
  const std::size_t at = info->str.find(name + ":");
  if (at == std::string::npos) return 0;
  const std::size_t f = info->str.find(field + "=", at);
  if (f == std::string::npos) return 0;
  return std::stoll(info->str.substr(f + field.size() + 1));
}

/// An upstream that bills `prompt` + `completion` tokens for every call, whatever was asked.
inline std::unique_ptr<CannedHttpServer> e2e_billing_upstream(long long prompt,
                                                              long long completion) {
  auto up = std::make_unique<CannedHttpServer>();
  up->respond({200, "application/json",
               R"({"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":)" +
                   std::to_string(prompt) + R"(,"completion_tokens":)" +
                   std::to_string(completion) + R"(,"total_tokens":)" +
                   std::to_string(prompt + completion) + "}}"});
  return up;
}

/// A gateway on the e2e policy (written to `policy_file`) whose mock upstream answers after
/// 1 ms.
inline GatewayProcess e2e_mock_gateway(const std::string& policy_file) {
  return GatewayProcess({"--policy", write_temp(policy_file, e2e_policy_json()), "--mock-upstream",
                         "--mock-latency", "1ms"});
}

/// A gateway on the e2e policy (written to `policy_file`) with a mock upstream, deciding in
/// `redis` and logging every decision to its streams (--log-decisions 1).
inline GatewayProcess e2e_logging_gateway(const RedisServer& redis,
                                          const std::string& policy_file) {
  return GatewayProcess({"--policy", write_temp(policy_file, e2e_policy_json()), "--mock-upstream",
                         "--redis", redis.url(), "--log-decisions", "1"});
}

/// A token bucket of a policy: its capacity and refill ("5000/min").
struct E2eBucket {
  double capacity;
  std::string refill;
};

/// A policy of one tier, `tier`, limiting requests and LLM tokens with token buckets, one model
/// "m" (cost 1), and `keys` on the tier.
inline std::string e2e_one_tier_policy(const std::string& tier, const E2eBucket& requests,
                                       const E2eBucket& llm_tokens,
                                       const std::vector<std::string>& keys) {
  const auto bucket = [](const E2eBucket& b) {
    return nlohmann::json{
        {"algorithm", "token-bucket"}, {"capacity", b.capacity}, {"refill", b.refill}};
  };
  nlohmann::json p = {
      {"tiers", {{tier, {{"requests", bucket(requests)}, {"llm_tokens", bucket(llm_tokens)}}}}},
      {"models", {{"m", {{"cost", 1}}}}},
      {"keys", nlohmann::json::object()}};
  for (const std::string& k : keys) p["keys"][k] = tier;
  return p.dump();
}

/// A small chat completion body for `model`: one "hi", at most `max_tokens` (20 by default).
inline std::string e2e_chat_body(const std::string& model, int max_tokens = 20) {
  return R"({"model":")" + model + R"(","max_tokens":)" + std::to_string(max_tokens) +
         R"(,"messages":[{"role":"user","content":"hi"}]})";
}

/// The status of one chat completion for `key` (gemini-2.5-flash) on `gw`; -1 when no answer.
inline int e2e_post_status(const GatewayProcess& gw, const std::string& key) {
  auto r = post_chat(gw, key, e2e_chat_body("gemini-2.5-flash"));
  return r ? r->status : -1;
}

}  // namespace limitscope::test
