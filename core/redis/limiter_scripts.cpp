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

// common.lua, then (for decisions) ls_algorithm(name) returning (eval, write) of each
// algorithm file, then the entry file.
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
  std::string s = file_or_throw("common.lua");
  if (!with_algorithms) return s + "\n" + file_or_throw(entry);
  s += "\nlocal function ls_algorithm(name)\n";
  bool first = true;
  for (const Branch& b : kBranches) {
    s += first ? "  if name == '" : "  elseif name == '";
    s += b.algorithm;
    s += "' then\n";
    s += file_or_throw(b.file);
    s += "\n";
    first = false;
  }
  s += "  end\nend\n";
  s += file_or_throw(entry);
  return s;
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

}  // namespace limitscope::redis
