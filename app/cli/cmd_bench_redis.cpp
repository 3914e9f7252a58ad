// limitscope-cli bench-redis: decisions per second, round-trip latency and server time per
// decision of the limiter's scripts, measured in one run beside the ceiling a script cannot
// beat (redis-benchmark -t incr, same clients and pipeline) and a plain reference script (a
// token bucket in a hash: HMGET, HMSET, PEXPIRE, the shape most gateways use). Without
// --redis it starts a private redis-server. Exit 0 when every phase ran without errors.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/cli/bench_pressure_variant.h"
#include "app/cli/bench_redis_cluster.h"
#include "app/cli/child_output.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "core/limiter/rate.h"
#include "core/redis/limiter_scripts.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "core/redis/script.h"
#include "core/redis/server_info.h"
#include "core/redis/state_format.h"
#include "process/local_server.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "bench-redis";

// The reference: what a typical gateway's token bucket script does per call.
const redis::Script kReference("reference_token_bucket", R"lua(
local cap = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local v = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(v[1]) or cap
local ts = tonumber(v[2]) or now
tokens = math.min(cap, tokens + math.max(0, now - ts) * per_ms)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HMSET', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((cap - tokens) / per_ms) + 1)
return allowed
)lua");

// The floor of a token-bucket decision on server time with live config: a function making the
// same calls as one (TIME, MGET of the config stamp and the state, the write of a 24-byte state:
// SET KEEPTTL where the key lives, else SET PX of a TTL one second long, as a decision near full
// writes; docs/redis-state.md) with the same keys and arguments, returning a record of the same
// size, and deciding nothing. What it costs, no exact decision can cost less on this server
// (issue 18).
constexpr const char* kFloorLua = R"lua(
local tm = redis.call('TIME')
local v = redis.call('MGET', KEYS[3], KEYS[4])
if v[2] then
  redis.call('SET', KEYS[4], '0123456789abcdef01234567', 'KEEPTTL')
else
  redis.call('SET', KEYS[4], '0123456789abcdef01234567', 'PX', 1002)
end
return '01234567890123456789012345678901234567890123'
)lua";

const redis::Script& floor_script() {
  static const redis::Script s = [] {
    auto lib = std::make_shared<redis::FunctionLibrary>();
    lib->name = "limitscope_bench_floor";
    lib->source = "#!lua name=limitscope_bench_floor\nlocal function floor(KEYS, ARGV)\n" +
                  std::string(kFloorLua) +
                  "\nend\nredis.register_function('limitscope_bench_floor', floor)\n";
    return redis::Script("bench_floor", kFloorLua, "limitscope_bench_floor", lib);
  }();
  return s;
}

/// One server's bench: what the cluster bench takes too, and the server.
struct Settings : ClusterBenchSettings {
  redis::RedisUrl url;
};

struct Phase {
  std::string name;
  long long decisions = 0;
  long long errors = 0;
  double seconds = 0;
  std::vector<double> round_trip_us;  // one per pipeline round trip
  redis::ServerInfo server;           // INFO difference over the phase
  std::vector<std::string> commands;  // the commands whose server time counts
  long long decisions_per_call = 1;

  double per_second() const { return seconds > 0 ? static_cast<double>(decisions) / seconds : 0; }
  double quantile_ms(double q) const {
    if (round_trip_us.empty()) return 0;
    std::vector<double> v = round_trip_us;
    const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k] / 1000.0;
  }
  double server_us_per_decision() const {
    redis::CommandStat sum;
    for (const auto& command : commands) {
      if (auto it = server.commands.find(command); it != server.commands.end()) {
        sum.calls += it->second.calls;
        sum.usec += it->second.usec;
      }
    }
    return sum.usec_per_call() / static_cast<double>(decisions_per_call);
  }
  double decisions_per_server_cpu_s() const {
    return server.cpu_seconds > 0 ? static_cast<double>(decisions) / server.cpu_seconds : 0;
  }
  nlohmann::json json() const {
    return {{"decisions", decisions},
            {"errors", errors},
            {"seconds", seconds},
            {"decisions_per_s", per_second()},
            {"round_trip_p50_ms", quantile_ms(0.5)},
            {"round_trip_p99_ms", quantile_ms(0.99)},
            {"server_us_per_decision", server_us_per_decision()},
            {"decisions_per_server_cpu_s", decisions_per_server_cpu_s()},
            {"decisions_per_call", decisions_per_call}};
  }
};

