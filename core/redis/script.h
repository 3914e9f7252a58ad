#pragma once
// A Lua script run with EVALSHA: its SHA-1 is computed locally, and a NOSCRIPT answer (a
// restarted or flushed server) loads the script once and retries, so callers never see it.

#include <string>
#include <vector>

#include "core/redis/connection.h"

namespace limitscope::redis {

class Script {
 public:
  /// @param name for messages ("token_bucket")
  /// @param source the Lua text
  Script(std::string name, std::string source);

  const std::string& name() const { return name_; }
  const std::string& source() const { return source_; }
  const std::string& sha1() const { return sha1_; }

 private:
  std::string name_;
  std::string source_;
  std::string sha1_;
};

/// EVALSHA; on NOSCRIPT loads the script (SCRIPT LOAD) and retries once. A script error
/// reply comes back as RedisError{reply} naming the script.
Result<Value> eval(Connection& c, const Script& s, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args);

struct ScriptCall {
  std::vector<std::string> keys;
  std::vector<std::string> args;
};

/// Pipelined EVALSHA of many calls in one round trip. NOSCRIPT replies cause one SCRIPT LOAD
/// and a re-send of the affected calls (in their original order). Other error replies stay
/// per call as Values of Type::error.
Result<std::vector<Value>> eval_pipeline(Connection& c, const Script& s,
                                         const std::vector<ScriptCall>& calls);

}  // namespace limitscope::redis
