// limitscope-cli loadgen: plays a traffic scenario against a gateway, open loop: each request
// leaves at its planned time (core/gateway/load_plan.h) whether or not earlier ones returned,
// and latency is measured from that planned time. Well-behaved clients honour Retry-After
// with backoff and jitter; runaway ones do not. Prints sent, status counts, latency
// p50/p99/max and per key/tier/model counts (docs/cli.md, "loadgen"). With --trace it plays a
// recorded trace instead, each event at its own time: what the tuner predicted for a setting
// can then be checked against the gateway running that setting.

#include <httplib.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/tuner_options.h"
#include "app/options/args.h"
#include "core/gateway/load_plan.h"
#include "core/gateway/load_report.h"
#include "core/limiter/rate.h"
#include "core/sim/scenario.h"

namespace limitscope::cli {
namespace {

using gateway::AttemptResult;
using gateway::LoadPlan;
using gateway::LoadReport;
using gateway::PlannedRequest;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr std::string_view kCommand = "loadgen";
constexpr Nanos kMaxDuration{std::chrono::hours(24)};

std::string request_body(const std::string& model, std::int64_t llm_tokens) {
  // Half the tokens as prompt (4 characters per token, as the gateway estimates), the rest
  // as max_tokens: the gateway's estimate then equals the planned tokens.
  const std::int64_t prompt = llm_tokens / 2;
  const std::int64_t completion = std::max<std::int64_t>(1, llm_tokens - prompt);
  nlohmann::json body = {
      {"model", model},
      {"max_tokens", completion},
      {"messages", nlohmann::json::array(
                       {{{"role", "user"},
                         {"content", std::string(static_cast<std::size_t>(prompt) * 4, 'x')}}})}};
  return json_text(body);
}

std::optional<Nanos> parse_retry_after(const std::string& v) {
  std::int64_t s = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), s);
  if (ec != std::errc{} || ptr != v.data() + v.size() || s < 0)
    return std::nullopt;  // HTTP-dates not read
  return Nanos{std::chrono::seconds(s)};
}

class LoadRun {
 public:
  LoadRun(LoadPlan& plan, LoadReport& report, std::string target, std::size_t workers,
          Nanos timeout)
      : plan_(plan), report_(report), target_(std::move(target)), timeout_(timeout) {
    start_ = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }

  void dispatch() {
    std::unique_lock lock(mu_);
    for (;;) {
      const Nanos now = since_start();
      lock.unlock();
      while (auto r = plan_.pop_due(now)) {
        lock.lock();
        jobs_.push_back(*r);
        ++in_flight_;
        lock.unlock();
        work_cv_.notify_one();
      }
      lock.lock();
      const auto next = plan_.next_time();
      if (!next) {
        if (in_flight_ == 0) break;
        // A worker may still plan a retry: wait for it to finish.
        dispatch_cv_.wait(lock);
        continue;
      }
      dispatch_cv_.wait_until(lock, start_ + *next, [&] { return wake_; });
      wake_ = false;
    }
    stop_ = true;
    lock.unlock();
    work_cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  Nanos since_start() const {
    return std::chrono::duration_cast<Nanos>(std::chrono::steady_clock::now() - start_);
  }

  void work() {
    httplib::Client client(target_);
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);  // headers and body go out in two writes: no Nagle delay
    client.set_connection_timeout(
        std::chrono::duration_cast<std::chrono::seconds>(timeout_).count());
    client.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(timeout_).count());
    client.set_write_timeout(std::chrono::duration_cast<std::chrono::seconds>(timeout_).count());
    for (;;) {
      PlannedRequest r;
      {
        std::unique_lock lock(mu_);
        work_cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        r = jobs_.front();
        jobs_.pop_front();
      }
      const ClientSpec& spec = plan_.clients()[r.client];
      const std::string body = request_body(spec.models[r.share].model, r.llm_tokens);
      const httplib::Headers headers = {{"Authorization", "Bearer " + spec.api_key}};
      AttemptResult a;
      a.send_lag = since_start() - r.at;
      auto res = client.Post("/v1/chat/completions", headers, body, "application/json");
      const Nanos done = since_start();
      a.latency = done - r.at;
      if (res) {
        a.status = res->status;
        if (res->status == 429) {
          std::optional<Nanos> retry_after;
          if (res->has_header("Retry-After"))
            retry_after = parse_retry_after(res->get_header_value("Retry-After"));
          a.after_429 = plan_.on_rate_limited(r, done, retry_after);
        }
      }
      report_.record(r, a);
      {
        std::lock_guard lock(mu_);
        --in_flight_;
        wake_ = true;  // a retry may now be due earlier than what the dispatcher waits for
      }
      dispatch_cv_.notify_one();
    }
  }

  LoadPlan& plan_;
  LoadReport& report_;
  std::string target_;
  Nanos timeout_;
  SteadyTime start_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable dispatch_cv_;
  std::deque<PlannedRequest> jobs_;
  std::size_t in_flight_ = 0;  // queued or being sent
  bool wake_ = false;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

std::string quoted_json(const std::string& s) {
  return json_text(nlohmann::json(s));
}

