#include "core/redis/connection.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>

namespace limitscope::redis {

namespace {

struct ContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};
struct ReplyDeleter {
  void operator()(void* r) const { freeReplyObject(r); }
};
using ContextPtr = std::unique_ptr<redisContext, ContextDeleter>;
using ReplyPtr = std::unique_ptr<void, ReplyDeleter>;

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

Value copy_reply(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      return Value::of_integer(r->integer);
    case REDIS_REPLY_STRING:
      return Value::of_string(std::string(r->str, r->len));
    case REDIS_REPLY_STATUS:
      return Value::of_status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR:
      return Value::of_error(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      std::vector<Value> elements;
      elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i) elements.push_back(copy_reply(r->element[i]));
      return Value::of_array(std::move(elements));
    }
    default:
      return Value::nil();
  }
}

// hiredis 0.14 reports a socket timeout as REDIS_ERR_IO with errno EAGAIN (SO_RCVTIMEO) or a
// "timed out" text (connect); EOF is the server closing the connection.
ErrorKind classify_context_error(int err, const char* errstr, int saved_errno) {
  switch (err) {
    case REDIS_ERR_EOF:
      return ErrorKind::closed;
    case REDIS_ERR_PROTOCOL:
      return ErrorKind::protocol;
    case REDIS_ERR_IO:
      if (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == ETIMEDOUT ||
          std::strstr(errstr, "timed out") != nullptr ||
          std::strstr(errstr, "temporarily unavailable") != nullptr) {
        return ErrorKind::timeout;
      }
      return ErrorKind::io;
    default:
      return ErrorKind::io;
  }
}

}  // namespace

struct Connection::Impl {
  ContextPtr ctx;
  std::string peer;
  bool broken = false;
  bool asking = false;
  ScriptMode script_mode = ScriptMode::unknown;

  RedisError context_error(int saved_errno, std::string_view doing) {
    broken = true;
    const ErrorKind kind = classify_context_error(ctx->err, ctx->errstr, saved_errno);
    std::string what = ctx->errstr[0] != '\0' ? std::string(ctx->errstr) : std::string("failure");
    if (kind == ErrorKind::timeout) what = "no answer within the command timeout";
    if (kind == ErrorKind::closed) what = "the server closed the connection";
    return make_redis_error(kind, "redis " + peer + ": " + std::string(doing) + ": " + what);
  }

  Result<Value> read_one(std::string_view doing) {
    void* raw = nullptr;
    errno = 0;
    if (redisGetReply(ctx.get(), &raw) != REDIS_OK || raw == nullptr) {
      return context_error(errno, doing);
    }
    ReplyPtr reply(raw);
    return copy_reply(static_cast<const redisReply*>(raw));
  }

  Result<void> append(const std::vector<std::string>& argv) {
    if (argv.empty()) return make_redis_error(ErrorKind::usage, "redis: empty command");
    std::vector<const char*> ptrs;
    std::vector<std::size_t> lens;
    ptrs.reserve(argv.size());
    lens.reserve(argv.size());
    for (const auto& a : argv) {
      ptrs.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(ctx.get(), static_cast<int>(argv.size()), ptrs.data(),
                               lens.data()) != REDIS_OK) {
      return context_error(errno, "sending " + argv[0]);
    }
    return {};
  }
};

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;
Connection::~Connection() = default;

