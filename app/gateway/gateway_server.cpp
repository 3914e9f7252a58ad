#include "app/gateway/gateway_server.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/common/http_date.h"
#include "core/gateway/mock_upstream.h"

namespace limitscope::gateway_app {
namespace {

void apply(httplib::Response& res, const gateway::GatewayResponse& r) {
  res.status = r.status;
  for (const auto& h : r.headers) res.set_header(h.name, h.value);
  res.set_content(r.body, r.content_type);
}

// Answers `r` and then closes the connection. The library keeps a connection open unless the
// request asked otherwise or writing failed, so the body is written by a provider that then
// reports a failure: the client gets the whole answer (Content-Length), then the close.
void answer_and_close(httplib::Response& res, const gateway::GatewayResponse& r) {
  res.status = r.status;
  for (const auto& h : r.headers) res.set_header(h.name, h.value);
  res.set_header("Connection", "close");
  auto body = std::make_shared<std::string>(r.body);
  res.set_content_provider(body->size(), r.content_type,
                           [body](std::size_t offset, std::size_t, httplib::DataSink& sink) {
                             sink.write(body->data() + offset, body->size() - offset);
                             return false;  // close: what follows on the connection is unread
                           });
}

// Sets the accept queue of the listening socket on `port` to `backlog`. cpp-httplib 0.11
// listens with a backlog of 5 compiled into Debian's library and does not expose the socket;
// Linux lets listen() be called again on a listening socket to change its backlog.
bool set_listen_backlog(int port, int backlog) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const int fd = std::atoi(entry.path().filename().c_str());
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening == 0)
      continue;
    sockaddr_storage addr{};
    socklen_t addr_len = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) != 0) continue;
    int bound = -1;
    if (addr.ss_family == AF_INET) bound = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    if (addr.ss_family == AF_INET6)
      bound = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
    if (bound == port) return ::listen(fd, backlog) == 0;
  }
  return false;
}

gateway::IncomingRequest incoming(const httplib::Request& req) {
  gateway::IncomingRequest in;
  if (req.has_header("Authorization")) in.authorization = req.get_header_value("Authorization");
  return in;
}

}  // namespace

GatewayServer::GatewayServer(gateway::ChatGateway& gateway, ServerOptions options)
    : gateway_(gateway), options_(std::move(options)) {
  // One request thread per front worker (each backend connection closes after its answer),
  // and a few for connections made to the loopback port directly.
  const std::size_t threads = options_.threads + 4;
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_.set_payload_max_length(options_.max_body_bytes);
  // Its clients are the front's workers, one persistent connection each (a thread apiece,
  // reserved for them): no reason to close those between requests.
  server_.set_keep_alive_max_count(1'000'000);
  server_.set_keep_alive_timeout(300);
  server_.set_tcp_nodelay(true);

  for (const gateway::Endpoint endpoint :
       {gateway::Endpoint::chat_completions, gateway::Endpoint::embeddings,
        gateway::Endpoint::responses}) {
    server_.Post(std::string(gateway::endpoint_path(endpoint)),
                 [this, endpoint](const httplib::Request& req, httplib::Response& res) {
                   handle_api(endpoint, req, res);
                 });
  }
  server_.Get("/v1/models", [this](const httplib::Request& req, httplib::Response& res) {
    apply(res, gateway_.list_models(incoming(req)));
  });
  server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(gateway_.render_metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  server_.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const auto policy = gateway_.backend().policy();
    // Not ready while the backend is misconfigured (its store refuses the gateway's user).
    const Status ready = gateway_.backend().not_ready();
    nlohmann::json body = {
        {"ready", ready.ok()},
        {"backend", std::string(gateway_.backend().name())},
        {"policy", policy->source},
        {"policy_generation", policy_generation_.load(std::memory_order_relaxed)}};
    if (!ready.ok()) {
      body["reason"] = ready.error();
      res.status = 503;
    }
    // The policy's path (and a reason quoting Redis) need not be UTF-8: replaced, never an
    // exception.
    res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                    "application/json");
  });
  // Request framing the library would accept but must not: two Content-Length headers, or
  // Content-Length with Transfer-Encoding (RFC 9112 §6.3: a request smuggling vector, since a
  // proxy in front may frame the body the other way). Refused before the body is read, and
  // the connection is closed, so the unread bytes are never taken for a next request.
  server_.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    const std::size_t lengths = req.get_header_value_count("Content-Length");
    if (lengths <= 1 && !(lengths == 1 && req.has_header("Transfer-Encoding"))) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    answer_and_close(
        res, gateway::error_response(
                 400, "invalid_request_error", "ambiguous_length",
                 lengths > 1 ? "The request has more than one Content-Length header."
                             : "The request has both Content-Length and Transfer-Encoding."));
    return httplib::Server::HandlerResponse::Handled;
  });
  // Last resort: an exception no handler expected is a generic 500 (its text goes to the log,
  // never to the client: the library would otherwise send it in an EXCEPTION_WHAT header).
  server_.set_exception_handler(
      [this](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        if (options_.log)
          options_.log("500 on " + req.method + " " + req.path + ": " + what.substr(0, 300));
        res.headers.clear();
        apply(res, gateway::error_response(500, "server_error", "internal_error",
                                           "The gateway failed on this request."));
      });
  // The library's own refusals (body too large, unknown path, wrong method) get JSON bodies.
  server_.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        // An answer of ours (a body, or a provider: a streamed upstream error, a refusal that
        // closes the connection) is never replaced.
        if (!res.body.empty() || res.content_provider_) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        gateway::GatewayResponse r;
        switch (res.status) {
          case 413:
            r = gateway::error_response(413, "invalid_request_error", "request_too_large",
                                        "The request body is larger than the gateway accepts.");
            break;
          case 404:
            r = gateway::error_response(404, "invalid_request_error", "not_found", "No such path.");
            break;
          case 405:
            r = gateway::error_response(405, "invalid_request_error", "method_not_allowed",
                                        "Method not allowed on this path.");
            break;
          default:
            r = gateway::error_response(res.status, "invalid_request_error", "bad_request",
                                        "The request could not be read.");
            break;
        }
        res.set_content(r.body, r.content_type);
        return httplib::Server::HandlerResponse::Handled;
      }));
  // Counts every answer (including the library's refusals) by status; logs nothing about keys.
  // RFC 9110 asks a server with a clock to date its answers; `audit clock` reads it.
  server_.set_post_routing_handler([this](const httplib::Request&, httplib::Response& res) {
    res.set_header("Date", format_http_date(gateway_.clock().wall()));
  });
  server_.set_logger([this](const httplib::Request&, const httplib::Response& res) {
    gateway_.metrics().on_response(res.status);
  });
}

