#include "app/cli/bench_probe_dashboard.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>

#include "core/redis/server_info.h"
#include "core/sources/live_source_factory.h"
#include "core/sources/redis_live_source.h"

namespace limitscope::cli {

namespace {

constexpr auto kTick = std::chrono::milliseconds(100);  // ui/source_worker.cpp's tick

double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

Expected<double> server_cpu_s(redis::Connection& c) {
  auto text = c.command({"INFO", "cpu"});
  if (!text) return make_error(text.error().message);
  auto info = redis::parse_server_info(text->str);
  if (!info) return make_error(info.error());
  return info->cpu_seconds;
}

double ms_between(Nanos a, Nanos b) {
  return static_cast<double>((b - a).count()) / 1e6;
}

}  // namespace

Expected<DashboardRunResult> run_dashboard(redis::Connection& admin, const DashboardRunOptions& o) {
  SteadyClock& clock = SteadyClock::instance();
  CancelToken never;
  LiveSpec spec;
  spec.redis_url = o.url.empty() ? "redis://127.0.0.1:" + std::to_string(o.port) : o.url;
  spec.profiles_file = o.profiles_file;
  spec.redis_scan_match = o.match;
  spec.redis_pressure_index = o.pressure_index;
  auto opened = open_live_source(spec, clock);
  if (!opened) return make_error(opened.error());
  LiveSource& source = **opened;
  auto* redis_source = dynamic_cast<RedisLiveSource*>(&source);
  if (redis_source == nullptr) return make_error("the dashboard did not open a Redis source");

  // Moments to empty a key, uniform over the run but the last 3 s (time to be seen).
  std::mt19937_64 rng(o.seed);
  const double last = std::max(1.0, o.seconds - 3);
  std::uniform_real_distribution<double> when(0.5, last);
  std::uniform_int_distribution<long long> which(0, o.keys - 1);
  std::vector<std::pair<double, std::string>> plan;
  std::map<std::string, int> chosen;
  while (static_cast<int>(plan.size()) < std::min<long long>(o.emptied, o.keys)) {
    const long long i = which(rng);
    std::string key = o.key_name ? o.key_name(i) : o.key_prefix + std::to_string(i);
    if (chosen.emplace(key, 0).second) plan.emplace_back(when(rng), std::move(key));
  }
  std::sort(plan.begin(), plan.end());

  DashboardRunResult r;
  auto server_cpu = [&]() { return o.server_cpu ? o.server_cpu() : server_cpu_s(admin); };
  auto cpu0_server = server_cpu();
  if (!cpu0_server) return make_error(cpu0_server.error());
  const double cpu0 = process_cpu_s();
  const Nanos t0 = clock.now();
  Nanos last_tick = t0;
  std::size_t next_empty = 0;
  std::map<std::string, Nanos> pending;  // emptied, not yet seen → when emptied
  std::optional<ChangeStamp> published;
  source.advance(Nanos{0});  // the worker's first refresh, at once
  while (clock.now() - t0 <
         std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(o.seconds))) {
    const double at_s = static_cast<double>((clock.now() - t0).count()) / 1e9;
    while (next_empty < plan.size() && plan[next_empty].first <= at_s) {
      const std::string& key = plan[next_empty].second;
      if (o.empty) {
        if (Status emptied = o.empty(key); !emptied.ok()) return make_error(emptied.error());
      } else {
        const std::string now_ms = std::to_string(clock.wall().count() / 1'000'000);
        auto done = admin.command({"HSET", key, "tokens", "0", "ts", now_ms});
        if (!done) return make_error(done.error().message);
      }
      pending[key] = clock.now();
      ++next_empty;
    }
    clock.wait_until(last_tick + kTick, never);  // a bench on real time, as the worker's timer
    const Nanos now = clock.now();
    const Nanos before = now;
    const int refreshed = source.advance(now - last_tick);
    last_tick = now;
    if (refreshed > 0) {
      r.refresh_ms.push_back(ms_between(before, clock.now()));
      const auto& rows = redis_source->readings();
      for (std::size_t i = 0; i < std::min(o.top_rows, rows.size()); ++i) {
        auto it = pending.find(rows[i].key);
        if (it == pending.end()) continue;
        r.seen_ms.push_back(ms_between(it->second, clock.now()));
        pending.erase(it);
      }
    }
    if (!published || source.change_stamp() != *published) {
      published = source.change_stamp();
      ChartView view;
      view.end_ms = source.now_ms();
      view.start_ms = view.end_ms - 5 * 60 * 1000;
      const DashboardSnapshot snap = source.snapshot(view);
      r.tracked = snap.keys.size();
    }
  }
  r.wall_s = static_cast<double>((clock.now() - t0).count()) / 1e9;
  r.cpu_s = process_cpu_s() - cpu0;
  auto cpu1_server = server_cpu();
  if (!cpu1_server) return make_error(cpu1_server.error());
  r.server_cpu_s = *cpu1_server - *cpu0_server;
  r.refreshes = redis_source->refreshes();
  r.scanned = redis_source->scanned();
  r.discovery_cpu_s = static_cast<double>(redis_source->discovery_cpu().count()) / 1e9;
  r.unseen = static_cast<int>(pending.size()) + static_cast<int>(plan.size() - next_empty);
  // Where each key not seen ended: its row (below the top rows) or not read at all.
  const auto& rows = redis_source->readings();
  for (const auto& [key, at] : pending) {
    const auto row = std::find_if(rows.begin(), rows.end(),
                                  [&](const probe::KeyReading& k) { return k.key == key; });
    char where[64] = "not tracked";
    if (row != rows.end()) {
      std::snprintf(where, sizeof where, "row %td, pressure %.6f", row - rows.begin() + 1,
                    row->pressure().value_or(-1));
    }
    char line[512];
    std::snprintf(line, sizeof line, "%s emptied at %.1f s: %s at the end", key.c_str(),
                  ms_between(t0, at) / 1000, where);
    r.unseen_where.emplace_back(line);
  }
  r.tracked = redis_source->readings().size();
  r.series = source.session().store().series_count();
  return r;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(static_cast<double>(v.size()) * q))];
}

