#include "core/redis/redis_password.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace limitscope::redis {

Expected<std::string> read_password_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return make_error("password file " + path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) return make_error("password file " + path + ": not a regular file");
  if ((st.st_mode & 077) != 0) {
    return make_error("password file " + path +
                      ": readable by others than its owner; chmod 600 it");
  }
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return make_error("password file " + path + ": empty");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) return make_error("password file " + path + ": empty first line");
  return line;
}

Status apply_password_source(RedisUrl& url, const std::optional<std::string>& file,
                             const char* env_value) {
  std::optional<std::string> password;
  if (file) {
    auto read = read_password_file(*file);
    if (!read) return make_error(read.error());
    password = std::move(read).value();
  } else if (env_value != nullptr && *env_value != '\0') {
    password = std::string(env_value);
  }
  if (!password) return {};
  if (!url.password.empty()) {
    return make_error(std::string("the Redis URL carries a password and ") +
                      (file ? "a password file is given" : std::string(kPasswordEnv) + " is set") +
                      ": give one");
  }
  url.password = *password;
  return {};
}

}  // namespace limitscope::redis
