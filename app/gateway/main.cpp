// limitscope-gateway: a reference rate-limiting gateway in front of an OpenAI-compatible
// upstream (docs/gateway.md). This main parses options, builds the limiter backend and the
// server, prints the bound address as its first stdout line, and handles signals: SIGHUP
// reloads the policy file without dropping requests; SIGINT/SIGTERM stop the server.

#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "app/gateway/gateway_server.h"
#include "app/options/args.h"
#include "app/options/redis_flags.h"
#include "core/common/version.h"
#include "core/gateway/chat_gateway.h"
#include "core/gateway/in_process_admission.h"
#include "core/gateway/redis_admission.h"
#include "core/gateway/unlimited_admission.h"
#include "core/limiter/policy.h"
#include "core/limiter/rate.h"
#include "core/redis/endpoint.h"
#include "core/redis/redis_password.h"
#include "core/redis/redis_url.h"

namespace {

using namespace limitscope;

constexpr std::string_view kProgram = "limitscope-gateway";

int usage_error(const std::string& message) {
  std::cerr << kProgram << ": " << message << "\n";
  return 2;
}

void log_line(const std::string& message) {
  std::cerr << kProgram << ": " << message << std::endl;
}

std::optional<std::size_t> parse_count(const std::string& text, std::size_t min, std::size_t max) {
  std::size_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || ptr != text.data() + text.size() || v < min || v > max)
    return std::nullopt;
  return v;
}

