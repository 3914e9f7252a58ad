#include "app/gateway/gateway_server.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/gateway/mock_upstream.h"

namespace limitscope::gateway_app {
namespace {

void apply(httplib::Response& res, const gateway::GatewayResponse& r) {
  res.status = r.status;
  for (const auto& h : r.headers) res.set_header(h.name, h.value);
  res.set_content(r.body, r.content_type);
}

gateway::IncomingRequest incoming(const httplib::Request& req) {
  gateway::IncomingRequest in;
  if (req.has_header("Authorization")) in.authorization = req.get_header_value("Authorization");
  return in;
}

}  // namespace

GatewayServer::GatewayServer(gateway::ChatGateway& gateway, ServerOptions options)
    : gateway_(gateway), options_(std::move(options)) {
  const std::size_t threads = options_.threads;
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_.set_payload_max_length(options_.max_body_bytes);
  // Keep connections open for load generators and proxies (the library's default is 5).
  server_.set_keep_alive_max_count(100'000);
  server_.set_keep_alive_timeout(5);  // an idle keep-alive connection holds a worker thread
  server_.set_tcp_nodelay(true);

  for (const gateway::Endpoint endpoint : {gateway::Endpoint::chat_completions,
                                           gateway::Endpoint::embeddings,
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
    const nlohmann::json body = {
        {"ready", true},
        {"backend", std::string(gateway_.backend().name())},
        {"policy", policy->source},
        {"policy_generation", policy_generation_.load(std::memory_order_relaxed)}};
    res.set_content(body.dump() + "\n", "application/json");
  });
  // The library's own refusals (body too large, unknown path, wrong method) get JSON bodies.
  server_.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
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
  server_.set_logger([this](const httplib::Request&, const httplib::Response& res) {
    gateway_.metrics().on_response(res.status);
  });
}

Expected<int> GatewayServer::bind() {
  int port = options_.port;
  if (port == 0) {
    port = server_.bind_to_any_port(options_.host);
    if (port < 0) return make_error("--listen " + options_.host + ":0: cannot bind");
  } else if (!server_.bind_to_port(options_.host, port)) {
    return make_error("--listen " + options_.host + ":" + std::to_string(port) +
                      ": cannot bind (address in use or not local?)");
  }
  return port;
}

bool GatewayServer::run() {
  return server_.listen_after_bind();
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