// The table form of the JSON document (same numbers).
void print_summary(std::ostream& out, const nlohmann::json& j) {
  char line[256];
  out << "loadgen " << j.at("scenario").get<std::string>() << " -> "
      << j.at("target").get<std::string>() << " for " << j.at("duration_s").get<double>()
      << " s (seed " << j.at("seed").get<std::uint64_t>() << ", rate scale "
      << j.at("rate_scale").get<double>() << ")\n";
  out << "sent " << j.at("sent") << " (first tries " << j.at("first_tries") << ", retries "
      << j.at("retries") << ", " << j.at("retries_succeeded") << " succeeded; gave up "
      << j.at("gave_up") << ", retries past the end " << j.at("retries_past_end") << ")\n";
  out << "status:";
  for (const auto& [code, n] : j.at("status").items()) out << " " << code << " x" << n << ",";
  out << " no answer x" << j.at("transport_errors") << "\n";
  const auto& lat = j.at("latency_ms");
  std::snprintf(line, sizeof line,
                "latency ms: p50 %.3f  p99 %.3f  max %.3f  (max send lag %.3f)\n",
                lat.at("p50").get<double>(), lat.at("p99").get<double>(),
                lat.at("max").get<double>(), j.at("max_send_lag_ms").get<double>());
  out << line;
  for (const char* group : {"by_tier", "by_model", "by_key"}) {
    out << "\n" << std::string(group + 3) << "\n";
    for (const auto& [name, c] : j.at(group).items()) {
      std::snprintf(
          line, sizeof line,
          "  %-24s sent %8llu  ok %8llu  429 %8llu  other %6llu  no answer %6llu\n", name.c_str(),
          c.at("sent").get<unsigned long long>(), c.at("ok").get<unsigned long long>(),
          c.at("rate_limited").get<unsigned long long>(), c.at("other").get<unsigned long long>(),
          c.at("errors").get<unsigned long long>());
      out << line;
    }
  }
}

int play(const Args& args, LoadPlan& plan, const std::string& target, std::size_t concurrency,
         Nanos timeout, const std::map<std::string, std::string>& header);
int run_trace(const Args& args, const std::string& target, std::size_t concurrency, Nanos timeout);
std::optional<std::size_t> parse_concurrency(const Args& args);

}  // namespace

int run_loadgen(const CommandArgs& argv) {
  const Expected<Args> command_line = Args::parse(
      kCommand,
      "Play a traffic scenario against a gateway, open loop; report statuses and latency.",
      {{"target", "URL", "gateway base URL, e.g. http://127.0.0.1:8080 (required)"},
       {"scenario", "NAME",
        "steady, burst, runaway, diurnal, misconfigured-tenant, mixed (required without --trace)"},
       {"duration", "DURATION", "length of the run, e.g. 10s (required with --scenario)"},
       {"trace", "FILE",
        "instead of --scenario: send every event of this trace (JSON lines or CSV) at its time"},
       {"skip-bad-lines", "", "with --trace: play the good lines of a trace that has bad ones"},
       {"model", "NAME", "with --trace: the model of events that name none"},
       {"speed", "X", "with --trace: play X times faster (default 1)"},
       {"keys", "N", "API keys per scenario client, its rate split between them (default 1)"},
       {"rate", "R", "scale every rate so the clients' base rates sum to R requests/s"},
       {"seed", "S", "random seed (default 1)"},
       {"concurrency", "N", "sender threads, each with one keep-alive connection (default 32)"},
       {"timeout", "DURATION", "connect/read timeout per request (default 10s)"},
       {"json", "", "print the JSON document (docs/cli.md) instead of a summary"}},
      argv);
  if (const auto exit = early_exit(command_line, kCommand)) return *exit;
  const Args& args = *command_line;
  const bool from_trace = args.has("trace");
  if (from_trace) {
    for (const char* other : {"scenario", "duration", "keys", "rate", "seed"}) {
      if (args.has(other))
        return usage_error(kCommand, std::string("--") + other + " cannot be used with --trace");
    }
  } else {
    for (const char* only : {"skip-bad-lines", "model", "speed"}) {
      if (args.has(only)) return usage_error(kCommand, std::string("--") + only + " needs --trace");
    }
  }
  for (const char* required : {"target", "scenario", "duration"}) {
    if (from_trace && std::string_view(required) != "target") continue;
    if (!args.has(required))
      return usage_error(kCommand, std::string("--") + required + " is required" +
                                       (from_trace ? "" : " (or --trace FILE)"));
  }
  const std::string target = *args.get("target");
  if (target.rfind("http://", 0) != 0 && target.rfind("https://", 0) != 0) {
    return usage_error(kCommand, "--target " + target + ": expected http://HOST:PORT");
  }
  Nanos timeout{std::chrono::seconds(10)};
  if (auto t = args.get("timeout")) {
    auto d = parse_duration(*t);
    if (!d || *d < std::chrono::seconds(1))
      return usage_error(kCommand, "--timeout " + *t + ": expected a duration >= 1s");
    timeout = *d;
  }
  const auto concurrency = parse_concurrency(args);
  if (!concurrency)
    return usage_error(kCommand, "--concurrency " + *args.get("concurrency") +
                                     ": expected an integer in [1, 4096]");
  if (from_trace) return run_trace(args, target, *concurrency, timeout);
  gateway::LoadPlanOptions options;
  auto duration = parse_duration(*args.get("duration"));
  if (!duration)
    return usage_error(kCommand, "--duration " + *args.get("duration") + ": " + duration.error());
  if (*duration > kMaxDuration)
    return usage_error(kCommand, "--duration " + *args.get("duration") + ": at most 24h");
  options.duration = *duration;
  auto integer = [&](const char* name, std::uint64_t min, std::uint64_t max,
                     std::uint64_t fallback) -> std::optional<std::uint64_t> {
    auto v = args.get(name);
    if (!v) return fallback;
    std::uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc{} || ptr != v->data() + v->size() || n < min || n > max)
      return std::nullopt;
    return n;
  };
  const auto keys = integer("keys", 1, 100'000, 1);
  if (!keys)
    return usage_error(kCommand,
                       "--keys " + *args.get("keys") + ": expected an integer in [1, 100000]");
  const auto seed = integer("seed", 0, UINT64_MAX, 1);
  if (!seed)
    return usage_error(kCommand,
                       "--seed " + *args.get("seed") + ": expected a non-negative integer");
  options.keys_per_client = *keys;
  options.seed = *seed;
  if (auto r = args.get("rate")) {
    double rate = 0;
    auto [ptr, ec] = std::from_chars(r->data(), r->data() + r->size(), rate);
    if (ec != std::errc{} || ptr != r->data() + r->size() || !(rate > 0) || rate > 1e6) {
      return usage_error(kCommand, "--rate " + *r + ": expected requests/s in (0, 1000000]");
    }
    options.total_rate = rate;
  }
  auto scenario = make_scenario(*args.get("scenario"), options.duration);
  if (!scenario) return usage_error(kCommand, "--scenario: " + scenario.error());
  auto plan = LoadPlan::create(*scenario, options);
  if (!plan) return usage_error(kCommand, plan.error());

  char scale[32];
  std::snprintf(scale, sizeof scale, "%.6g", (*plan)->rate_scale());
  return play(args, **plan, target, *concurrency, timeout,
              {{"target", quoted_json(target)},
               {"scenario", quoted_json(scenario->name)},
               {"duration_s", std::to_string(static_cast<double>(options.duration.count()) / 1e9)},
               {"seed", std::to_string(options.seed)},
               {"keys_per_client", std::to_string(options.keys_per_client)},
               {"rate_scale", scale}});
}

