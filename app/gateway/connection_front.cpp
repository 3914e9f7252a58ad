#include "app/gateway/connection_front.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/common/clock.h"
#include "core/common/http_date.h"
#include "core/gateway/http_framing.h"
#include "core/gateway/http_types.h"

namespace limitscope::gateway_app {
namespace {

using gateway::FramingError;
using gateway::RequestHead;

const char* reason_phrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

bool iequals_prefix(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = line[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != name[i]) return false;
  }
  return true;
}

// The head's lines without hop-by-hop fields the front decides itself (lowercase names).
std::string without_fields(std::string_view head, std::initializer_list<std::string_view> names) {
  std::string out;
  while (!head.empty()) {
    const auto eol = head.find("\r\n");
    const std::string_view line =
        head.substr(0, eol == std::string_view::npos ? head.size() : eol + 2);
    bool drop = false;
    for (std::string_view n : names) drop = drop || iequals_prefix(line, n);
    if (!drop) out.append(line);
    head.remove_prefix(line.size());
  }
  return out;
}

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// A whole answer of the front itself: a JSON error, dated, closing the connection.
std::string front_answer(int status, std::string_view type, std::string_view code,
                         std::string_view message, Nanos wall) {
  const gateway::GatewayResponse r = gateway::error_response(status, type, code, message);
  return "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(r.body.size()) +
         "\r\nDate: " + format_http_date(wall) + "\r\nConnection: close\r\n\r\n" + r.body;
}

void set_nonblocking(int fd, bool on) {
  const int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}

// Finds the end of a chunked body fed piece by piece (sizes, data, CRLFs, trailers).
class ChunkScanner {
 public:
  /// @return true when the body ended within `data` (nothing after it is expected)
  bool feed(std::string_view data) {
    for (char ch : data) {
      switch (state_) {
        case State::size_line:
          if (ch == '\n') {
            const std::string size = line_.substr(0, line_.find(';'));
            left_ = std::strtoull(size.c_str(), nullptr, 16);
            line_.clear();
            state_ = left_ == 0 ? State::trailer : State::data;
          } else if (ch != '\r') {
            line_ += ch;
          }
          break;
        case State::data:
          if (--left_ == 0) state_ = State::data_end;
          break;
        case State::data_end:  // the CRLF after a chunk's data
          if (ch == '\n') state_ = State::size_line;
          break;
        case State::trailer:
          if (ch == '\n') {
            if (line_.empty()) return true;
            line_.clear();
          } else if (ch != '\r') {
            line_ += ch;
          }
          break;
      }
    }
    return false;
  }

 private:
  enum class State { size_line, data, data_end, trailer } state_ = State::size_line;
  std::string line_;
  std::uint64_t left_ = 0;
};

// Relays one answer from the backend socket to the client as it arrives, and finds where it
// ends (Content-Length, chunked, or the backend's close) so the backend connection can serve
// the next request. The answer's hop-by-hop fields are the front's: Connection is replaced.
struct ResponseRelay {
  enum class State { nothing, partial, complete } state = State::nothing;
  bool client_keeps = false;    // the client may send its next request on this connection
  bool backend_closes = false;  // the backend said it closes its side after this answer

  /// @param bodiless the request was HEAD: the answer has no body, whatever its framing says
  void run(int backend, int client, bool client_wants_keep_alive, bool bodiless) {
    std::string head;
    char buf[65536];
    std::uint64_t body_left = 0;  // Content-Length framing
    bool chunked = false;
    bool until_close = false;
    ChunkScanner chunks;
    for (;;) {
      const ssize_t n = ::recv(backend, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (until_close && n == 0) state = State::complete;  // a close-delimited answer
        return;
      }
      std::string_view data(buf, static_cast<std::size_t>(n));
      if (head.size() < 4 || head.compare(head.size() - 4, 4, "\r\n\r\n") != 0) {
        state = State::partial;
        const std::size_t before = head.size();
        head.append(data);
        const auto end = head.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        data = data.substr(end + 4 - before);
        head.resize(end + 4);
        std::string fields =
            without_fields(std::string_view(head).substr(0, end + 2), {"connection", "keep-alive"});
        std::string lower = head;
        for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        backend_closes = lower.find("\r\nconnection: close") != std::string::npos;
        // No body: an answer to HEAD, 1xx, 204 and 304 (RFC 9112 §6.3), whatever its fields.
        const int status = std::atoi(lower.c_str() + std::min<std::size_t>(lower.size(), 9));
        if (bodiless || status / 100 == 1 || status == 204 || status == 304) {
          body_left = 0;
        } else if (const auto cl = lower.find("\r\ncontent-length:"); cl != std::string::npos) {
          body_left = std::strtoull(lower.c_str() + cl + 17, nullptr, 10);
        } else if (lower.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
          chunked = true;
        } else {
          until_close = true;
          backend_closes = true;
        }
        client_keeps = client_wants_keep_alive && !until_close;
        fields += client_keeps ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
        if (!send_all(client, fields)) return;
      }
      if (!data.empty() && !send_all(client, data)) return;
      if (chunked) {
        if (chunks.feed(data)) break;
      } else if (!until_close) {
        body_left -= std::min<std::uint64_t>(body_left, data.size());
        if (body_left == 0) break;
      }
    }
    state = State::complete;
  }
};

}  // namespace