// A duration option that 0 turns off: "0" (or 0s, 0ms, 0us) is Nanos{0}, anything else a
// duration parse_duration() reads (its range is the caller's to check).
Expected<Nanos> zero_or_duration(const std::string& text) {
  if (text == "0" || text == "0s" || text == "0ms" || text == "0us") return Nanos{0};
  return parse_duration(text);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> argv_rest(argv + 1, argv + argc);
  std::vector<cli::OptionSpec> specs = {
      {"listen", "HOST:PORT", "address to serve on (port 0: any free port)"},
      {"policy", "FILE", "policy JSON (docs/policy.md); default: the embedded default policy"},
      {"redis-batch-window", "DURATION",
       "coalesce concurrent decisions of a rule into one Redis round trip: the longest a decision "
       "waits to be sent while a batch is in flight (default 500us, at most 10ms; 0: every "
       "decision alone); a lone request is sent at once"},
      {"redis-batches-in-flight", "N",
       "batches of a rule's decisions in Redis at once before further decisions wait to be "
       "coalesced (1 to 4096; default: the gateway's Redis connections, so decisions are "
       "coalesced only when every connection is busy)"},
      {"redis-settle-delay", "DURATION",
       "how long a request's token settlement may wait to ride on its key's next decision "
       "before it is sent alone (default 1s, 1ms to 1m; 0: every request settles with a "
       "call of its own)"},
      {"log-decisions", "FRACTION",
       "log the decisions of this fraction of API keys (0..1, default 0) to each rule's decision "
       "stream, with model and token estimate, for the tuner (sampled by key: all of a key's)"},
      {"limiter", "MODE",
       "in-process (default), redis (with --redis) or off (admit every known key and model)"},
      {"upstream", "URL", "forward admitted requests to http[s]://HOST[:PORT][/PREFIX]"},
      {"mock-upstream", "", "answer admitted requests with the built-in mock upstream"},
      {"mock-latency", "DURATION", "mock upstream latency, e.g. 20ms (default 0)"},
      {"upstream-timeout", "DURATION", "upstream read timeout (default 60s)"},
      {"header-timeout", "DURATION",
       "time a request's head may take to arrive, else 408 (default 10s)"},
      {"body-timeout", "DURATION",
       "time a request's body may take after its head, else 408 (default 30s)"},
      {"idle-timeout", "DURATION",
       "an idle keep-alive connection is closed after this (default 60s)"},
      {"max-connections", "N",
       "most client connections open at once; more are closed (default 10000)"},
      {"max-body", "BYTES", "largest request body accepted, else 413 (default 1048576)"},
      {"threads", "N", "worker threads, one connection each at a time (default 128)"},
      {"default-max-tokens", "N",
       "completion tokens assumed when a request sets none (default 1024)"},
      {"max-keys", "N", "most (key, model) limiter states held (default 1000000)"},
      {"max-series", "N", "series cap per metric family and quota keys tracked (default 10000)"},
      {"version", "", "print the version and exit"}};
  // The shared Redis options (app/options/redis_flags.h): the CLI's, without its older
  // spellings; listed after --listen and --policy.
  const auto redis_specs = cli::redis_flag_specs({.older_spellings = false});
  specs.insert(specs.begin() + 2, redis_specs.begin(), redis_specs.end());
  const Expected<cli::Args> command_line = cli::Args::parse(
      "",
      "Rate-limiting gateway for OpenAI-compatible APIs: chat completions, embeddings, responses\n"
      "(docs/gateway.md). "
      "Prints \"listening on HOST:PORT\" as its first line; SIGHUP reloads --policy.",
      specs, argv_rest, false, kProgram);
  if (!command_line) return usage_error(command_line.error());
  const cli::Args& args = *command_line;
  if (args.help_requested()) {
    std::cout << args.usage();
    return 0;
  }
  if (args.has("version")) {
    std::cout << kProgram << " " << limitscope::version() << "\n";
    return 0;
  }

  gateway_app::ServerOptions server_options;
  const auto listen = args.get("listen");
  if (!listen) return usage_error("--listen HOST:PORT is required");
  {
    const auto colon = listen->rfind(':');
    if (colon == std::string::npos || colon == 0) {
      return usage_error("--listen " + *listen + ": expected HOST:PORT, e.g. 127.0.0.1:8080");
    }
    auto port = parse_count(listen->substr(colon + 1), 0, 65535);
    if (!port) return usage_error("--listen " + *listen + ": port must be 0..65535");
    server_options.host = listen->substr(0, colon);
    server_options.port = static_cast<int>(*port);
  }
  std::optional<redis::RedisUrl> redis_url;
  gateway::RedisAdmissionOptions redis_options;
  redis::ConnectOptions connect;
  if (args.get("redis")) {
    // The Redis options the CLI shares (core/redis/client_options.h), under their --redis-* names.
    auto text = cli::redis_option_text(args, false);
    if (!text) return usage_error(text.error());
    auto shared = redis::parse_client_options(*text, std::getenv(redis::kPasswordEnv), true);
    if (!shared) return usage_error(shared.error());
    redis_url = shared->url;
    redis_options.failure.mode = shared->failure.mode;
    redis_options.schema = shared->schema;
    connect = shared->connect;
    if (auto w = args.get("redis-batch-window")) {
      auto d = zero_or_duration(*w);
      if (!d || (*d != Nanos{0} &&
                 (*d < std::chrono::microseconds(1) || *d > std::chrono::milliseconds(10)))) {
        return usage_error("--redis-batch-window " + *w +
                           ": expected 0 or a duration between 1us and 10ms");
      }
      redis_options.batch_window = std::chrono::duration_cast<std::chrono::microseconds>(*d);
    }
    if (auto d = args.get("redis-settle-delay")) {
      auto v = zero_or_duration(*d);
      if (!v ||
          (*v != Nanos{0} && (*v < std::chrono::milliseconds(1) || *v > std::chrono::minutes(1)))) {
        return usage_error("--redis-settle-delay " + *d +
                           ": expected 0 or a duration between 1ms and 1m");
      }
      redis_options.settle_delay = std::chrono::duration_cast<std::chrono::milliseconds>(*v);
    }
    if (auto f = args.get("log-decisions")) {
      double v = -1;
      auto [p, ec] = std::from_chars(f->data(), f->data() + f->size(), v);
      if (f->empty() || ec != std::errc{} || p != f->data() + f->size() || !(v >= 0 && v <= 1)) {
        return usage_error("--log-decisions " + *f + ": expected a fraction between 0 and 1");
      }
      redis_options.log_decisions = v;
    }
  } else {
    for (const char* name :
         {"redis-failure-mode", "redis-prefix", "redis-timeout", "redis-batch-window",
          "redis-batches-in-flight", "redis-settle-delay", "log-decisions"}) {
      if (args.has(name)) return usage_error(std::string("--") + name + " needs --redis URL");
    }
  }
  if (args.has("upstream") == args.has("mock-upstream")) {
    return usage_error("give exactly one of --upstream URL and --mock-upstream");
  }
  if (auto up = args.get("upstream")) {
    auto target = gateway_app::parse_upstream_url(*up);
    if (!target) return usage_error(target.error());
    server_options.upstream = *target;
  }
  server_options.mock_upstream = args.has("mock-upstream");
  if (auto lat = args.get("mock-latency")) {
    if (!server_options.mock_upstream) return usage_error("--mock-latency needs --mock-upstream");
    auto d = zero_or_duration(*lat);
    if (!d) return usage_error("--mock-latency " + *lat + ": " + d.error());
    server_options.mock_latency = *d;
  }
  if (auto t = args.get("upstream-timeout")) {
    auto d = parse_duration(*t);
    if (!d || *d < std::chrono::seconds(1))
      return usage_error("--upstream-timeout " + *t + ": expected a duration >= 1s");
    server_options.forward.read_timeout = std::chrono::duration_cast<std::chrono::seconds>(*d);
  }
  for (const auto& [name, out] : {std::pair{"header-timeout", &server_options.header_timeout},
                                  std::pair{"body-timeout", &server_options.body_timeout},
                                  std::pair{"idle-timeout", &server_options.idle_timeout}}) {
    if (auto t = args.get(name)) {
      auto d = parse_duration(*t);
      if (!d || *d < std::chrono::seconds(1) || *d > std::chrono::hours(1)) {
        return usage_error("--" + std::string(name) + " " + *t +
                           ": expected a duration between 1s and 1h");
      }
      *out = std::chrono::duration_cast<std::chrono::seconds>(*d);
    }
  }
  if (const char* key = std::getenv("LIMITSCOPE_UPSTREAM_API_KEY"); key != nullptr) {
    server_options.forward.upstream_api_key = key;
  }
  struct CountOption {
    const char* name;
    std::size_t min, max;
    std::size_t* out;
  };
  std::size_t default_max_tokens = 1024;
  std::size_t max_keys = 1'000'000;
  std::size_t max_series = 10'000;
  std::size_t batches_in_flight = 0;  // 0: the Redis connections
  for (const CountOption& c :
       {CountOption{"max-body", 1, std::size_t{1} << 30, &server_options.max_body_bytes},
        CountOption{"threads", 1, 4096, &server_options.threads},
        CountOption{"max-connections", 1, 1'000'000, &server_options.max_connections},
        CountOption{"default-max-tokens", 1, 10'000'000, &default_max_tokens},
        CountOption{"max-keys", 1, 100'000'000, &max_keys},
        CountOption{"max-series", 1, 10'000'000, &max_series},
        CountOption{"redis-batches-in-flight", 1, 4096, &batches_in_flight}}) {
    if (auto v = args.get(c.name)) {
      auto n = parse_count(*v, c.min, c.max);
      if (!n) {
        return usage_error("--" + std::string(c.name) + " " + *v + ": expected an integer in [" +
                           std::to_string(c.min) + ", " + std::to_string(c.max) + "]");
      }
      *c.out = *n;
    }
  }

  const std::optional<std::string> policy_path = args.get("policy");
  Policy policy = default_policy();
  if (policy_path) {
    auto p = load_policy_file(*policy_path);
    if (!p) return usage_error(p.error());
    policy = std::move(p).value();
  }

  // Signals go to one thread (sigwait), blocked everywhere else, before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGHUP);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the gateway

  KeyedLimiterOptions limiter_options;
  limiter_options.max_keys = max_keys;
  const std::string limiter_mode = args.get("limiter").value_or(redis_url ? "redis" : "in-process");
  if (redis_url && limiter_mode != "redis")
    return usage_error("--limiter " + limiter_mode + " and --redis exclude each other");
  std::unique_ptr<redis::Endpoint> endpoint;    // outlives the backend using it
  gateway::GatewayMetrics metrics(max_series);  // before the backend, which reports to it
  std::unique_ptr<gateway::AdmissionBackend> backend;
  if (limiter_mode == "redis") {
    redis_options.on_round_trip = [&metrics](std::size_t n) { metrics.on_redis_round_trip(n); };
    redis_options.on_settlement = [&metrics](gateway::SettleWay way) {
      if (way == gateway::SettleWay::lost)
        metrics.on_settle_failed("redis");
      else
        metrics.on_redis_settlement(way == gateway::SettleWay::ride);
    };
    if (!redis_url) return usage_error("--limiter redis needs --redis URL");
    if (Status err = gateway::RedisAdmission::check_policy(policy); !err.ok())
      return usage_error(err.error());
    auto log = [](const std::string& line) { log_line(line); };
    // Connections to the server, or per master (opened on demand). On a cluster TRYAGAIN and
    // CLUSTERDOWN (a migration, a failover) are retried within the Redis timeout; after it the
    // failure policy decides, as for a server that does not answer in time.
    redis::EndpointOptions endpoint_options =
        redis::EndpointOptions::with(connect, std::max<std::size_t>(4, server_options.threads));
    endpoint_options.retry_budget = connect.command_timeout;
    // Coalescing only when it saves a wait: while a connection is free a decision goes alone at
    // once (on 2 shared cores the leader's hand-off to its batch's waiters cost more than the
    // batching saved: docs/benchmarks.md, "Gateway"); when every connection is busy, decisions
    // that would wait for one wait in a batch instead.
    redis_options.max_batches_in_flight =
        batches_in_flight > 0 ? batches_in_flight : endpoint_options.connections;
    // A decision the server runs after the gateway gave up on it charges nothing.
    redis_options.decision_deadline = connect.command_timeout;
    endpoint =
        std::make_unique<redis::Endpoint>(*redis_url, endpoint_options, SteadyClock::instance());
    auto redis_backend = std::make_unique<gateway::RedisAdmission>(
        std::move(policy), *endpoint, redis_options, SteadyClock::instance(), log);
    if (Status err = redis_backend->sync_rules(); !err.ok()) {
      std::cerr << kProgram << ": cannot write the policy's rules to Redis: " << err.error()
                << "\n";
      return 1;
    }
    // Readable and writable configs are not enough: a user that cannot run the decision
    // script or write state keys would refuse (or, before, admit) every request.
    if (Status err = redis_backend->check_access(); !err.ok()) {
      std::cerr << kProgram << ": cannot decide with the policy's rules in Redis as user \""
                << (redis_url->user.empty() ? "default" : redis_url->user) << "\": " << err.error()
                << "\n";
      return 1;
    }
    backend = std::move(redis_backend);
  } else if (limiter_mode == "off") {
    backend = std::make_unique<gateway::UnlimitedAdmission>(std::move(policy));
  } else if (limiter_mode == "in-process") {
    auto in_process = gateway::InProcessAdmission::create(std::move(policy), limiter_options);
    if (!in_process) return usage_error(in_process.error());
    backend = std::move(*in_process);
  } else {
    return usage_error("--limiter " + limiter_mode + ": expected in-process, off or redis");
  }
  metrics.set_key_info(*backend->policy());
  gateway::GatewayOptions gateway_options;
  gateway_options.default_max_tokens = static_cast<std::int64_t>(default_max_tokens);
  gateway::ChatGateway chat(*backend, metrics, SteadyClock::instance(), gateway_options);
  server_options.log = [](const std::string& line) { log_line(line); };
  gateway_app::GatewayServer server(chat, server_options);
  auto port = server.bind();
  if (!port) return usage_error(port.error());
  std::cout << "listening on " << server_options.host << ":" << *port << std::endl;
  log_line("backend " + std::string(backend->name()) +
           (endpoint ? " " + endpoint->peer() : std::string()) + ", policy " +
           backend->policy()->source + ", " +
           (server_options.mock_upstream ? "mock upstream" : "upstream " + *args.get("upstream")));

  std::thread signal_thread([&] {
    for (;;) {
      int sig = 0;
      if (sigwait(&signals, &sig) != 0) continue;
      if (sig == SIGHUP) {
        if (!policy_path) {
          log_line("SIGHUP: no --policy file to reload (the embedded default stays)");
          continue;
        }
        auto p = load_policy_file(*policy_path);
        if (!p) {
          log_line("SIGHUP: policy not reloaded, the previous one stays: " + p.error());
          continue;
        }
        if (Status err = backend->set_policy(std::move(p).value(), SteadyClock::instance().now());
            !err.ok()) {
          log_line("SIGHUP: policy not reloaded: " + err.error());
          continue;
        }
        metrics.set_key_info(*backend->policy());
        server.note_policy_reload();
        log_line("SIGHUP: policy reloaded from " + *policy_path);
        continue;
      }
      log_line(sig == SIGINT ? "SIGINT: stopping" : "SIGTERM: stopping");
      server.stop();
      return;
    }
  });
  const bool ok = server.run();
  if (signal_thread.joinable()) {
    // run() also returns when the listener fails; wake the signal thread so it can finish.
    pthread_kill(signal_thread.native_handle(), SIGTERM);
    signal_thread.join();
  }
  return ok ? 0 : 1;
}