Expected<redis::ServerInfo> read_info(redis::Connection& c) {
  auto text = c.command({"INFO", "everything"});
  if (!text) return make_error(text.error().message);
  return redis::parse_server_info(text->str);
}

// One round trip: `pipeline` units of work for client `client`, iteration `i`; returns the
// number of decisions made and counts failed ones in `errors`.
using RoundTrip =
    std::function<long long(redis::Connection&, long long client, long long i, long long& errors)>;

// `mode`: how the phase's connections run the limiter's Lua (unknown: Functions where the
// server has them, as in production; scripts: EVALSHA, the fallback path).
Expected<Phase> run_phase(const Settings& s, redis::Connection& admin, std::string name,
                          std::vector<std::string> commands, long long per_call,
                          const RoundTrip& trip,
                          redis::ScriptMode mode = redis::ScriptMode::unknown) {
  Phase phase;
  phase.name = std::move(name);
  phase.commands = std::move(commands);
  phase.decisions_per_call = per_call;
  std::vector<redis::Connection> conns;
  for (long long c = 0; c < s.clients; ++c) {
    auto conn = redis::Connection::open(s.url, {std::chrono::seconds(2), std::chrono::seconds(5)});
    if (!conn) return make_error(conn.error().message);
    conn->set_script_mode(mode);
    conns.push_back(std::move(conn).value());
  }
  // The server's figures are the difference of INFO after and before: no CONFIG RESETSTAT,
  // which would wipe the statistics of a server other people run.
  auto before = read_info(admin);
  if (!before) return make_error(before.error());

  SteadyClock& clock = SteadyClock::instance();
  const Nanos start = clock.now();
  const Nanos stop = start + s.duration;
  std::atomic<long long> decisions{0}, errors{0};
  std::vector<std::vector<double>> latencies(static_cast<std::size_t>(s.clients));
  std::vector<std::thread> threads;
  for (long long c = 0; c < s.clients; ++c) {
    threads.emplace_back([&, c] {
      long long made = 0, failed = 0;
      auto& lat = latencies[static_cast<std::size_t>(c)];
      for (long long i = 0;; ++i) {
        const Nanos t0 = clock.now();
        if (t0 >= stop) break;
        made += trip(conns[static_cast<std::size_t>(c)], c, i, failed);
        lat.push_back(static_cast<double>((clock.now() - t0).count()) / 1000.0);
        if (!conns[static_cast<std::size_t>(c)].usable()) break;
      }
      decisions += made;
      errors += failed;
    });
  }
  for (auto& t : threads) t.join();
  phase.seconds = static_cast<double>((clock.now() - start).count()) / 1e9;
  auto after = read_info(admin);
  if (!after) return make_error(after.error());
  phase.server = redis::difference(*after, *before);
  phase.decisions = decisions;
  phase.errors = errors;
  for (auto& l : latencies)
    phase.round_trip_us.insert(phase.round_trip_us.end(), l.begin(), l.end());
  return phase;
}

std::string key_for(const Settings& s, long long client, long long i, long long j) {
  return "k" + std::to_string((client * 7919 + i * 31 + j) % s.keys);
}

Expected<bool> configure(redis::Connection& c, const redis::KeySchema& schema,
                         const std::string& rule, Algorithm algorithm, double refill_per_s = 1000) {
  // 100 tokens refilled at 1000/s per key: a realistic mix of admits and refusals (at 10/s
  // the keys are drained: below the pressure index's threshold). Written through the audited
  // compare-and-set path, like any other config change.
  LimitParams p;
  p.algorithm = algorithm;
  p.capacity = 100;
  p.refill = Rate{refill_per_s, std::chrono::seconds(1)};
  redis::ChangeInfo change;
  change.by = "limitscope-cli bench-redis";
  change.reason = "benchmark rule";
  auto current = redis::get_config(c, schema, rule);
  if (!current) return make_error(current.error().message);
  if (*current) change.expect_version = (*current)->version;
  auto r = redis::set_config(c, schema, rule, redis::single_limit(p), change);
  if (!r) return make_error(r.error().message);
  // Its decisions write the newest state format (3: token-bucket and GCRA states keep their
  // TTL), as a rule's do once its fleet is upgraded (docs/redis-state.md): no decider of an
  // older version touches the bench's keys.
  auto f = redis::set_state_format(c, schema, rule, 3);
  if (!f) return make_error(f.error().message);
  return true;
}