namespace {

int play(const Args& args, LoadPlan& plan, const std::string& target, std::size_t concurrency,
         Nanos timeout, const std::map<std::string, std::string>& header) {
  LoadReport report(plan);
  {
    LoadRun run(plan, report, target, concurrency, timeout);
    run.dispatch();
  }
  const std::string doc = report.json(header, /*pretty=*/false);
  const nlohmann::json j = nlohmann::json::parse(doc);
  if (args.has("json")) {
    std::cout << doc;
  } else {
    print_summary(std::cout, j);
  }
  if (report.sent() > 0 && j.at("transport_errors") == report.sent()) {
    std::cerr << "limitscope-cli loadgen: --target " << target
              << ": no request got an HTTP answer\n";
    return 1;
  }
  return 0;
}

int run_trace(const Args& args, const std::string& target, std::size_t concurrency, Nanos timeout) {
  auto trace = load_trace_option(args, nullptr);
  if (!trace) return usage_error(kCommand, trace.error());
  gateway::TracePlanOptions options;
  options.default_model = args.get("model").value_or("");
  if (auto sp = args.get("speed")) {
    double speed = 0;
    auto [ptr, ec] = std::from_chars(sp->data(), sp->data() + sp->size(), speed);
    if (ec != std::errc{} || ptr != sp->data() + sp->size() || !(speed > 0) || speed > 1e6)
      return usage_error(kCommand, "--speed " + *sp + ": expected a number in (0, 1000000]");
    options.speed = speed;
  }
  auto plan = LoadPlan::from_trace(*trace, options);
  if (!plan) return usage_error(kCommand, "--trace " + *args.get("trace") + ": " + plan.error());
  char speed[32];
  std::snprintf(speed, sizeof speed, "%.6g", options.speed);
  const double duration_s = trace->duration_s() / options.speed;
  return play(args, **plan, target, concurrency, timeout,
              {{"target", quoted_json(target)},
               {"scenario", quoted_json("trace")},
               {"trace", quoted_json(*args.get("trace"))},
               {"speed", speed},
               {"duration_s", std::to_string(duration_s)},
               {"seed", "0"},
               {"keys_per_client", "1"},
               {"rate_scale", speed}});
}

std::optional<std::size_t> parse_concurrency(const Args& args) {
  auto v = args.get("concurrency");
  if (!v) return 32;
  std::size_t n = 0;
  auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc{} || ptr != v->data() + v->size() || n < 1 || n > 4096) return std::nullopt;
  return n;
}

}  // namespace

}  // namespace limitscope::cli
