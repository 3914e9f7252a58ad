#include "core/redis/script.h"

#include "core/common/sha1.h"

namespace limitscope::redis {

namespace {

std::vector<std::string> call_argv(std::string_view command, const std::string& target,
                                   const ScriptCall& call) {
  std::vector<std::string> argv;
  argv.reserve(3 + call.keys.size() + call.args.size());
  argv.emplace_back(command);
  argv.push_back(target);
  argv.push_back(std::to_string(call.keys.size()));
  argv.insert(argv.end(), call.keys.begin(), call.keys.end());
  argv.insert(argv.end(), call.args.begin(), call.args.end());
  return argv;
}

std::vector<std::string> evalsha_argv(const Script& s, const ScriptCall& call) {
  return call_argv("EVALSHA", s.sha1(), call);
}

std::vector<std::string> fcall_argv(const Script& s, const ScriptCall& call) {
  return call_argv("FCALL", s.function(), call);
}

// The server cannot run Functions for this connection: no FCALL or FUNCTION command (Redis
// < 7: "ERR unknown command 'FCALL'"), or the ACL user may not run them ("NOPERM ... 'fcall'",
// "... 'function|load'"). Then the limiter runs its scripts with EVALSHA.
bool functions_unavailable(const std::string& text) {
  if (text.find("unknown command") != std::string::npos) return true;
  return text.find("NOPERM") != std::string::npos &&
         (text.find("'fcall'") != std::string::npos || text.find("'function") != std::string::npos);
}

Result<void> load_script(Connection& c, const Script& s) {
  auto r = c.command({"SCRIPT", "LOAD", s.source()});
  if (!r) {
    RedisError e = r.error();
    e.message = "loading script " + s.name() + ": " + e.message;
    return e;
  }
  if (!r->is_string() || r->str != s.sha1()) {
    return make_redis_error(ErrorKind::protocol, "redis " + c.peer() + ": SCRIPT LOAD of " +
                                                     s.name() + " answered " + r->describe() +
                                                     ", expected its SHA-1 " + s.sha1());
  }
  return {};
}

enum class Loaded { yes, unavailable };

// FUNCTION LOAD of the script's library. Another client loading it first ("already exists")
// is as good; a server or user without Functions answers `unavailable`.
Result<Loaded> load_library(Connection& c, const Script& s) {
  const FunctionLibrary& lib = *s.library();
  auto r = c.command({"FUNCTION", "LOAD", lib.source});
  if (r) return Loaded::yes;
  const std::string& text = r.error().message;
  if (text.find("already exists") != std::string::npos) return Loaded::yes;
  if (r.error().kind != ErrorKind::io && r.error().kind != ErrorKind::timeout &&
      r.error().kind != ErrorKind::closed && functions_unavailable(text)) {
    return Loaded::unavailable;
  }
  RedisError e = r.error();
  e.message = "loading function library " + lib.name + ": " + e.message;
  return e;
}

bool wants_functions(const Connection& c, const Script& s) {
  return s.library() != nullptr && c.script_mode() != ScriptMode::scripts;
}

Result<Value> name_script_error(Result<Value> r, const Script& s) {
  if (!r && r.error().kind == ErrorKind::reply) {
    RedisError e = r.error();
    e.message = "script " + s.name() + ": " + e.message;
    return e;
  }
  return r;
}

Result<Value> evalsha(Connection& c, const Script& s, const ScriptCall& call) {
  const auto argv = evalsha_argv(s, call);
  auto r = c.command(argv);
  if (!r && r.error().kind == ErrorKind::noscript) {
    if (auto loaded = load_script(c, s); !loaded.ok()) return loaded.error();
    r = c.command(argv);
  }
  return r;
}

// FCALL, loading the library when the server lacks it; nullopt when this connection cannot
// use Functions (the caller then runs the script with EVALSHA).
std::optional<Result<Value>> fcall(Connection& c, const Script& s, const ScriptCall& call) {
  const auto argv = fcall_argv(s, call);
  auto r = c.command(argv);
  if (!r && r.error().kind == ErrorKind::noscript) {
    auto loaded = load_library(c, s);
    if (!loaded) return Result<Value>(loaded.error());
    if (*loaded == Loaded::unavailable) return std::nullopt;
    r = c.command(argv);
  }
  if (!r && r.error().kind != ErrorKind::noscript && functions_unavailable(r.error().message)) {
    return std::nullopt;
  }
  if (r || r.error().kind == ErrorKind::reply) c.set_script_mode(ScriptMode::functions);
  return r;
}

}  // namespace

Script::Script(std::string name, std::string source)
    : name_(std::move(name)), source_(std::move(source)), sha1_(sha1_hex(source_)) {}

Script::Script(std::string name, std::string source, std::string function,
               std::shared_ptr<const FunctionLibrary> library)
    : name_(std::move(name)),
      source_(std::move(source)),
      sha1_(sha1_hex(source_)),
      function_(std::move(function)),
      library_(std::move(library)) {}

Result<Value> eval(Connection& c, const Script& s, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args) {
  const ScriptCall call{keys, args};
  if (wants_functions(c, s)) {
    if (auto r = fcall(c, s, call)) return name_script_error(std::move(*r), s);
    c.set_script_mode(ScriptMode::scripts);
  }
  return name_script_error(evalsha(c, s, call), s);
}

Result<std::vector<Value>> eval_pipeline(Connection& c, const Script& s,
                                         const std::vector<ScriptCall>& calls) {
  bool functions = wants_functions(c, s);
  std::vector<std::vector<std::string>> commands;
  commands.reserve(calls.size());
  for (const auto& call : calls)
    commands.push_back(functions ? fcall_argv(s, call) : evalsha_argv(s, call));
  auto replies = c.pipeline(commands);
  if (!replies) return replies;

  // Calls the server did not run: the library or script was missing, or (FCALL) Functions
  // are not available to this connection at all.
  std::vector<std::size_t> missing;
  bool unavailable = false;
  for (std::size_t i = 0; i < replies->size(); ++i) {
    const Value& v = (*replies)[i];
    if (!v.is_error()) continue;
    if (classify_error_reply(v.str) == ErrorKind::noscript) {
      missing.push_back(i);
    } else if (functions && functions_unavailable(v.str)) {
      missing.push_back(i);
      unavailable = true;
    }
  }
  if (functions && !unavailable && missing.size() < replies->size())
    c.set_script_mode(ScriptMode::functions);
  if (missing.empty()) return replies;

  if (functions && !unavailable) {
    auto loaded = load_library(c, s);
    if (!loaded) return loaded.error();
    unavailable = *loaded == Loaded::unavailable;
  }
  if (functions && unavailable) {
    c.set_script_mode(ScriptMode::scripts);
    functions = false;
  }
  if (!functions) {
    if (auto loaded = load_script(c, s); !loaded.ok()) return loaded.error();
  }
  std::vector<std::vector<std::string>> again;
  again.reserve(missing.size());
  for (std::size_t i : missing)
    again.push_back(functions ? fcall_argv(s, calls[i]) : evalsha_argv(s, calls[i]));
  auto retried = c.pipeline(again);
  if (!retried) return retried.error();
  for (std::size_t j = 0; j < missing.size(); ++j) {
    (*replies)[missing[j]] = std::move((*retried)[j]);
  }
  if (functions) c.set_script_mode(ScriptMode::functions);
  return replies;
}

}  // namespace limitscope::redis