// The successful replies of a pipeline of `sent` calls; the failed ones (all of them when the
// round trip failed) are added to `errors`.
long long successes(const redis::Result<std::vector<redis::Value>>& r, long long sent,
                    long long& errors) {
  if (!r) {
    errors += sent;
    return 0;
  }
  long long ok = 0;
  for (const auto& v : *r) v.is_error() ? ++errors : ++ok;
  return ok;
}

// Pipelined INCR with the same clients and pipeline, by this client: the ceiling where
// redis-benchmark cannot be used (it takes a password only on its command line).
RoundTrip incr_trip(const Settings& s) {
  return [&s](redis::Connection& c, long long client, long long, long long& errors) -> long long {
    const std::vector<std::string> incr{"INCR", "bench-incr:" + std::to_string(client)};
    return successes(c.pipeline(std::vector<std::vector<std::string>>(
                         static_cast<std::size_t>(s.pipeline), incr)),
                     s.pipeline, errors);
  };
}

// `repeat`: how many decisions in a row share a key (1: every decision its own key; 4: a batch
// of 16 decides 4 keys 4 times each, as a gateway coalescing hot keys sends).
RoundTrip decide_trip(const Settings& s, const redis::RedisLimiter& limiter,
                      const std::string& rule, long long per_call, long long repeat = 1) {
  return [&s, &limiter, rule, per_call, repeat](redis::Connection& c, long long client, long long i,
                                                long long& errors) -> long long {
    std::vector<redis::DecideRequest> requests;
    const long long n = s.pipeline * per_call;
    requests.reserve(static_cast<std::size_t>(n));
    for (long long j = 0; j < n; ++j)
      requests.push_back({key_for(s, client, i, j / repeat), {1.0}, false});
    auto r = per_call == 1
                 ? limiter.decide_pipelined(c, rule, requests)
                 : limiter.decide_batch(c, rule, requests, static_cast<std::size_t>(per_call));
    if (!r) {
      errors += n;
      return 0;
    }
    long long ok = 0;
    for (const auto& d : *r) d ? ++ok : ++errors;
    return ok;
  };
}

// One decision per call of `script` (decide.lua or a variant of it), pipelined; replies only
// counted, so two variants compare on the same client work.
RoundTrip script_trip(const Settings& s, const redis::RedisLimiter& limiter,
                      const std::string& rule, const redis::Script& script) {
  return [&s, &limiter, &script, rule](redis::Connection& c, long long client, long long i,
                                       long long& errors) -> long long {
    std::vector<redis::DecideRequest> requests;
    for (long long j = 0; j < s.pipeline; ++j)
      requests.push_back({key_for(s, client, i, j), {1.0}, false});
    auto calls = limiter.batch_calls(rule, requests, 1);
    if (!calls) {
      errors += s.pipeline;
      return 0;
    }
    return successes(redis::eval_pipeline(c, script, *calls), s.pipeline, errors);
  };
}

RoundTrip reference_trip(const Settings& s) {
  return [&s](redis::Connection& c, long long client, long long i, long long& errors) -> long long {
    std::vector<redis::ScriptCall> calls;
    const auto now_ms = std::to_string(SteadyClock::instance().wall().count() / 1'000'000);
    for (long long j = 0; j < s.pipeline; ++j) {
      calls.push_back({{"bench-ref:" + key_for(s, client, i, j)}, {"100", "1", now_ms}});
    }
    return successes(redis::eval_pipeline(c, kReference, calls), s.pipeline, errors);
  };
}

