// The sliding window counter approximates the window's content as prev·(W − elapsed)/W + curr.
// This measures how often that approximation disagrees with the exact rule (sliding log) on a
// Poisson trace and on a bursty trace. The counter runs as the limiter; an exact oracle looks
// at the requests the counter actually admitted and says, for every request, whether
// admitting it keeps every window (t − W, t] within L:
//   wrongly admitted = the counter admitted and the exact window then exceeds L;
//   wrongly rejected = the counter rejected although the exact window had room.
// Both are printed as fractions of all requests (and of the counter's admissions).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <random>
#include <vector>

#include "bench/summary.h"
#include "core/limiter/sliding_counter.h"
#include "core/limiter/sliding_log.h"

namespace limitscope::bench {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

struct ErrorFigure {
  std::size_t requests = 0;
  std::size_t admitted = 0;
  std::size_t exact_admitted = 0;  // the sliding log run on its own over the same trace
  std::size_t wrongly_admitted = 0;
  std::size_t wrongly_rejected = 0;
};

// Exact cost admitted in (t − W, t], fed with what the counter admitted.
class ExactWindow {
 public:
  explicit ExactWindow(std::int64_t window_ns) : window_ns_(window_ns) {}
  double used_at(std::int64_t t) {
    while (!log_.empty() && log_.front() <= t - window_ns_) {
      log_.pop_front();
      used_ -= 1;
    }
    return used_;
  }
  void add(std::int64_t t) {
    log_.push_back(t);
    used_ += 1;
  }

 private:
  std::int64_t window_ns_;
  std::deque<std::int64_t> log_;
  double used_ = 0;
};

ErrorFigure measure(const std::vector<std::int64_t>& arrivals, const LimitParams& p) {
  ErrorFigure f;
  SlidingCounter::State s = SlidingCounter::fresh(p, Nanos{0});
  ExactWindow exact(p.window.count());
  LimitParams log_params = p;
  log_params.algorithm = Algorithm::sliding_log;
  SlidingLog::State log = SlidingLog::fresh(log_params, Nanos{0});
  for (std::int64_t t : arrivals) {
    if (SlidingLog::decide(log_params, log, Nanos{t}, 1.0).allowed) ++f.exact_admitted;
    const bool room = exact.used_at(t) + 1 <= p.limit;
    const bool allowed = SlidingCounter::decide(p, s, Nanos{t}, 1.0).allowed;
    ++f.requests;
    if (allowed) {
      ++f.admitted;
      exact.add(t);
      if (!room) ++f.wrongly_admitted;
    } else if (room) {
      ++f.wrongly_rejected;
    }
  }
  return f;
}

// Poisson arrivals at `per_second` for `count` requests.
std::vector<std::int64_t> poisson_trace(double per_second, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(per_second);
  std::vector<std::int64_t> out;
  out.reserve(count);
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    t += gap(rng);
    out.push_back(static_cast<std::int64_t>(t * kSecond));
  }
  return out;
}

// Bursts: Poisson at `burst_rate` for `burst_s` seconds every `period_s` seconds, and at
// `idle_rate` in between.
std::vector<std::int64_t> bursty_trace(double burst_rate, double idle_rate, double burst_s,
                                       double period_s, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> unit(1.0);
  std::vector<std::int64_t> out;
  out.reserve(count);
  double t = 0;
  while (out.size() < count) {
    const bool in_burst = std::fmod(t, period_s) < burst_s;
    t += unit(rng) / (in_burst ? burst_rate : idle_rate);
    out.push_back(static_cast<std::int64_t>(t * kSecond));
  }
  return out;
}

void print_row(const char* label, const ErrorFigure& f) {
  const double n = static_cast<double>(f.requests);
  const double a = static_cast<double>(f.admitted);
  std::printf(
      "  %-44s %9zu %9.4f%% %9.4f%% %9.4f%% %+9.3f%%\n", label, f.requests,
      100.0 * static_cast<double>(f.wrongly_admitted) / n,
      100.0 * static_cast<double>(f.wrongly_rejected) / n,
      a > 0 ? 100.0 * static_cast<double>(f.wrongly_admitted) / a : 0.0,
      100.0 * (a - static_cast<double>(f.exact_admitted)) / static_cast<double>(f.exact_admitted));
}

void print_error_summary() {
  LimitParams p;
  p.algorithm = Algorithm::sliding_counter;
  p.limit = 100;
  p.window = Nanos{60 * kSecond};  // 100 per minute = 1.67/s
  std::printf(
      "Sliding window counter vs the exact sliding log (limit 100 per 1m, 200,000 requests "
      "each):\n");
  std::printf("  %-44s %9s %10s %10s %10s %10s\n", "trace", "requests", "wr. adm.", "wr. rej.",
              "adm. err", "vs log");
  print_row("Poisson 1.5/s (90% of the limit)", measure(poisson_trace(1.5, 200'000, 1), p));
  print_row("Poisson 2/s (120% of the limit)", measure(poisson_trace(2.0, 200'000, 2), p));
  print_row("Poisson 5/s (300% of the limit)", measure(poisson_trace(5.0, 200'000, 3), p));
  print_row("bursty: 20/s for 10s every 2m, else 0.2/s",
            measure(bursty_trace(20, 0.2, 10, 120, 200'000, 4), p));
  print_row("bursty: 50/s for 2s every 30s, else 1/s",
            measure(bursty_trace(50, 1, 2, 30, 200'000, 5), p));
  std::printf(
      "  (wr. adm./wr. rej.: fraction of all requests; adm. err: wrongly admitted / admitted;\n"
      "   vs log: admissions of the counter minus those of the exact log run alone, relative)\n");
}

const SummarySection kErrorSection("Limiter core: sliding counter error", 11, print_error_summary);

}  // namespace
}  // namespace limitscope::bench
