#include "support/canned_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <stdexcept>
#include <vector>

#include "support/ports.h"

namespace limitscope::test {

namespace {
const char* reason_of(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}
}  // namespace

CannedHttpServer::CannedHttpServer() {
  listen_fd_ = listen_on_loopback(port_);
  thread_ = std::thread([this] { serve(); });
}

CannedHttpServer::~CannedHttpServer() {
  stop_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  thread_.join();
  ::close(listen_fd_);
}

std::string CannedHttpServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void CannedHttpServer::respond(Response r) {
  std::lock_guard lock(mu_);
  response_ = std::move(r);
}

void CannedHttpServer::add_headers(std::string lines) {
  std::lock_guard lock(mu_);
  extra_headers_ = std::move(lines);
}

void CannedHttpServer::require_authorization(std::string value) {
  std::lock_guard lock(mu_);
  required_authorization_ = std::move(value);
}

namespace {
// The Authorization header's value in a request head ("" when absent). Header names are
// case-insensitive; the value is taken as sent.
std::string authorization_of(const std::string& head) {
  std::size_t pos = 0;
  while ((pos = head.find("\r\n", pos)) != std::string::npos) {
    pos += 2;
    const std::size_t end = head.find("\r\n", pos);
    const std::string line =
        head.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name != "authorization") continue;
    std::size_t v = colon + 1;
    while (v < line.size() && line[v] == ' ') ++v;
    return line.substr(v);
  }
  return {};
}
}  // namespace

std::string CannedHttpServer::last_request() const {
  std::lock_guard lock(mu_);
  return last_request_;
}

std::vector<std::string> CannedHttpServer::request_lines() const {
  std::lock_guard lock(mu_);
  return request_lines_;
}

void CannedHttpServer::serve() {
  std::vector<int> held;  // silent connections, closed at the end
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;  // wakes regularly to notice stop_
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    std::string head;
    char buf[4096];
    while (head.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      head.append(buf, static_cast<std::size_t>(n));
    }
    Response r;
    std::string extra;
    {
      std::lock_guard lock(mu_);
      r = response_;
      extra = extra_headers_;
      last_request_ = head.substr(0, head.find("\r\n\r\n"));
      request_lines_.push_back(last_request_.substr(0, last_request_.find("\r\n")));
      if (!required_authorization_.empty() &&
          authorization_of(last_request_) != required_authorization_) {
        r = Response{401, "text/plain", "credentials missing or wrong\n", false, 0};
      }
    }
    ++requests_;
    if (r.silent) {
      held.push_back(fd);
      continue;
    }
    const std::size_t length = r.declared_length != 0 ? r.declared_length : r.body.size();
    std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason_of(r.status) +
                      "\r\nContent-Type: " + r.content_type +
                      "\r\nContent-Length: " + std::to_string(length) + "\r\n" + extra +
                      "Connection: close\r\n\r\n" + r.body;
    std::size_t sent = 0;
    while (sent < out.size()) {
      const ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
  }
  for (int fd : held) ::close(fd);
}

}  // namespace limitscope::test