// The floor function, with a single decision's keys and arguments (rule `rule`).
RoundTrip floor_trip(const Settings& s, const std::string& rule) {
  return [&s, rule](redis::Connection& c, long long client, long long i,
                    long long& errors) -> long long {
    std::vector<redis::ScriptCall> calls;
    for (long long j = 0; j < s.pipeline; ++j) {
      calls.push_back(
          {{s.schema.config_key(rule), s.schema.decisions_key(rule),
            s.schema.config_stamp_key(rule), s.schema.state_key(rule, key_for(s, client, i, j))},
           {"", "1"}});
    }
    return successes(redis::eval_pipeline(c, floor_script(), calls), s.pipeline, errors);
  };
}

// redis-benchmark -t incr with the same clients and pipeline: requests/s, or an error.
Expected<double> incr_ceiling(const Settings& s) {
  if (!s.url.unix_path.empty()) return make_error("the INCR ceiling needs a TCP server");
  const long long n = std::max<long long>(200000, 400000 * s.duration.count() / 1'000'000'000);
  // An argv vector, no shell: nothing from the URL is ever parsed as shell syntax.
  std::vector<std::string> argv{"redis-benchmark",
                                "-h",
                                s.url.host,
                                "-p",
                                std::to_string(s.url.port),
                                "-c",
                                std::to_string(s.clients),
                                "-P",
                                std::to_string(s.pipeline),
                                "-n",
                                std::to_string(n),
                                "-t",
                                "incr",
                                "-q"};
  if (!s.url.user.empty()) argv.insert(argv.end(), {"--user", s.url.user});
  auto ran = run_and_capture(argv, {});
  if (!ran) return make_error(ran.error());
  const int rc = ran->exit_code;
  const std::string& out = ran->output;
  // "INCR: 1750000.00 requests per second, p50=0.375 msec" (the last \r-separated update).
  const auto at = out.rfind("INCR: ");
  if (rc != 0 || at == std::string::npos) {
    return make_error("redis-benchmark failed (is redis-tools installed?): " + out.substr(0, 200));
  }
  return std::strtod(out.c_str() + at + 6, nullptr);
}

}  // namespace

