#include "support/process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "support/test_paths.h"

namespace limitscope::test {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "limitscope_" + std::to_string(getpid()) + "_" + name;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

ProcessResult run_process(const std::string& program, const std::string& args) {
  const std::string err_path = temp_path("stderr.txt");
  const std::string cmd = quoted(program) + " " + args + " 2>" + quoted(err_path);
  ProcessResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_path);
  return r;
}

ProcessResult run_cli(const std::string& args) {
  return run_process(binary_path("app/limitscope-cli"), args);
}

}  // namespace limitscope::test
