#pragma once
// A Lua script of the limiter. Where the script belongs to a function library (Redis 7
// Functions), it runs with FCALL: the library is loaded once per server and library version
// (FUNCTION LOAD), its helpers are defined once at load, and "function not found" (a flushed
// server, a failover to a replica without the library) loads it and retries, as NOSCRIPT does
// for EVALSHA. Where Functions are missing (a server older than 7, an ACL without FCALL or
// FUNCTION LOAD) the same script runs with EVALSHA, its SHA-1 computed locally and loaded on
// NOSCRIPT. Callers never see the difference; the connection remembers which path works
// (Connection::script_mode).

#include <memory>
#include <string>
#include <vector>

#include "core/redis/connection.h"

namespace limitscope::redis {

/// A Redis 7 function library: its name (which carries its version) and its source, starting
/// with the `#!lua name=<name>` line.
struct FunctionLibrary {
  std::string name;
  std::string source;
};

class Script {
 public:
  /// A script run with EVALSHA only.
  /// @param name for messages ("token_bucket")
  /// @param source the Lua text
  Script(std::string name, std::string source);
  /// A script that is also function `function` of `library` (run with FCALL where it can).
  Script(std::string name, std::string source, std::string function,
         std::shared_ptr<const FunctionLibrary> library);

  const std::string& name() const { return name_; }
  const std::string& source() const { return source_; }
  const std::string& sha1() const { return sha1_; }
  /// The function's name in its library; empty for a script without one.
  const std::string& function() const { return function_; }
  /// Its library, or nullptr.
  const FunctionLibrary* library() const { return library_.get(); }

 private:
  std::string name_;
  std::string source_;
  std::string sha1_;
  std::string function_;
  std::shared_ptr<const FunctionLibrary> library_;
};

/// One call: FCALL where the connection can (loading the library on "function not found" and
/// retrying once), else EVALSHA (loading the script on NOSCRIPT and retrying once). A script
/// error reply comes back as RedisError{reply} naming the script.
Result<Value> eval(Connection& c, const Script& s, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args);

struct ScriptCall {
  std::vector<std::string> keys;
  std::vector<std::string> args;
};

/// Many calls pipelined in one round trip, as eval() runs one: calls the server did not run
/// (function not found, NOSCRIPT, or Functions missing altogether) are re-sent once, in their
/// original order, after loading what was missing. Other error replies stay per call as
/// Values of Type::error.
Result<std::vector<Value>> eval_pipeline(Connection& c, const Script& s,
                                         const std::vector<ScriptCall>& calls);

}  // namespace limitscope::redis