nlohmann::json dashboard_json(const DashboardRunResult& r, int emptied) {
  const double cpu_per_s = r.cpu_s / r.wall_s;
  return {{"seconds", r.wall_s},
          {"refreshes", r.refreshes},
          {"refresh_p50_ms", quantile(r.refresh_ms, 0.5)},
          {"tracked", r.tracked},
          {"series", r.series},
          {"scanned", r.scanned},
          {"discovery_cpu_per_s", r.discovery_cpu_s / r.wall_s},
          {"cpu_per_s", cpu_per_s},
          {"server_cpu_per_s", r.server_cpu_s / r.wall_s},
          {"emptied", emptied},
          {"emptied_seen", r.seen_ms.size()},
          {"emptied_unseen", r.unseen},
          {"emptied_unseen_where", r.unseen_where},
          {"emptied_seen_p50_ms", quantile(r.seen_ms, 0.5)},
          {"emptied_seen_p99_ms", quantile(r.seen_ms, 0.99)},
          {"target_cpu_le_0_25", cpu_per_s <= 0.25}};
}

void print_dashboard(const DashboardRunResult& r, int emptied) {
  const double cpu_per_s = r.cpu_s / r.wall_s;
  std::printf("dashboard, %.0f s: %llu refreshes (p50 %.1f ms), %zu keys tracked, %zu series\n",
              r.wall_s, static_cast<unsigned long long>(r.refreshes), quantile(r.refresh_ms, 0.5),
              r.tracked, r.series);
  std::printf(
      "  dashboard CPU: %.1f%% of a core (target <= 25%%: %s); redis-server CPU: %.1f%% of a "
      "core\n",
      100 * cpu_per_s, cpu_per_s <= 0.25 ? "met" : "NOT met", 100 * r.server_cpu_s / r.wall_s);
  std::printf("  discovery: %llu keys scanned (%.0f per s), its CPU %.1f%% of a core\n",
              static_cast<unsigned long long>(r.scanned), static_cast<double>(r.scanned) / r.wall_s,
              100 * r.discovery_cpu_s / r.wall_s);
  std::printf("  emptied -> top %d rows: %zu of %d seen, p50 %.0f ms, p99 %.0f ms\n", 10,
              r.seen_ms.size(), emptied, quantile(r.seen_ms, 0.5), quantile(r.seen_ms, 0.99));
  for (const std::string& line : r.unseen_where) std::printf("  not seen: %s\n", line.c_str());
}

}  // namespace limitscope::cli
