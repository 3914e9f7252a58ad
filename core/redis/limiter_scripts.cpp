#include "core/redis/limiter_scripts.h"

#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "core/common/sha1.h"

namespace limitscope::redis {

namespace {

std::string file_or_throw(std::string_view name) {
  const std::string_view text = lua_file(name);
  // A missing file is a build error (the glob in core/CMakeLists.txt lost it), not input.
  if (text.empty()) throw std::logic_error("embedded Lua file missing: " + std::string(name));
  return std::string(text);
}

struct Branch {
  std::string_view algorithm;
  std::string_view file;
};
constexpr Branch kBranches[] = {
    {"token-bucket", "token_bucket.lua"}, {"gcra", "gcra.lua"},
    {"sliding-log", "sliding_log.lua"},   {"sliding-counter", "sliding_counter.lua"},
    {"fixed-window", "fixed_window.lua"},
};

// An algorithm file with its final `return eval, write` turned into `assignment`.
std::string algorithm_branch(std::string_view file, std::string_view assignment) {
  std::string text = file_or_throw(file);
  static constexpr std::string_view kReturn = "return eval, write";
  const auto at = text.rfind(kReturn);
  if (at == std::string::npos ||
      text.find_first_not_of(" \n", at + kReturn.size()) != std::string::npos) {
    throw std::logic_error(std::string(file) + " must end with \"return eval, write\"");
  }
  return text.replace(at, kReturn.size(), assignment);
}

// `body` (the text of `file`) with its one `marker` line replaced by `code`.
std::string replace_marker(std::string body, std::string_view file, std::string_view marker,
                           const std::string& code) {
  // The marker is the only occurrence in the file (comments do not spell it).
  const auto at = body.find(marker);
  if (at == std::string::npos || body.find(marker, at + 1) != std::string::npos) {
    throw std::logic_error(std::string(file) + " needs exactly one " + std::string(marker) +
                           " line");
  }
  return body.replace(at, marker.size(), code);
}

// The text of `file` with its one `marker` line replaced by `code`.
std::string with_code(std::string_view file, std::string_view marker, const std::string& code) {
  return replace_marker(file_or_throw(file), file, marker, code);
}

// The entry file with its --@ALGORITHMS line replaced by `code`, and decide.lua's --@FAST line
// by `fast` (the function library's fast path, fast.lua; nothing in the EVALSHA script).
std::string with_algorithms(std::string_view entry, const std::string& code,
                            const std::string& fast) {
  std::string body = with_code(entry, "--@ALGORITHMS", code);
  if (entry != "decide.lua") return body;
  return replace_marker(std::move(body), entry, "--@FAST", fast);
}

// An if-chain on `variable` defining the algorithms of `branches`, each ending in `assignment`.
std::string algorithm_chain(std::span<const Branch> branches, std::string_view variable,
                            std::string_view assignment) {
  std::string chain;
  for (const Branch& b : branches) {
    chain += chain.empty() ? "if " : "elseif ";
    chain += std::string(variable) + " == '" + std::string(b.algorithm) + "' then\n";
    chain += algorithm_branch(b.file, assignment);
    chain += "\n";
  }
  return chain + "end\n";
}

// A script for EVALSHA: common.lua, then the entry file; decide.lua gets pressure.lua, lean.lua,
// the lean prelude (lean_evalsha.lua, with the token-bucket and GCRA code) and one branch per
// algorithm file at its --@ALGORITHMS line, inside its loop (a script's top-level functions are
// created again at every run, so nothing there may hold them). A script keeps no parsed config
// between runs (ls_config_cache and ls_seconds false) and has no fast path (fast.lua).
std::string compose_script(std::string_view entry, bool algorithms) {
  std::string s = file_or_throw("common.lua") +
                  "\nlocal ls_config_cache, ls_config_count, ls_seconds = false, 0, false\n"
                  "local ls_call, ls_pack, ls_unpack = false, false, false\n";
  if (!algorithms) return s + file_or_throw(entry);
  // decide.lua's pressure index, its lean path and the prelude that takes it first.
  s += file_or_throw("pressure.lua") + "\n" + file_or_throw("lean.lua") + "\n";
  s += with_code(
           "lean_evalsha.lua", "--@LEAN_ALGORITHMS",
           algorithm_chain(std::span(kBranches).first(2), "alg", "p.eval, p.write = eval, write")) +
       "\n";
  return s +
         with_algorithms(
             entry, algorithm_chain(kBranches, "p.alg", "algo_eval, algo_write = eval, write"), "");
}

// The function library: common.lua and the algorithms defined once, at load (a library's
// top level runs once and its locals live as long as it does), and each entry file as the
// body of a registered function with its version in its name. `@V` stands for the version.
struct Entry {
  std::string_view script;  // decide, config_set, settle
  std::string_view file;
  bool algorithms;
};
constexpr Entry kEntries[] = {{"decide", "decide.lua", true},
                              {"config_set", "config_set.lua", false},
                              {"settle", "settle.lua", false}};

std::string library_body() {
  std::string s = file_or_throw("common.lua") + "\n" + file_or_throw("pressure.lua") + "\n" +
                  file_or_throw("lean.lua");
  s += "\n-- Defined once when the library loads (issue 18).\nlocal ls_algos = {}\n";
  for (const Branch& b : kBranches) {
    s += "do\n";
    s += algorithm_branch(b.file, "ls_algos['" + std::string(b.algorithm) + "'] = {eval, write}");
    s += "\nend\n";
  }
  // Parsed configs of single-limit rules, kept between calls (decide.lua says when they are
  // reused), and how many there are (the table is dropped past 1,000 rules).
  // ls_seconds: TIME's last seconds and their µs (ls_header).
  s += "local ls_config_cache, ls_config_count, ls_seconds = {}, 0, {'', 0}\n";
  // The fast path's (fast.lua): redis.call, struct.pack and struct.unpack once a config is
  // kept (decide.lua sets them), TIME's last seconds and their µs, the texts of the TTLs
  // written (at most 1,024, then dropped) and how many there are.
  s += "local ls_call, ls_pack, ls_unpack, ls_sec, ls_sec_us = false, false, false, '', 0\n"
       "local ls_ttl_text, ls_ttl_count = {}, 0\n";
  for (const Entry& e : kEntries) {
    const std::string fn = "ls_" + std::string(e.script);
    s += "local function " + fn + "(KEYS, ARGV)\n";
    // decide.lua's ls_pre: what the EVALSHA script's lean prelude read (none here).
    s += e.algorithms ? "local ls_pre = false\n" +
                            with_algorithms(e.file,
                                            "local a = ls_algos[p.alg]\nif a then algo_eval, "
                                            "algo_write = a[1], a[2] end\n",
                                            file_or_throw("fast.lua"))
                      : file_or_throw(e.file);
    s += "\nend\nredis.register_function('limitscope_" + std::string(e.script) + "_@V', " + fn +
         ")\n";
  }
  return s;
}

std::string replace_all(std::string s, std::string_view what, std::string_view with) {
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size())) {
    s.replace(at, what.size(), with);
  }
  return s;
}

