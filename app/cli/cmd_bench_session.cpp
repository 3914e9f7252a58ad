// limitscope-cli bench-session: the memory of a long live session (issue #22, item 4), on an
// injected clock so a day takes minutes. A SessionState configured as a live Redis session is
// (the factory's per-key retention and idle-series removal) receives what RedisLiveSource
// records at every refresh for N keys (a level per key under the same labels, the key table,
// the alert evaluation), with a share of the keys replaced every hour (keys that expire and
// new ones found). Prints the resident memory as the session goes, the peak, what the store
// holds, and (--record) the recording's size per hour. Exit 0 on success, 2 on bad usage.

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "app/options/args.h"
#include "core/dashboard/dashboard_charts.h"
#include "core/sources/live_source_factory.h"
#include "core/sources/session_state.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "bench-session";

double rss_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

}  // namespace

int run_bench_session(const CommandArgs& argv) {
  std::vector<OptionSpec> specs{
      {"keys", "N", "keys followed at once (default 10000)"},
      {"hours", "H", "simulated session length (default 24)"},
      {"step", "S",
       "seconds between refreshes (default 10; the rings are bounded in samples, so a 1 s refresh "
       "reaches the same plateau sooner)"},
      {"churn", "PERCENT", "keys replaced by new ones every hour (default 10)"},
      {"record", "FILE", "record the session to FILE and report its size per hour"},
      {"json", "", "print the figures as JSON"},
  };
  const Expected<Args> command_line = Args::parse(
      kName,
      "simulate a long live session on an injected clock; resident memory and recording size",
      specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  auto keys = integer_option(args, "keys", 10000, 1, 1'000'000);
  if (!keys) return usage_error(kName, keys.error());
  auto hours = integer_option(args, "hours", 24, 1, 24 * 30);
  if (!hours) return usage_error(kName, hours.error());
  auto step_s = integer_option(args, "step", 10, 1, 3600);
  if (!step_s) return usage_error(kName, step_s.error());
  auto churn = integer_option(args, "churn", 10, 0, 100);
  if (!churn) return usage_error(kName, churn.error());

  SessionOptions so;  // as open_live_source makes it for a live session
  so.key_samples_per_series = kLiveKeySamples;
  so.idle_series_ms = kLiveIdleSeriesMs;
  so.recording_rows = kLiveRecordingRows;
  auto session = SessionState::create(so);
  if (!session) return usage_error(kName, session.error());
  SessionState& s = **session;
  const std::int64_t start_ms = 1'700'000'000'000;
  ManualClock clock(Nanos{0}, std::chrono::milliseconds(start_ms));

  const auto n = static_cast<std::size_t>(*keys);
  std::vector<std::uint64_t> generation(n, 0);  // key i is "rl:free-<i>-<generation>"
  auto key_name = [&](std::size_t i) {
    return "rl:free-" + std::to_string(i) + "-" + std::to_string(generation[i]);
  };
  std::vector<KeyRow> rows(n);
  s.set_key_rows([&] {  // most pressure first, as a live Redis source gives its rows
    std::vector<KeyRow> sorted = rows;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const KeyRow& a, const KeyRow& b) { return a.level < b.level; });
    return sorted;
  });
  const std::optional<std::string> record = args.get("record");
  if (record) {
    if (Status err = s.start_recording(*record, "bench-session", start_ms, clock); !err.ok())
      return usage_error(kName, err.error());
  }

  const std::int64_t step_ms = *step_s * 1000;
  const std::int64_t end_ms = start_ms + *hours * 3600 * 1000;
  const std::size_t churn_per_hour = n * static_cast<std::size_t>(*churn) / 100;
  std::size_t next_churn = 0;
  nlohmann::json timeline = nlohmann::json::array();
  std::int64_t next_report = start_ms;
  double rss_at_end_of_first_hour = 0;
  for (std::int64_t t = start_ms; t < end_ms; t += step_ms) {
    clock.advance(std::chrono::milliseconds(step_ms));
    if ((t - start_ms) % (3600 * 1000) < step_ms && t > start_ms) {
      for (std::size_t c = 0; c < churn_per_hour; ++c, next_churn = (next_churn + 1) % n)
        ++generation[next_churn];
    }
    s.writing_as("redis");
    for (std::size_t i = 0; i < n; ++i) {
      // Levels that move at every refresh, differently for every key; one key in a hundred
      // swings between empty and full (its alert fires and resolves), the others stay busy.
      const double swing = std::sin(static_cast<double>(t / 1000) / 300.0 + static_cast<double>(i));
      const double level = i % 100 == 0 ? 0.5 + 0.5 * swing : 0.85 + 0.1 * swing;
      const std::string key = key_name(i);
      s.append({{"__name__", std::string(dashboard_series::kKeyLevel)},
                {"api_key", key},
                {"tier", "gw"},
                {"model", ""}},
               {t, level});
      KeyRow& row = rows[i];
      row.api_key = key;
      row.tier = "gw";
      row.algorithm = "token_bucket_hash";
      row.parameters = "profile gw";
      row.level = level;
      row.capacity = 60;
      row.last_seen_ms = t;
    }
    (void)s.evaluate(t);
    s.refreshed(t);
    if (Status flushed = s.flush_recording_if_due(); !flushed.ok())
      return usage_error(kName, flushed.error());
    if (t >= next_report) {
      timeline.push_back({{"hour", static_cast<double>(t - start_ms) / 3.6e6},
                          {"rss_mb", rss_mb()},
                          {"series", s.store().series_count()},
                          {"samples", s.store().sample_count()}});
      next_report += 2 * 3600 * 1000;
    }
    if (t - start_ms < 3600 * 1000) rss_at_end_of_first_hour = rss_mb();
  }
  std::uintmax_t recorded_bytes = 0;
  if (record) {
    if (Status err = s.stop_recording(end_ms); !err.ok()) return usage_error(kName, err.error());
    std::error_code ec;
    recorded_bytes = std::filesystem::file_size(*record, ec);
  }
  const double peak = peak_rss_mb();
  const double refreshes_per_hour = 3600.0 / static_cast<double>(*step_s);
  const double bytes_per_refresh =
      static_cast<double>(recorded_bytes) / (static_cast<double>(*hours) * refreshes_per_hour);
  nlohmann::json j{{"keys", *keys},
                   {"hours", *hours},
                   {"step_s", *step_s},
                   {"churn_percent_per_hour", *churn},
                   {"peak_rss_mb", peak},
                   {"rss_after_1h_mb", rss_at_end_of_first_hour},
                   {"rss_end_mb", rss_mb()},
                   {"series", s.store().series_count()},
                   {"samples", s.store().sample_count()},
                   {"key_samples_per_series", kLiveKeySamples},
                   {"other_samples_per_series", so.samples_per_series},
                   {"idle_series_removed_after_ms", kLiveIdleSeriesMs},
                   {"recording_rows", so.recording_rows},
                   {"timeline", timeline},
                   {"target_peak_rss_lt_300mb", peak < 300}};
  if (record) {
    j["recording_bytes"] = recorded_bytes;
    j["recording_bytes_per_refresh"] = bytes_per_refresh;
    j["recording_mb_per_hour_at_1s_refresh"] = bytes_per_refresh * 3600 / (1024.0 * 1024.0);
  }
  if (args.has("json")) {
    std::cout << json_text(j, 2) << "\n";
    return 0;
  }
  std::printf(
      "%lld keys, %lld h simulated at one refresh every %lld s, %lld%% of the keys replaced each "
      "hour\n",
      *keys, *hours, *step_s, *churn);
  for (const auto& p : timeline) {
    std::printf("  hour %5.1f: %7.1f MB resident, %zu series, %zu samples\n",
                p["hour"].get<double>(), p["rss_mb"].get<double>(), p["series"].get<std::size_t>(),
                p["samples"].get<std::size_t>());
  }
  std::printf(
      "store retention: the last %zu samples of each key's series (%.0f min at this step), %zu of "
      "every "
      "other series; a series not written for %lld min is removed; no decimation in the store (the "
      "charts "
      "decimate what they draw)\n",
      kLiveKeySamples, static_cast<double>(kLiveKeySamples) * static_cast<double>(*step_s) / 60.0,
      so.samples_per_series, static_cast<long long>(kLiveIdleSeriesMs / 60'000));
  std::printf("peak resident: %.1f MB (target < 300 MB: %s); at the end: %.1f MB, %zu series\n",
              peak, peak < 300 ? "met" : "NOT met", rss_mb(), s.store().series_count());
  if (record) {
    std::printf(
        "recording: %.1f MB, %.0f bytes per refresh: %.0f MB per hour at one refresh a second\n",
        static_cast<double>(recorded_bytes) / (1024.0 * 1024.0), bytes_per_refresh,
        bytes_per_refresh * 3600 / (1024.0 * 1024.0));
  }
  return 0;
}

}  // namespace limitscope::cli
