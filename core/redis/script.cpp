#include "core/redis/script.h"

#include "core/common/sha1.h"

namespace limitscope::redis {

namespace {

std::vector<std::string> evalsha_argv(const Script& s, const std::vector<std::string>& keys,
                                      const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  argv.reserve(3 + keys.size() + args.size());
  argv.emplace_back("EVALSHA");
  argv.push_back(s.sha1());
  argv.push_back(std::to_string(keys.size()));
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Result<Unit> load(Connection& c, const Script& s) {
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
  return Unit{};
}

}  // namespace

Script::Script(std::string name, std::string source)
    : name_(std::move(name)), source_(std::move(source)), sha1_(sha1_hex(source_)) {}

Result<Value> eval(Connection& c, const Script& s, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args) {
  const auto argv = evalsha_argv(s, keys, args);
  auto r = c.command(argv);
  if (!r && r.error().kind == ErrorKind::noscript) {
    if (auto loaded = load(c, s); !loaded) return loaded.error();
    r = c.command(argv);
  }
  if (!r && r.error().kind == ErrorKind::reply) {
    RedisError e = r.error();
    e.message = "script " + s.name() + ": " + e.message;
    return e;
  }
  return r;
}

Result<std::vector<Value>> eval_pipeline(Connection& c, const Script& s,
                                         const std::vector<ScriptCall>& calls) {
  std::vector<std::vector<std::string>> commands;
  commands.reserve(calls.size());
  for (const auto& call : calls) commands.push_back(evalsha_argv(s, call.keys, call.args));
  auto replies = c.pipeline(commands);
  if (!replies) return replies;

  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < replies->size(); ++i) {
    const Value& v = (*replies)[i];
    if (v.is_error() && classify_error_reply(v.str) == ErrorKind::noscript) missing.push_back(i);
  }
  if (missing.empty()) return replies;

  if (auto loaded = load(c, s); !loaded) return loaded.error();
  std::vector<std::vector<std::string>> again;
  again.reserve(missing.size());
  for (std::size_t i : missing) again.push_back(std::move(commands[i]));
  auto retried = c.pipeline(again);
  if (!retried) return retried.error();
  for (std::size_t j = 0; j < missing.size(); ++j) {
    (*replies)[missing[j]] = std::move((*retried)[j]);
  }
  return replies;
}

}  // namespace limitscope::redis