Expected<int> GatewayServer::bind() {
  const int backend_port = server_.bind_to_any_port("127.0.0.1");
  if (backend_port < 0) return make_error("cannot bind the request server on 127.0.0.1");
  if (!set_listen_backlog(backend_port, options_.listen_backlog) && options_.log) {
    options_.log("could not raise the request server's listen backlog to " +
                 std::to_string(options_.listen_backlog));
  }
  FrontOptions front;
  front.host = options_.host;
  front.port = options_.port;
  front.backend_port = backend_port;
  front.workers = options_.threads;
  front.listen_backlog = options_.listen_backlog;
  front.max_body_bytes = options_.max_body_bytes;
  front.header_timeout = options_.header_timeout;
  front.body_timeout = options_.body_timeout;
  front.idle_timeout = options_.idle_timeout;
  front.max_connections = options_.max_connections;
  front.on_response = [this](int status) { gateway_.metrics().on_response(status); };
  front.log = options_.log;
  front_ = std::make_unique<ConnectionFront>(front);
  return front_->bind();
}

bool GatewayServer::run() {
  bool backend_ok = true;
  std::thread backend([&] { backend_ok = server_.listen_after_bind(); });
  front_->run();
  server_.stop();
  backend.join();
  return backend_ok;
}

void GatewayServer::stop() {
  if (front_) front_->stop();
}

void GatewayServer::handle_api(gateway::Endpoint endpoint, const httplib::Request& req,
                               httplib::Response& res) {
  gateway::IncomingRequest in = incoming(req);
  in.body = req.body;
  in.endpoint = endpoint;
  gateway::AdmitOutcome out = gateway_.admit(in);
  if (out.response) {
    apply(res, *out.response);
    return;
  }
  if (options_.mock_upstream) {
    answer_from_mock(std::move(*out.ticket), res);
  } else {
    forward_to_upstream(gateway_, std::move(*out.ticket), *options_.upstream, options_.forward,
                        in.authorization.value_or(""), res);
  }
}

void GatewayServer::answer_from_mock(gateway::ForwardTicket ticket, httplib::Response& res) {
  if (options_.mock_latency.count() > 0) std::this_thread::sleep_for(options_.mock_latency);
  const auto created =
      std::chrono::duration_cast<std::chrono::seconds>(gateway_.clock().wall()).count();
  gateway::MockCompletion m = gateway::mock_completion(ticket.request, ticket.request_id, created);
  gateway_.complete(ticket, gateway::UpstreamOutcome{gateway::UpstreamOutcome::Kind::answered, 200,
                                                     m.prompt_tokens + m.completion_tokens});
  res.status = 200;
  for (const auto& h : ticket.rate_limit_headers) res.set_header(h.name, h.value);
  if (!ticket.request.stream) {
    res.set_content(m.chunks.front(), m.content_type);
    return;
  }
  auto chunks = std::make_shared<std::vector<std::string>>(std::move(m.chunks));
  auto next = std::make_shared<std::size_t>(0);
  res.set_chunked_content_provider(m.content_type,
                                   [chunks, next](std::size_t, httplib::DataSink& sink) {
                                     if (*next < chunks->size()) {
                                       const std::string& c = (*chunks)[(*next)++];
                                       return sink.write(c.data(), c.size());
                                     }
                                     sink.done();
                                     return true;
                                   });
}

}  // namespace limitscope::gateway_app
