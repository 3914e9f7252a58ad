#include "core/redis/server_info.h"

#include <charconv>

namespace limitscope::redis {

namespace {

template <class T>
bool parse_number(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc{} && p == s.data() + s.size();
}

// "calls=12,usec=345,usec_per_call=28.75,..." → calls and usec.
bool parse_cmdstat(std::string_view fields, CommandStat& out) {
  bool have_calls = false;
  bool have_usec = false;
  while (!fields.empty()) {
    const auto comma = fields.find(',');
    const std::string_view kv = fields.substr(0, comma);
    fields = comma == std::string_view::npos ? std::string_view{} : fields.substr(comma + 1);
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos) return false;
    const std::string_view k = kv.substr(0, eq);
    const std::string_view v = kv.substr(eq + 1);
    if (k == "calls") {
      if (!parse_number(v, out.calls)) return false;
      have_calls = true;
    } else if (k == "usec") {
      if (!parse_number(v, out.usec)) return false;
      have_usec = true;
    }
  }
  return have_calls && have_usec;
}

}  // namespace

Expected<ServerInfo> parse_server_info(std::string_view text) {
  ServerInfo info;
  double cpu_sys = 0;
  double cpu_user = 0;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = line.substr(colon + 1);
    if (key.starts_with("cmdstat_")) {
      CommandStat stat;
      if (!parse_cmdstat(value, stat)) {
        return make_error("INFO line " + std::to_string(line_no) + " '" + std::string(line) +
                          "': expected calls=N,usec=N,...");
      }
      std::string name(key.substr(8));
      for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      info.commands[name] = stat;
    } else if (key == "used_cpu_sys" || key == "used_cpu_user") {
      double v = 0;
      if (!parse_number(value, v)) {
        return make_error("INFO line " + std::to_string(line_no) + " '" + std::string(line) +
                          "': expected a number of seconds");
      }
      (key == "used_cpu_sys" ? cpu_sys : cpu_user) = v;
    }
  }
  info.cpu_seconds = cpu_sys + cpu_user;
  return info;
}

ServerInfo difference(const ServerInfo& after, const ServerInfo& before) {
  ServerInfo d;
  d.cpu_seconds = after.cpu_seconds - before.cpu_seconds;
  for (const auto& [name, a] : after.commands) {
    CommandStat s = a;
    if (auto it = before.commands.find(name); it != before.commands.end()) {
      s.calls = a.calls >= it->second.calls ? a.calls - it->second.calls : 0;
      s.usec = a.usec >= it->second.usec ? a.usec - it->second.usec : 0;
    }
    d.commands[name] = s;
  }
  return d;
}

}  // namespace limitscope::redis