struct ConnectionFront::Impl {
  struct Conn {
    int fd = -1;
    std::string in;
    enum class Phase { idle, head, body } phase = Phase::idle;
    Nanos deadline{0};
    std::optional<RequestHead> head;
    bool continue_sent = false;
    gateway::ChunkedProgress chunks;  // how far a chunked body was read
    bool busy = false;
    bool dead = false;  // set by a worker: close it
    std::string request;
  };

  explicit Impl(FrontOptions o) : options(std::move(o)) {}

  FrontOptions options;
  Clock& clock = SteadyClock::instance();
  int listen_fd = -1;
  int epoll_fd = -1;
  int wake_fd = -1;
  std::atomic<bool> stopping{false};
  std::unordered_map<int, std::unique_ptr<Conn>> conns;  // the loop thread's only

  std::mutex mu;  // guards jobs, returned, workers_stop
  std::condition_variable cv;
  std::deque<Conn*> jobs;
  std::vector<Conn*> returned;
  bool workers_stop = false;
  std::vector<std::thread> workers;

  Nanos after(std::chrono::seconds s) const { return clock.now() + s; }

  void watch(Conn& c) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = c.fd;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c.fd, &ev);
  }

  void close_conn(int fd) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    conns.erase(fd);
  }

  // Answers an error of the front itself and closes the connection.
  void refuse(Conn& c, const FramingError& e) {
    const std::string text =
        front_answer(e.status, "invalid_request_error", e.code, e.message, clock.wall());
    ::send(c.fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);  // best effort
    if (options.on_response) options.on_response(e.status);
    close_conn(c.fd);
  }

  // Moves a connection's buffered bytes on: parses, answers errors, dispatches a complete
  // request. @return false when the connection was closed
  bool progress(Conn& c) {
    if (c.phase == Conn::Phase::idle) {
      if (c.in.empty()) return true;
      c.phase = Conn::Phase::head;
      c.deadline = after(options.header_timeout);
    }
    if (c.phase == Conn::Phase::head) {
      auto parsed =
          gateway::parse_request_head(c.in, options.max_head_bytes, options.max_body_bytes);
      if (std::holds_alternative<std::monostate>(parsed)) return true;
      if (auto* e = std::get_if<FramingError>(&parsed)) {
        refuse(c, *e);
        return false;
      }
      c.head = std::get<RequestHead>(std::move(parsed));
      c.phase = Conn::Phase::body;
      c.deadline = after(options.body_timeout);
      c.continue_sent = false;
      c.chunks = {};
    }
    std::size_t total = c.head->head_bytes + c.head->content_length;
    if (c.head->chunked) {
      auto end = gateway::chunked_body_end(std::string_view(c.in).substr(c.head->head_bytes),
                                           options.max_body_bytes, &c.chunks);
      if (auto* e = std::get_if<FramingError>(&end)) {
        refuse(c, *e);
        return false;
      }
      total = std::holds_alternative<std::size_t>(end)
                  ? c.head->head_bytes + std::get<std::size_t>(end)
                  : 0;
    }
    if (total == 0 || c.in.size() < total) {
      if (c.head->expect_continue && !c.continue_sent) {
        c.continue_sent = true;
        static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        ::send(c.fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      }
      return true;
    }
    c.request = c.in.substr(0, total);
    c.in.erase(0, total);
    if (c.in.empty()) std::string().swap(c.in);  // an idle connection keeps no large buffer
    c.busy = true;
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
    {
      std::lock_guard lock(mu);
      jobs.push_back(&c);
    }
    cv.notify_one();
    return true;
  }

  void on_readable(Conn& c) {
    char buf[65536];
    const std::size_t cap = options.max_head_bytes + options.max_body_bytes + sizeof buf;
    while (!c.busy) {
      const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {  // the client closed (or reset): nothing to answer
        close_conn(c.fd);
        return;
      }
      c.in.append(buf, static_cast<std::size_t>(n));
      if (c.in.size() > cap) {
        refuse(c, FramingError{413, "request_too_large",
                               "The request is larger than the gateway accepts."});
        return;
      }
      if (!progress(c)) return;
    }
  }

  void accept_all() {
    for (;;) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or a transient error: the next event retries
      if (conns.size() >= options.max_connections) {
        ::close(fd);  // at the cap: refuse at once rather than queue without bound
        continue;
      }
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto c = std::make_unique<Conn>();
      c->fd = fd;
      c->deadline = after(options.idle_timeout);
      watch(*c);
      conns.emplace(fd, std::move(c));
    }
  }

  void take_back() {
    std::vector<Conn*> back;
    {
      std::lock_guard lock(mu);
      back.swap(returned);
    }
    for (Conn* c : back) {
      if (c->dead) {
        ::close(c->fd);
        conns.erase(c->fd);
        continue;
      }
      c->busy = false;
      c->phase = Conn::Phase::idle;
      c->head.reset();
      c->deadline = after(options.idle_timeout);
      watch(*c);
      if (progress(*c) && !c->busy) on_readable(*c);  // a pipelined request may be buffered
    }
  }

  void sweep_deadlines() {
    const Nanos now = clock.now();
    std::vector<int> expired;
    for (auto& [fd, c] : conns) {
      if (!c->busy && c->deadline <= now) expired.push_back(fd);
    }
    for (int fd : expired) {
      Conn& c = *conns.at(fd);
      if (c.phase == Conn::Phase::idle) {
        close_conn(fd);  // an idle keep-alive connection: nothing to say
      } else {
        refuse(c, FramingError{408, "request_timeout",
                               c.phase == Conn::Phase::head
                                   ? "The request head did not arrive in time."
                                   : "The request body did not arrive in time."});
      }
    }
  }

  void loop() {
    std::vector<epoll_event> events(256);
    Nanos next_sweep = clock.now();
    while (!stopping.load()) {
      const int n = epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), 250);
      for (int i = 0; i < n; ++i) {
        const int fd = events[static_cast<std::size_t>(i)].data.fd;
        if (fd == listen_fd) {
          accept_all();
        } else if (fd == wake_fd) {
          std::uint64_t v = 0;
          [[maybe_unused]] const ssize_t r = ::read(wake_fd, &v, sizeof v);
          take_back();
        } else if (auto it = conns.find(fd); it != conns.end() && !it->second->busy) {
          on_readable(*it->second);
        }
      }
      if (clock.now() >= next_sweep) {
        sweep_deadlines();
        next_sweep = clock.now() + std::chrono::milliseconds(250);
      }
    }
  }

  // The request's head as the backend gets it: no Expect (the front answered it), and none of
  // the client's hop-by-hop fields (the backend connection is the worker's, kept alive). The
  // body follows as the client sent it.
  std::string backend_head(const Conn& c) const {
    const std::string_view req = c.request;
    const std::size_t line_end = req.find("\r\n") + 2;
    const std::size_t head_end = c.head->head_bytes - 2;  // keep the last line's CRLF
    return std::string(req.substr(0, line_end)) +
           without_fields(req.substr(line_end, head_end - line_end),
                          {"connection", "keep-alive", "expect"}) +
           "\r\n";
  }

  int connect_backend() const {
    const int b = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(options.backend_port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (b < 0 || ::connect(b, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      if (b >= 0) ::close(b);
      return -1;
    }
    const int one = 1;
    setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return b;
  }

  // A kept backend connection the backend closed meanwhile (readable while idle = EOF).
  static bool stale(int fd) {
    pollfd p{fd, POLLIN | POLLRDHUP, 0};
    return ::poll(&p, 1, 0) != 0;
  }

  // Passes one request to the backend on the worker's connection `b` (opened, reopened or
  // closed here) and relays the answer. @return false: close the client
  bool serve(Conn& c, int& b) {
    set_nonblocking(c.fd, false);
    timeval tv{static_cast<time_t>(options.write_timeout.count()), 0};
    setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    const std::string head = backend_head(c);
    const std::string_view body = std::string_view(c.request).substr(c.head->head_bytes);
    ResponseRelay relay;
    for (int attempt = 0; attempt < 2 && relay.state == ResponseRelay::State::nothing; ++attempt) {
      const bool reused = b >= 0;
      if (b >= 0 && stale(b)) {
        ::close(b);
        b = -1;
      }
      if (b < 0) b = connect_backend();
      if (b < 0 || !send_all(b, head) || !send_all(b, body)) {
        relay.state = ResponseRelay::State::nothing;
      } else {
        relay.run(b, c.fd, c.head->keep_alive, c.head->method == "HEAD");
      }
      if (relay.state != ResponseRelay::State::complete && b >= 0) {
        ::close(b);
        b = -1;
      }
      // Retry only a kept connection that gave nothing back (the backend closed it as the
      // request went out): nothing of this request was processed or answered.
      if (!reused) break;
    }
    if (relay.state == ResponseRelay::State::nothing) {
      send_all(c.fd, front_answer(502, "server_error", "backend_unavailable",
                                  "The gateway's request server did not answer.", clock.wall()));
      if (options.on_response) options.on_response(502);
      return false;
    }
    if (relay.backend_closes && b >= 0) {
      ::close(b);
      b = -1;
    }
    set_nonblocking(c.fd, true);
    return relay.state == ResponseRelay::State::complete && relay.client_keeps;
  }

  // Lets the workers finish the requests in progress, then ends them (each closes its backend
  // connection, so the request server can stop too).
  void join_workers() {
    {
      std::lock_guard lock(mu);
      workers_stop = true;
    }
    cv.notify_all();
    for (auto& t : workers) {
      if (t.joinable()) t.join();
    }
  }

  void work() {
    int backend = -1;  // this worker's connection to the request server, kept between requests
    for (;;) {
      Conn* c = nullptr;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return workers_stop || !jobs.empty(); });
        if (jobs.empty()) {
          if (backend >= 0) ::close(backend);
          return;
        }
        c = jobs.front();
        jobs.pop_front();
      }
      c->dead = !serve(*c, backend);
      std::string().swap(c->request);
      {
        std::lock_guard lock(mu);
        returned.push_back(c);
      }
      const std::uint64_t one = 1;
      [[maybe_unused]] const ssize_t w = ::write(wake_fd, &one, sizeof one);
    }
  }
};

