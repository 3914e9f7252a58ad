#include "app/gateway/upstream_forwarder.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace limitscope::gateway_app {
namespace {

using gateway::UpstreamOutcome;

constexpr std::size_t kMaxBufferedBody = 16 * 1024 * 1024;  // kept for usage parsing only

// The upstream call runs on its own thread; the response side pulls from this pipe.
struct Pipe {
  std::mutex mu;
  std::condition_variable cv;
  bool headers_ready = false;
  bool done = false;
  bool cancelled = false;  // the client went away
  int status = 0;
  std::string content_type;
  std::deque<std::string> chunks;
  httplib::Error error = httplib::Error::Success;
  // Usage, read as the bytes pass.
  bool event_stream = false;
  gateway::SseUsageScanner sse;
  std::string body;  // non-stream answers, for usage_total_tokens
};

void apply(httplib::Response& res, const gateway::GatewayResponse& r) {
  res.status = r.status;
  for (const auto& h : r.headers) res.set_header(h.name, h.value);
  res.set_content(r.body, r.content_type);
}

}  // namespace

Expected<UpstreamTarget> parse_upstream_url(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    return make_error("--upstream " + url +
                      ": expected http://HOST[:PORT][/PREFIX] or https://...");
  }
  const std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return make_error("--upstream " + url + ": scheme must be http or https, got \"" + scheme +
                      "\"");
  }
  const auto path_start = url.find('/', scheme_end + 3);
  UpstreamTarget t;
  t.scheme_host_port = url.substr(0, path_start);
  if (t.scheme_host_port.size() == scheme_end + 3)
    return make_error("--upstream " + url + ": no host");
  if (path_start != std::string::npos) {
    t.path_prefix = url.substr(path_start);
    while (!t.path_prefix.empty() && t.path_prefix.back() == '/') t.path_prefix.pop_back();
  }
  return t;
}

void forward_to_upstream(gateway::ChatGateway& gw, gateway::ForwardTicket ticket,
                         const UpstreamTarget& target, const ForwardOptions& options,
                         const std::string& client_authorization, httplib::Response& res) {
  auto pipe = std::make_shared<Pipe>();
  auto shared_ticket = std::make_shared<gateway::ForwardTicket>(std::move(ticket));
  auto worker = std::make_shared<std::thread>([pipe, shared_ticket, target, options,
                                               client_authorization] {
    httplib::Client client(target.scheme_host_port);
    client.set_connection_timeout(options.connect_timeout);
    client.set_tcp_nodelay(true);
    client.set_read_timeout(options.read_timeout);
    client.set_write_timeout(options.read_timeout);
    httplib::Request req;
    req.method = "POST";
    req.path =
        target.path_prefix + std::string(gateway::endpoint_path(shared_ticket->request.endpoint));
    req.headers.emplace("Content-Type", "application/json");
    req.headers.emplace("Accept",
                        shared_ticket->request.stream ? "text/event-stream" : "application/json");
    req.headers.emplace("Authorization", options.upstream_api_key.empty()
                                             ? client_authorization
                                             : "Bearer " + options.upstream_api_key);
    req.body = shared_ticket->raw_body;
    req.response_handler = [pipe](const httplib::Response& r) {
      std::lock_guard lock(pipe->mu);
      pipe->status = r.status;
      pipe->content_type = r.get_header_value("Content-Type");
      pipe->event_stream = pipe->content_type.find("text/event-stream") != std::string::npos;
      pipe->headers_ready = true;
      pipe->cv.notify_all();
      return true;
    };
    req.content_receiver = [pipe](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
      std::lock_guard lock(pipe->mu);
      if (pipe->cancelled) return false;
      const std::string_view chunk(data, n);
      if (pipe->event_stream) {
        pipe->sse.feed(chunk);
      } else if (pipe->body.size() + n <= kMaxBufferedBody) {
        pipe->body.append(chunk);
      }
      pipe->chunks.emplace_back(chunk);
      pipe->cv.notify_all();
      return true;
    };
    httplib::Response upstream_res;
    httplib::Error error = httplib::Error::Success;
    client.send(req, upstream_res, error);
    std::lock_guard lock(pipe->mu);
    pipe->error = error;
    pipe->done = true;
    pipe->cv.notify_all();
  });

  // Wait for the upstream's status line (or its failure).
  {
    std::unique_lock lock(pipe->mu);
    pipe->cv.wait(lock, [&] { return pipe->headers_ready || pipe->done; });
    if (!pipe->headers_ready) {
      lock.unlock();
      worker->join();
      const auto kind =
          pipe->error == httplib::Error::Read || pipe->error == httplib::Error::ConnectionTimeout
              ? UpstreamOutcome::Kind::timed_out
              : UpstreamOutcome::Kind::unreachable;
      gw.complete(*shared_ticket, UpstreamOutcome{kind, 0, std::nullopt});
      apply(res, gateway::ChatGateway::upstream_failure(*shared_ticket, kind,
                                                        httplib::to_string(pipe->error)));
      return;
    }
    res.status = pipe->status;
  }
  for (const auto& h : shared_ticket->rate_limit_headers) res.set_header(h.name, h.value);
  const std::string content_type =
      pipe->content_type.empty() ? "application/octet-stream" : pipe->content_type;

  // complete() runs once, from whichever of the provider's end or the releaser comes first.
  auto completed = std::make_shared<std::once_flag>();
  auto finish = [&gw, pipe, shared_ticket, completed, worker](bool cancel) {
    std::call_once(*completed, [&] {
      if (cancel) {
        std::lock_guard lock(pipe->mu);
        pipe->cancelled = true;
      }
      if (worker->joinable()) worker->join();
      UpstreamOutcome out{UpstreamOutcome::Kind::answered, pipe->status, std::nullopt};
      if (pipe->error != httplib::Error::Success && pipe->error != httplib::Error::Canceled) {
        out.kind = UpstreamOutcome::Kind::unreachable;  // cut off mid-answer
      }
      if (pipe->event_stream) {
        pipe->sse.finish();
        out.usage_tokens = pipe->sse.total_tokens();
      } else {
        out.usage_tokens = gateway::usage_total_tokens(pipe->body);
      }
      gw.complete(*shared_ticket, out);
    });
  };
  res.set_chunked_content_provider(
      content_type,
      [pipe, finish](std::size_t, httplib::DataSink& sink) {
        std::unique_lock lock(pipe->mu);
        pipe->cv.wait(lock, [&] { return !pipe->chunks.empty() || pipe->done; });
        while (!pipe->chunks.empty()) {
          std::string chunk = std::move(pipe->chunks.front());
          pipe->chunks.pop_front();
          lock.unlock();
          if (!sink.write(chunk.data(), chunk.size())) return false;
          lock.lock();
        }
        if (pipe->done && pipe->chunks.empty()) {
          lock.unlock();
          finish(false);
          sink.done();
        }
        return true;
      },
      [finish](bool success) { finish(!success); });
}

}  // namespace limitscope::gateway_app
