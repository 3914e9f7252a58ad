// limitscope-cli bench-parse: writes a gateway-like exposition of N series to a temp file,
// then times whole processes against whole processes: `limitscope-cli parse-metrics FILE`
// and `promtool check metrics < FILE` (when promtool is installed), a few runs each.

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/options/args.h"
#include "core/metrics/exposition_generator.h"

extern char** environ;

namespace limitscope::cli {

namespace {

struct RunResult {
  double seconds = 0;      // wall, spawn to exit
  double cpu_seconds = 0;  // user + system of the child, all its threads
  int exit_code = -1;
};

// Runs argv with stdout/stderr discarded (stdin from stdin_path when given) and times it
// from spawn to exit.
std::optional<RunResult> run_timed(const std::vector<std::string>& argv,
                                   const std::string& stdin_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stdin_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
  }
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const int rc = posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return std::nullopt;
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid) return std::nullopt;
  const auto stop = std::chrono::steady_clock::now();
  RunResult r;
  r.seconds = std::chrono::duration<double>(stop - start).count();
  auto secs = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  r.cpu_seconds = secs(usage.ru_utime) + secs(usage.ru_stime);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::optional<std::string> find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

struct Timing {
  std::string tool;
  std::vector<double> seconds;
  std::vector<double> cpu_seconds;
  int exit_code = 0;
  double best() const { return *std::min_element(seconds.begin(), seconds.end()); }
  double best_cpu() const { return *std::min_element(cpu_seconds.begin(), cpu_seconds.end()); }
  double median() const {
    std::vector<double> s = seconds;
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
  }
};

std::optional<Timing> time_tool(const std::string& tool, const std::vector<std::string>& argv,
                                const std::string& stdin_path, int runs) {
  Timing t;
  t.tool = tool;
  for (int i = 0; i < runs; ++i) {
    auto r = run_timed(argv, stdin_path);
    if (!r) return std::nullopt;
    t.seconds.push_back(r->seconds);
    t.cpu_seconds.push_back(r->cpu_seconds);
    t.exit_code = r->exit_code;
  }
  return t;
}

}  // namespace

int run_bench_parse(const CommandArgs& argv) {
  const Expected<Args> command_line = Args::parse(
      "bench-parse",
      "Generate a gateway-like exposition and time `limitscope-cli parse-metrics FILE`\n"
      "against `promtool check metrics < FILE`, whole process against whole process.",
      {{"series", "N", "sample lines to generate (default 100000)"},
       {"runs", "N", "runs per tool; the best and the median are reported (default 3)"},
       {"keep", "FILE", "write the exposition to FILE and keep it (default: a temp file)"},
       {"json", "", "print one JSON object instead of text"}},
      argv);
  if (const auto exit = early_exit(command_line, "bench-parse")) return *exit;
  const Args& args = *command_line;
  auto parse_count = [](const std::optional<std::string>& s, long fallback, long lo,
                        long hi) -> std::optional<long> {
    if (!s) return fallback;
    char* end = nullptr;
    const long v = std::strtol(s->c_str(), &end, 10);
    if (s->empty() || *end != '\0' || v < lo || v > hi) return std::nullopt;
    return v;
  };
  const auto series = parse_count(args.get("series"), 100000, 15, 50'000'000);
  if (!series) return usage_error("bench-parse", "--series: expected an integer in [15, 50000000]");
  const auto runs = parse_count(args.get("runs"), 3, 1, 100);
  if (!runs) return usage_error("bench-parse", "--runs: expected an integer in [1, 100]");

  const auto gen = metrics::generate_gateway_exposition(static_cast<std::size_t>(*series));
  std::string path;
  if (auto keep = args.get("keep")) {
    path = *keep;
  } else {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "limitscope-bench-XXXXXX.prom").string();
    const int fd = mkstemps(tmpl.data(), 5);
    if (fd < 0) return usage_error("bench-parse", tmpl + ": cannot create a temp file");
    close(fd);
    path = tmpl;
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << gen.text;
    if (!out) return usage_error("bench-parse", path + ": cannot write");
  }
  const bool keep = args.has("keep");
  auto cleanup = [&] {
    if (!keep) std::filesystem::remove(path);
  };

  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    cleanup();
    return usage_error("bench-parse", "/proc/self/exe: cannot find this program");
  }
  const auto ours = time_tool("limitscope-cli parse-metrics", {self, "parse-metrics", path}, "",
                              static_cast<int>(*runs));
  std::optional<Timing> promtool;
  const auto promtool_path = find_in_path("promtool");
  if (promtool_path) {
    promtool = time_tool("promtool check metrics", {*promtool_path, "check", "metrics"}, path,
                         static_cast<int>(*runs));
  }
  cleanup();
  if (!ours) return usage_error("bench-parse", self + ": cannot run parse-metrics");

  const double mb = static_cast<double>(gen.text.size()) / 1e6;
  auto tool_json = [&](const Timing& t) {
    return nlohmann::json{{"tool", t.tool},
                          {"runs_s", t.seconds},
                          {"best_s", t.best()},
                          {"median_s", t.median()},
                          {"best_cpu_s", t.best_cpu()},
                          {"mb_per_s", mb / t.best()},
                          {"samples_per_s", static_cast<double>(gen.series) / t.best()},
                          {"exit_code", t.exit_code}};
  };
  if (args.has("json")) {
    nlohmann::json j{{"series", gen.series},
                     {"bytes", gen.text.size()},
                     {"runs", *runs},
                     {"ours", tool_json(*ours)}};
    if (promtool) {
      j["promtool"] = tool_json(*promtool);
      j["ratio"] = promtool->best() / ours->best();
      j["cpu_ratio"] = promtool->best_cpu() / ours->best_cpu();
    } else {
      j["promtool"] = nullptr;
      j["ratio"] = nullptr;
      j["cpu_ratio"] = nullptr;
    }
    std::cout << json_text(j, 2) << "\n";
  } else {
    std::cout << "exposition: " << gen.series << " series, " << std::fixed << std::setprecision(1)
              << mb << " MB, best of " << *runs << " runs (whole process)\n";
    auto row = [&](const Timing& t) {
      std::cout << "  " << std::left << std::setw(30) << t.tool << std::right
                << std::setprecision(3) << std::setw(8) << t.best() << " s  (median " << t.median()
                << " s, CPU " << t.best_cpu() << " s)  " << std::setprecision(1) << std::setw(8)
                << mb / t.best() << " MB/s  " << std::setprecision(0) << std::setw(10)
                << static_cast<double>(gen.series) / t.best() << " samples/s  exit " << t.exit_code
                << "\n";
    };
    row(*ours);
    if (promtool) {
      row(*promtool);
      std::cout << "  ratio (promtool / ours): " << std::setprecision(1)
                << promtool->best() / ours->best() << "x wall, "
                << promtool->best_cpu() / ours->best_cpu() << "x CPU\n";
    } else {
      std::cout << "  promtool: not found on PATH (Debian package prometheus); only ours timed\n";
    }
  }
  return ours->exit_code == 0 ? 0 : 1;
}

}  // namespace limitscope::cli