Result<Connection> Connection::open(const RedisUrl& url, const ConnectOptions& options) {
  if (url.cluster()) {
    return make_redis_error(ErrorKind::usage,
                            "redis " + url.redacted() +
                                ": a redis+cluster:// URL names cluster seed nodes; this needs "
                                "the cluster client, or a redis:// URL of one node");
  }
  auto impl = std::make_unique<Impl>();
  impl->peer = url.redacted();
  const timeval ctv = to_timeval(options.connect_timeout);
  errno = 0;
  redisContext* raw = url.unix_path.empty()
                          ? redisConnectWithTimeout(url.host.c_str(), url.port, ctv)
                          : redisConnectUnixWithTimeout(url.unix_path.c_str(), ctv);
  const int connect_errno = errno;
  if (raw == nullptr) {
    return make_redis_error(ErrorKind::io, "redis " + impl->peer + ": cannot allocate a context");
  }
  impl->ctx.reset(raw);
  if (raw->err != 0) return impl->context_error(connect_errno, "connect");
  if (redisSetTimeout(raw, to_timeval(options.command_timeout)) != REDIS_OK) {
    return impl->context_error(errno, "setting the command timeout");
  }
  redisEnableKeepAlive(raw);

  Connection c(std::move(impl));
  if (!url.password.empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!url.user.empty()) auth.push_back(url.user);
    auth.push_back(url.password);
    auto r = c.command(auth);
    if (!r) {
      RedisError e = r.error();
      if (e.kind == ErrorKind::reply || e.kind == ErrorKind::auth) {
        e.kind = ErrorKind::auth;
        e.message = "redis " + c.peer() + ": authentication refused (" +
                    (url.user.empty() ? std::string("password") : "user '" + url.user + "'") +
                    "): " + r.error().message.substr(r.error().message.rfind(": ") + 2);
      }
      return e;
    }
  }
  if (url.db != 0) {
    auto r = c.command({"SELECT", std::to_string(url.db)});
    if (!r) return r.error();
  }
  return c;
}

Result<Value> Connection::command(const std::vector<std::string>& argv) {
  if (!usable()) {
    return make_redis_error(ErrorKind::closed, "redis " + peer() + ": connection is unusable");
  }
  if (impl_->asking) {
    if (auto sent = impl_->append({"ASKING"}); !sent.ok()) return sent.error();
  }
  if (auto sent = impl_->append(argv); !sent.ok()) return sent.error();
  if (impl_->asking) {
    auto asked = impl_->read_one("ASKING");
    if (!asked) return asked;
  }
  auto reply = impl_->read_one(argv[0]);
  if (!reply) return reply;
  if (reply->is_error()) {
    return make_redis_error(classify_error_reply(reply->str),
                            "redis " + peer() + ": " + argv[0] + ": " + reply->str);
  }
  return reply;
}

Result<std::vector<Value>> Connection::pipeline(
    const std::vector<std::vector<std::string>>& commands) {
  CommandBatch batch;
  for (const auto& argv : commands) {
    if (argv.empty()) return make_redis_error(ErrorKind::usage, "redis: empty command");
    batch.add(std::span<const std::string>(argv));
  }
  return pipeline(batch);
}

Result<std::vector<Value>> Connection::pipeline(const CommandBatch& batch) {
  if (!usable()) {
    return make_redis_error(ErrorKind::closed, "redis " + peer() + ": connection is unusable");
  }
  static constexpr std::string_view kAsking = "*1\r\n$6\r\nASKING\r\n";
  auto send = [&](std::string_view bytes) -> Result<void> {
    if (redisAppendFormattedCommand(impl_->ctx.get(), bytes.data(), bytes.size()) != REDIS_OK) {
      return impl_->context_error(errno, "sending a pipeline");
    }
    return {};
  };
  if (!impl_->asking) {
    if (!batch.empty()) {
      if (auto sent = send(batch.bytes()); !sent.ok()) return sent.error();
    }
  } else {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (auto sent = send(kAsking); !sent.ok()) return sent.error();
      if (auto sent = send(batch.command(i)); !sent.ok()) return sent.error();
    }
  }
  const std::string doing = "pipeline of " + std::to_string(batch.size());
  std::vector<Value> replies;
  replies.reserve(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (impl_->asking) {
      auto asked = impl_->read_one("ASKING");
      if (!asked) return asked.error();
    }
    auto reply = impl_->read_one(doing);
    if (!reply) return reply.error();
    replies.push_back(std::move(reply).value());
  }
  return replies;
}

ScriptMode Connection::script_mode() const {
  return impl_ ? impl_->script_mode : ScriptMode::unknown;
}

void Connection::set_script_mode(ScriptMode mode) {
  if (impl_) impl_->script_mode = mode;
}

void Connection::set_asking(bool on) {
  if (impl_) impl_->asking = on;
}

bool Connection::usable() const {
  return impl_ && impl_->ctx && !impl_->broken;
}

const std::string& Connection::peer() const {
  static const std::string moved = "(moved-from connection)";
  return impl_ ? impl_->peer : moved;
}

}  // namespace limitscope::redis
