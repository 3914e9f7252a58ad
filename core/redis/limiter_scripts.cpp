#include "core/redis/limiter_scripts.h"

#include <stdexcept>
#include <string>

namespace limitscope::redis {

namespace {

std::string file_or_throw(std::string_view name) {
  const std::string_view text = lua_file(name);
  // A missing file is a build error (the glob in core/CMakeLists.txt lost it), not input.
  if (text.empty()) throw std::logic_error("embedded Lua file missing: " + std::string(name));
  return std::string(text);
}

// An algorithm file with its final `return eval, write` turned into an assignment to the
// enclosing block's algo_eval, algo_write (see decide.lua's --@ALGORITHMS).
std::string algorithm_branch(std::string_view file) {
  std::string text = file_or_throw(file);
  static constexpr std::string_view kReturn = "return eval, write";
  const auto at = text.rfind(kReturn);
  if (at == std::string::npos || text.find_first_not_of(" \n", at + kReturn.size()) != std::string::npos) {
    throw std::logic_error(std::string(file) + " must end with \"return eval, write\"");
  }
  return text.replace(at, kReturn.size(), "algo_eval, algo_write = eval, write");
}

// common.lua, then the entry file; decide.lua gets one branch per algorithm file at its
// --@ALGORITHMS line.
std::string compose(std::string_view entry, bool with_algorithms) {
  struct Branch {
    std::string_view algorithm;
    std::string_view file;
  };
  static constexpr Branch kBranches[] = {
      {"token-bucket", "token_bucket.lua"}, {"gcra", "gcra.lua"},
      {"sliding-log", "sliding_log.lua"},   {"sliding-counter", "sliding_counter.lua"},
      {"fixed-window", "fixed_window.lua"},
  };
  std::string s = file_or_throw("common.lua") + "\n";
  std::string body = file_or_throw(entry);
  if (!with_algorithms) return s + body;
  std::string chain;
  for (const Branch& b : kBranches) {
    chain += chain.empty() ? "if p.alg == '" : "elseif p.alg == '";
    chain += b.algorithm;
    chain += "' then\n";
    chain += algorithm_branch(b.file);
    chain += "\n";
  }
  chain += "end\n";
  static constexpr std::string_view kMarker = "--@ALGORITHMS";
  // The marker is the only occurrence in the file (comments do not spell it).
  const auto at = body.find(kMarker);
  if (at == std::string::npos || body.find(kMarker, at + 1) != std::string::npos) throw std::logic_error(std::string(entry) + " needs exactly one --@ALGORITHMS line");
  body.replace(at, kMarker.size(), chain);
  return s + body;
}

}  // namespace

const Script& decide_script() {
  static const Script s("limitscope_decide", compose("decide.lua", true));
  return s;
}

const Script& config_set_script() {
  static const Script s("limitscope_config_set", compose("config_set.lua", false));
  return s;
}

const Script& settle_script() {
  static const Script s("limitscope_settle", compose("settle.lua", false));
  return s;
}

}  // namespace limitscope::redis