int run_bench_redis(const CommandArgs& argv) {
  auto specs = redis_option_specs();
  specs.push_back({"keys", "K", "distinct keys decided on (default 1000)"});
  specs.push_back({"clients", "C", "client connections, one thread each (default 50)"});
  specs.push_back({"pipeline", "P", "script calls per round trip (default 16)"});
  specs.push_back({"per-call", "N", "decisions per script call in the batch phase (default 16)"});
  specs.push_back({"duration", "D", "length of each phase (default 10s)"});
  specs.push_back(
      {"cluster", "", "instead: a private 3-master cluster beside a private single server"});
  specs.push_back({"json", "", "print the figures as JSON"});
  specs.push_back({"reference-first", "",
                   "run the reference script's phase first (alternate runs with and without it: "
                   "a phase's place in the run changes its cost)"});
  const Expected<Args> command_line =
      Args::parse(kName, "decisions/s and server time of the limiter scripts, beside their ceiling",
                  specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  auto options = parse_redis_options(args, /*require_url=*/false);
  if (!options) return usage_error(kName, options.error());
  Settings s;
  s.schema = options->schema;
  for (auto [name, target, max] :
       {std::tuple{"keys", &s.keys, 100'000'000LL}, std::tuple{"clients", &s.clients, 1000LL},
        std::tuple{"pipeline", &s.pipeline, 10000LL},
        std::tuple{"per-call", &s.per_call, 1000LL}}) {
    auto v = integer_option(args, name, *target, 1, max);
    if (!v) return usage_error(kName, v.error());
    *target = *v;
  }
  if (auto d = args.get("duration")) {
    auto parsed = parse_duration(*d);
    if (!parsed || *parsed < std::chrono::milliseconds(100)) {
      return usage_error(kName, "--duration '" + *d + "': expected a duration of at least 100ms");
    }
    s.duration = *parsed;
  }

  if (args.has("cluster")) {
    if (args.get("redis"))
      return usage_error(kName, "--cluster starts its own servers; drop --redis");
    ClusterBenchSettings cs = s;  // the cluster starts its own servers: no URL
    cs.json = args.has("json");
    return bench_redis_cluster(cs);
  }

  std::unique_ptr<redis::LocalRedisServer> own;
  if (args.get("redis")) {
    s.url = options->url;
  } else {
    redis::LocalRedisServer::Options o;
    o.dir = "/tmp/limitscope-bench-redis-" + std::to_string(getpid());
    auto started = redis::LocalRedisServer::start(o);
    if (!started) return usage_error(kName, started.error());
    own = std::move(started).value();
    s.url.port = own->port();
  }
  auto admin = redis::Connection::open(s.url, {std::chrono::seconds(2), std::chrono::seconds(10)});
  if (!admin) return usage_error(kName, admin.error().message);

  const redis::RedisLimiter limiter(s.schema);
  const std::string tb_rule = options->rule.empty() ? "bench-tb" : options->rule;
  const std::string gcra_rule = "bench-gcra";
  if (options->rule.empty()) {
    if (auto r = configure(*admin, s.schema, tb_rule, Algorithm::token_bucket); !r)
      return usage_error(kName, r.error());
  }
  if (auto r = configure(*admin, s.schema, gcra_rule, Algorithm::gcra); !r)
    return usage_error(kName, r.error());
  const std::string drained_rule = "bench-tb-drained";
  if (auto r = configure(*admin, s.schema, drained_rule, Algorithm::token_bucket, 10); !r)
    return usage_error(kName, r.error());
  // Before each of its phases its keys are emptied (each takes its whole capacity, as far as
  // it has it), so both phases run on keys under pressure from their first decision.
  auto empty_drained = [&]() -> Status {
    std::vector<redis::DecideRequest> burst;
    for (long long k = 0; k < s.keys; ++k) {
      for (double cost : {64.0, 32.0, 16.0, 8.0, 4.0, 2.0, 1.0})
        burst.push_back({"k" + std::to_string(k), {cost}, false});
    }
    auto r = limiter.decide_batch(*admin, drained_rule, burst, 7);
    if (!r) return make_error(r.error().message);
    return {};
  };

  // The floor phase reads a stamp as a decision does.
  if (auto r = admin->command({"SET", s.schema.config_stamp_key("bench-floor"), "1 1"}); !r)
    return usage_error(kName, r.error().message);

  std::vector<Phase> phases;
  struct Plan {
    std::string name;
    long long per_call;
    RoundTrip trip;
    redis::ScriptMode mode;
    std::function<Status()> before = {};  ///< runs before the phase; a failure stops the run
  };
  // The limiter's phases count FCALL (the function library) and EVALSHA (where Functions are
  // missing); the *_evalsha phases force the fallback path on the same server.
  const std::vector<std::string> limiter_commands{"fcall", "evalsha"};
  const auto functions = redis::ScriptMode::unknown;
  const auto scripts = redis::ScriptMode::scripts;
  std::vector<Plan> plans{
      {"token_bucket", 1, decide_trip(s, limiter, tb_rule, 1), functions},
      {"gcra", 1, decide_trip(s, limiter, gcra_rule, 1), functions},
      {"gcra_batch", s.per_call, decide_trip(s, limiter, gcra_rule, s.per_call), functions},
      {"reference_script", 1, reference_trip(s), scripts},
      {"floor_calls", 1, floor_trip(s, "bench-floor"), functions},
      {"token_bucket_evalsha", 1, decide_trip(s, limiter, tb_rule, 1), scripts},
      {"gcra_batch_evalsha", s.per_call, decide_trip(s, limiter, gcra_rule, s.per_call), scripts},
      // Batches that repeat keys (4 keys 4 times in a call of 16): one write per key and call.
      {"gcra_batch_hot", s.per_call, decide_trip(s, limiter, gcra_rule, s.per_call, 4), functions},
      // A coalescing gateway's token-bucket batches (its rules' usual algorithm).
      {"token_bucket_batch", s.per_call, decide_trip(s, limiter, tb_rule, s.per_call), functions},
      // The pressure index's cost (issue 22): the same traffic with and without it, on keys
      // above its threshold (token_bucket) and on drained keys (10/s refill, under pressure).
      {"token_bucket_no_index", 1,
       script_trip(s, limiter, tb_rule, decide_without_pressure_index()), functions},
      {"drained", 1, script_trip(s, limiter, drained_rule, redis::decide_script()), functions,
       empty_drained},
      {"drained_no_index", 1,
       script_trip(s, limiter, drained_rule, decide_without_pressure_index()), functions,
       empty_drained},
  };
  if (args.has("reference-first")) {
    std::stable_partition(plans.begin(), plans.end(),
                          [](const Plan& p) { return p.name == "reference_script"; });
  }
  for (const auto& plan : plans) {
    std::cerr << "bench-redis: " << plan.name << " ...\n";
    if (plan.before) {
      if (Status ready = plan.before(); !ready.ok())
        return usage_error(kName, plan.name + ": " + ready.error());
    }
    auto phase = run_phase(
        s, *admin, plan.name,
        plan.name == "reference_script" ? std::vector<std::string>{"evalsha"} : limiter_commands,
        plan.per_call, plan.trip, plan.mode);
    if (!phase) return usage_error(kName, plan.name + ": " + phase.error());
    phases.push_back(std::move(phase).value());
  }
  // redis-benchmark 7.0 takes a password only as -a on its command line, where `ps` shows it:
  // with a password the ceiling is measured by this client's own pipelined INCR instead.
  const bool own_incr = !s.url.password.empty();
  std::cerr << "bench-redis: " << (own_incr ? "pipelined INCR" : "redis-benchmark -t incr")
            << " ...\n";
  const auto incr_before = read_info(*admin);
  Expected<double> incr = make_error("not measured");
  if (own_incr) {
    auto phase = run_phase(s, *admin, "incr", {"incr"}, 1, incr_trip(s));
    if (phase) {
      incr = static_cast<double>(phase->decisions) / phase->seconds;
    } else {
      incr = make_error(phase.error());
    }
  } else {
    incr = incr_ceiling(s);
  }
  double incr_usec = 0;
  if (auto info = read_info(*admin); info && incr_before) {
    const auto diff = redis::difference(*info, *incr_before);
    if (diff.commands.count("incr")) incr_usec = diff.commands.at("incr").usec_per_call();
  }

  auto named = [&](std::string_view n) -> const Phase& {
    return *std::find_if(phases.begin(), phases.end(), [&](const Phase& p) { return p.name == n; });
  };
  const Phase& tb = named("token_bucket");
  const Phase& gcra = named("gcra");
  const Phase& batch = named("gcra_batch");
  const Phase& ref = named("reference_script");
  const Phase& floor_phase = named("floor_calls");
  nlohmann::json j;
  j["server"] = s.url.redacted();
  j["clients"] = s.clients;
  j["pipeline"] = s.pipeline;
  j["keys"] = s.keys;
  j["duration_s"] = static_cast<double>(s.duration.count()) / 1e9;
  j["order"] = nlohmann::json::array();
  for (const auto& p : phases) j["order"].push_back(p.name);
  for (const auto& p : phases) j["phases"][p.name] = p.json();
  if (incr) {
    j["incr_ceiling"] = {{"ops_per_s", *incr},
                         {"server_us_per_call", incr_usec},
                         {"tool", own_incr ? "pipelined INCR" : "redis-benchmark"}};
  } else {
    j["incr_ceiling"] = {{"error", incr.error()}};
  }
  const double batch_vs_ref = ref.per_second() > 0 ? batch.per_second() / ref.per_second() : 0;
  // Server time of a decision on server time with live config against the naive script on a
  // client clock: must be <= 1 (issue 18).
  const double tb_vs_ref_us = ref.server_us_per_decision() > 0
                                  ? tb.server_us_per_decision() / ref.server_us_per_decision()
                                  : 0;
  j["ratios"] = {{"batch_vs_reference_decisions_per_s", batch_vs_ref},
                 {"token_bucket_vs_reference_server_us", tb_vs_ref_us},
                 {"floor_vs_reference_server_us",
                  ref.server_us_per_decision() > 0
                      ? floor_phase.server_us_per_decision() / ref.server_us_per_decision()
                      : 0},
                 {"token_bucket_vs_floor_server_us",
                  floor_phase.server_us_per_decision() > 0
                      ? tb.server_us_per_decision() / floor_phase.server_us_per_decision()
                      : 0},
                 {"token_bucket_vs_reference_decisions_per_s",
                  ref.per_second() > 0 ? tb.per_second() / ref.per_second() : 0},
                 {"incr_vs_token_bucket_ops_per_s",
                  incr && tb.per_second() > 0 ? *incr / tb.per_second() : 0}};
  j["targets"] = {
      {"token_bucket_server_us_le_5", tb.server_us_per_decision() <= 5},
      {"gcra_server_us_le_5", gcra.server_us_per_decision() <= 5},
      {"batch_server_us_le_3", batch.server_us_per_decision() <= 3},
      {"batch_ge_2x_reference", batch_vs_ref >= 2},
      {"token_bucket_vs_reference_server_us_le_1", tb_vs_ref_us > 0 && tb_vs_ref_us <= 1},
  };
  // The pressure index (issue 22): server time and CPU per decision with it over without it,
  // on keys above its threshold and on drained keys, and its writes per decision.
  auto with_over_without = [&](const Phase& with, const Phase& without) {
    const double cpu_with = with.decisions_per_server_cpu_s(),
                 cpu_without = without.decisions_per_server_cpu_s();
    return nlohmann::json{
        {"server_us", without.server_us_per_decision() > 0
                          ? with.server_us_per_decision() / without.server_us_per_decision()
                          : 0},
        {"server_cpu", cpu_with > 0 ? cpu_without / cpu_with : 0}};
  };
  const Phase& drained = named("drained");
  long long index_writes = 0;
  for (const char* c : {"zadd", "zremrangebyscore", "zremrangebyrank"}) {
    if (auto it = drained.server.commands.find(c); it != drained.server.commands.end()) {
      index_writes += static_cast<long long>(it->second.calls);
    }
  }
  j["pressure_index"] = {
      {"ordinary_with_over_without", with_over_without(tb, named("token_bucket_no_index"))},
      {"drained_with_over_without", with_over_without(drained, named("drained_no_index"))},
      {"drained_index_writes_per_decision",
       drained.decisions > 0
           ? static_cast<double>(index_writes) / static_cast<double>(drained.decisions)
           : 0}};
  long long errors = 0;
  for (const auto& p : phases) errors += p.errors;
  if (args.has("json")) {
    std::cout << json_text(j, 2) << "\n";
  } else {
    std::printf("%-18s %14s %12s %12s %16s\n", "phase", "decisions/s", "p50 ms", "p99 ms",
                "server us/dec");
    for (const auto& p : phases) {
      std::printf("%-18s %14.0f %12.3f %12.3f %16.2f\n", p.name.c_str(), p.per_second(),
                  p.quantile_ms(0.5), p.quantile_ms(0.99), p.server_us_per_decision());
    }
    if (incr)
      std::printf("%-18s %14.0f %12s %12s %16.2f\n", "incr (ceiling)", *incr, "", "", incr_usec);
    std::printf("batch / reference decisions/s: %.2fx (target >= 2x)\n", batch_vs_ref);
    std::printf("token bucket / reference server us: %.2f (target <= 1)\n", tb_vs_ref_us);
    const auto& pi = j["pressure_index"];
    std::printf(
        "pressure index, with / without: server us %.3f (ordinary keys), %.3f (drained keys); "
        "%.4f index writes per drained decision\n",
        pi["ordinary_with_over_without"]["server_us"].get<double>(),
        pi["drained_with_over_without"]["server_us"].get<double>(),
        pi["drained_index_writes_per_decision"].get<double>());
    std::printf("floor (the calls alone) / reference server us: %.2f\n",
                ref.server_us_per_decision() > 0
                    ? floor_phase.server_us_per_decision() / ref.server_us_per_decision()
                    : 0);
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace limitscope::cli