ConnectionFront::ConnectionFront(FrontOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

ConnectionFront::~ConnectionFront() {
  stop();
  impl_->join_workers();
  for (auto& [fd, c] : impl_->conns) ::close(fd);
  for (int fd : {impl_->listen_fd, impl_->epoll_fd, impl_->wake_fd}) {
    if (fd >= 0) ::close(fd);
  }
}

Expected<int> ConnectionFront::bind() {
  Impl& m = *impl_;
  const std::string where = "--listen " + m.options.host + ":" + std::to_string(m.options.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(m.options.host.c_str(), std::to_string(m.options.port).c_str(), &hints, &found) !=
          0 ||
      !found) {
    return make_error(where + ": cannot resolve the host");
  }
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const bool bound = fd >= 0 && ::bind(fd, found->ai_addr, found->ai_addrlen) == 0 &&
                     ::listen(fd, m.options.listen_backlog) == 0;
  freeaddrinfo(found);
  if (!bound) {
    if (fd >= 0) ::close(fd);
    return make_error(where + ": cannot bind (address in use or not local?)");
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = addr.ss_family == AF_INET6
                       ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                       : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  m.listen_fd = fd;
  m.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  m.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  for (int watched : {m.listen_fd, m.wake_fd}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = watched;
    epoll_ctl(m.epoll_fd, EPOLL_CTL_ADD, watched, &ev);
  }
  return port;
}

void ConnectionFront::run() {
  Impl& m = *impl_;
  for (std::size_t i = 0; i < m.options.workers; ++i) m.workers.emplace_back([&m] { m.work(); });
  m.loop();
  m.join_workers();
}

void ConnectionFront::stop() {
  impl_->stopping.store(true);
  if (impl_->wake_fd >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(impl_->wake_fd, &one, sizeof one);
  }
}

}  // namespace limitscope::gateway_app