// The library, named by the SHA-1 of its text: one version per build of the Lua, loaded once
// per server, and versions of different gateways side by side during an upgrade.
std::shared_ptr<const FunctionLibrary> library() {
  static const std::shared_ptr<const FunctionLibrary> lib = [] {
    const std::string body = library_body();
    const std::string version = sha1_hex(body).substr(0, 12);
    auto l = std::make_shared<FunctionLibrary>();
    l->name = "limitscope_" + version;
    l->source = "#!lua name=" + l->name + "\n" + replace_all(body, "@V", version);
    return l;
  }();
  return lib;
}

Script make(std::string_view script, std::string_view file, bool algorithms) {
  const auto lib = library();
  const std::string version = lib->name.substr(std::string_view("limitscope_").size());
  return Script("limitscope_" + std::string(script), compose_script(file, algorithms),
                "limitscope_" + std::string(script) + "_" + version, lib);
}

}  // namespace

const Script& decide_script() {
  static const Script s = make("decide", "decide.lua", true);
  return s;
}

const Script& config_set_script() {
  static const Script s = make("config_set", "config_set.lua", false);
  return s;
}

const Script& settle_script() {
  static const Script s = make("settle", "settle.lua", false);
  return s;
}

const FunctionLibrary& function_library() {
  return *library();
}

}  // namespace limitscope::redis
