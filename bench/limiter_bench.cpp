// Limiter core figures: ns per decision for each algorithm on one key, the keyed limiter with
// 1,000,000 keys in random order (decide() and decide_batch()) against a plain mutex +
// std::unordered_map baseline (one and two threads), and memory per key measured from the
// allocator and RSS.

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/summary.h"
#include "core/limiter/algorithms.h"
#include "core/limiter/keyed_limiter.h"
#include "core/limiter/policy.h"
#include "core/limiter/state_table.h"

namespace limitscope::bench {
namespace {

constexpr std::size_t kKeys = 1'000'000;
constexpr std::string_view kModel = "deepseek-v3.2";  // cost 1 in the default policy

// ---- one key, each algorithm -------------------------------------------------------------

// Parameters that admit about half of a 1-per-microsecond stream, so both paths are timed.
template <class A>
LimitParams single_key_params() {
  LimitParams p;
  p.algorithm = A::kAlgorithm;
  if (is_window_algorithm(p.algorithm)) {
    p.limit = 5'000;
    p.window = Nanos{10'000'000};  // 10 ms: the sliding log holds at most 5,000 entries
  } else {
    p.capacity = 1'000;
    p.refill = Rate::per_sec(500'000);
  }
  return p;
}

template <class A>
void BM_Algorithm(benchmark::State& state) {
  const LimitParams p = single_key_params<A>();
  auto s = A::fresh(p, Nanos{0});
  std::int64_t t = 0;
  std::int64_t admitted = 0;
  for (auto _ : state) {
    t += 1'000;
    const Decision d = A::decide(p, s, Nanos{t}, 1.0);
    admitted += d.allowed ? 1 : 0;
    benchmark::DoNotOptimize(d);
  }
  state.counters["admitted"] =
      static_cast<double>(admitted) / static_cast<double>(state.iterations());
}

BENCHMARK_TEMPLATE(BM_Algorithm, TokenBucket);
BENCHMARK_TEMPLATE(BM_Algorithm, Gcra);
BENCHMARK_TEMPLATE(BM_Algorithm, SlidingLog);
BENCHMARK_TEMPLATE(BM_Algorithm, SlidingCounter);
BENCHMARK_TEMPLATE(BM_Algorithm, FixedWindow);
BENCHMARK_TEMPLATE(BM_Algorithm, LeakyBucket);

// ---- the plain baseline ------------------------------------------------------------------

// What one would write first: one mutex, one std::unordered_map keyed by "key\0model",
// double seconds. It resolves tier and model cost from the same Policy as ours, so the
// comparison is about the table, the locking and the arithmetic.
class BaselineLimiter {
 public:
  explicit BaselineLimiter(const Policy& policy) : policy_(policy) {}

  bool decide(std::string_view api_key, std::string_view model, double now_s) {
    const TierPolicy* tier = policy_.tier_for_key(api_key);
    const auto m = policy_.model_index(model);
    if (tier == nullptr || !m) return false;
    const double capacity = tier->requests.capacity;
    const double rate = tier->requests.refill.per_second();
    const double cost = policy_.models[*m].cost;
    thread_local std::string composite;  // reused: no allocation per decision
    composite.assign(api_key);
    composite.push_back('\0');
    composite.append(model);
    std::lock_guard lock(mu_);
    auto [it, inserted] = buckets_.try_emplace(composite, Bucket{capacity, now_s});
    Bucket& b = it->second;
    if (now_s > b.last) {
      b.tokens = std::min(capacity, b.tokens + (now_s - b.last) * rate);
      b.last = now_s;
    }
    if (b.tokens < cost) return false;
    b.tokens -= cost;
    return true;
  }
  std::size_t size() const { return buckets_.size(); }

 private:
  struct Bucket {
    double tokens;
    double last;  // seconds
  };
  const Policy& policy_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;
};

// ---- 1,000,000 keys ----------------------------------------------------------------------

struct MillionKeys {
  std::vector<std::string> keys;  // in a random order, so table accesses are random while the
                                  // benchmark loop itself reads the key list sequentially
  std::unique_ptr<KeyedLimiter> ours;
  std::unique_ptr<BaselineLimiter> baseline;
};

std::vector<std::string> make_keys() {
  std::vector<std::string> keys;
  keys.reserve(kKeys);
  char buf[32];
  for (std::size_t i = 0; i < kKeys; ++i) {
    std::snprintf(buf, sizeof buf, "sk-%012zu", i);  // 15 chars: no heap string to chase
    keys.emplace_back(buf);
  }
  return keys;
}

std::unique_ptr<MillionKeys>& million_slot() {
  static std::unique_ptr<MillionKeys> m;
  return m;
}

// Built once, before the first timed iteration, with every key already holding a state.
MillionKeys& million() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto m = std::make_unique<MillionKeys>();
    m->keys = make_keys();
    std::shuffle(m->keys.begin(), m->keys.end(), std::mt19937_64(42));
    m->ours = KeyedLimiter::create(default_policy()).value();
    m->baseline = std::make_unique<BaselineLimiter>(default_policy());
    for (const std::string& k : m->keys) {
      m->ours->decide(k, kModel, Nanos{0});
      m->baseline->decide(k, kModel, 0.0);
    }
    million_slot() = std::move(m);
  });
  return *million_slot();
}

// Time moves 10 ns per decision and thread: a key is visited once per million decisions and
// gets 0.01 token back meanwhile, so states stay live (no expiry churn) and most decisions
// admit for the first tens of rounds.
// This thread's first key: the threads start spread evenly over the keys.
std::size_t first_key(const benchmark::State& state) {
  return static_cast<std::size_t>(state.thread_index()) * kKeys /
         static_cast<std::size_t>(state.threads());
}

// One decision per iteration, decide(m, key, t_ns), over the keys in turn.
template <class Decide>
void decide_million_keys(benchmark::State& state, Decide decide) {
  MillionKeys& m = million();
  std::size_t i = first_key(state);
  std::int64_t t = 1'000'000'000;
  for (auto _ : state) {
    const std::string& key = m.keys[i];
    if (++i == kKeys) i = 0;
    t += 10;
    benchmark::DoNotOptimize(decide(m, key, t));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_KeyedMillionKeys(benchmark::State& state) {
  decide_million_keys(state, [](MillionKeys& m, const std::string& key, std::int64_t t) {
    return m.ours->decide(key, kModel, Nanos{t});
  });
}

// The same stream through decide_batch, kBatch requests per call (per iteration): the slots
// of the next requests load while the current one is decided. Summary: ns per decision.
constexpr std::size_t kBatch = 64;

void BM_KeyedMillionKeysBatch(benchmark::State& state) {
  MillionKeys& m = million();
  std::size_t i = first_key(state);
  std::int64_t t = 1'000'000'000;
  std::vector<KeyedRequest> batch(kBatch);
  std::vector<KeyedDecision> out(kBatch);
  for (auto _ : state) {
    for (KeyedRequest& r : batch) {
      r.api_key = m.keys[i];
      r.model = kModel;
      t += 10;
      r.now = Nanos{t};
      if (++i == kKeys) i = 0;
    }
    m.ours->decide_batch(batch, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBatch));
}

void BM_BaselineMillionKeys(benchmark::State& state) {
  decide_million_keys(state, [](MillionKeys& m, const std::string& key, std::int64_t t) {
    return m.baseline->decide(key, kModel, static_cast<double>(t) * 1e-9);
  });
}

BENCHMARK(BM_KeyedMillionKeys)->UseRealTime()->Threads(1)->Threads(2);
BENCHMARK(BM_KeyedMillionKeysBatch)->UseRealTime()->Threads(1)->Threads(2);
BENCHMARK(BM_BaselineMillionKeys)->UseRealTime()->Threads(1)->Threads(2);

// ---- memory per key ----------------------------------------------------------------------

// malloc's bytes in use (arena + its own mmapped blocks) plus the slot arrays the keyed
// limiter maps itself on huge pages.
std::size_t heap_in_use() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd + limitscope::detail::huge_page_bytes_mapped();
}

std::size_t rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages_total = 0;
  std::size_t pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

struct MemoryFigure {
  double heap_per_key = 0;
  double rss_per_key = 0;
  double tables_per_key = -1;  // analytic (KeyedLimiter::table_bytes), ours only
};

// Measures the growth of the heap and of RSS while `build` inserts kKeys states into an
// object that `make` created; the key strings exist before the first reading.
template <class Make, class Build>
MemoryFigure measure(const std::vector<std::string>& keys, Make make, Build build) {
  malloc_trim(0);
  const std::size_t heap0 = heap_in_use();
  const std::size_t rss0 = rss_bytes();
  auto limiter = make();
  build(*limiter, keys);
  malloc_trim(
      0);  // tables outgrown during the build go back to the system, as they would over time
  MemoryFigure f;
  const double n = static_cast<double>(keys.size());
  f.heap_per_key = static_cast<double>(heap_in_use() - heap0) / n;
  f.rss_per_key = static_cast<double>(rss_bytes() - rss0) / n;
  if constexpr (std::is_same_v<std::decay_t<decltype(*limiter)>, KeyedLimiter>) {
    f.tables_per_key = static_cast<double>(limiter->table_bytes()) / n;
  }
  return f;
}

Policy with_algorithm(Algorithm a) {
  Policy p = default_policy();
  for (TierPolicy& t : p.tiers) t.requests.algorithm = a;
  return p;
}

// @param per_iter decisions per iteration of `ours` (kBatch for the batch benchmark)
void print_ratio_row(const char* label, const Result* ours, const Result* base,
                     double per_iter = 1) {
  if (ours == nullptr || base == nullptr) {
    std::printf("  %-10s not run (filtered out)\n", label);
    return;
  }
  const double wall = ours->ns_per_iter / per_iter;
  const double cpu = ours->cpu_ns_per_iter / per_iter;
  const double cpu_x = base->cpu_ns_per_iter / cpu;
  std::printf("  %-10s %9.1f %9.1f %9.1f %9.1f %8.2fx %8.2fx  (targets <= 150 ns: %s, >= 5x: %s)\n",
              label, wall, cpu, base->ns_per_iter, base->cpu_ns_per_iter, base->ns_per_iter / wall,
              cpu_x, cpu <= 150 ? "ok" : "ABOVE", cpu_x >= 5 ? "ok" : "BELOW");
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one;
  std::string five;
  in >> one >> five;
  return one + " (1 min), " + five + " (5 min)";
}

void print_limiter_summary() {
  std::printf(
      "Targets: token bucket and GCRA <= 20 ns/decision on one key; <= 150 ns with 1M keys;\n"
      "<= 64 bytes per key including the index. Targets are checked against CPU time;\n"
      "wall time is also shown. Load average during the run: %s on %ld CPUs.\n\n",
      load_average().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("One key, one thread (1 request per simulated us, about half admitted):\n");
  std::printf("  %-16s %9s %9s\n", "algorithm", "wall ns", "CPU ns");
  const std::pair<const char*, const char*> algos[] = {
      {"token-bucket", "BM_Algorithm<TokenBucket>"},
      {"gcra", "BM_Algorithm<Gcra>"},
      {"sliding-log", "BM_Algorithm<SlidingLog>"},
      {"sliding-counter", "BM_Algorithm<SlidingCounter>"},
      {"fixed-window", "BM_Algorithm<FixedWindow>"},
      {"leaky-bucket", "BM_Algorithm<LeakyBucket>"}};
  for (const auto& [label, name] : algos) {
    const Result* r = find_result(name);
    if (r == nullptr) {
      std::printf("  %-16s %9s\n", label, "not run");
      continue;
    }
    const bool targeted =
        std::string_view(label) == "token-bucket" || std::string_view(label) == "gcra";
    std::printf("  %-16s %9.1f %9.1f  %s\n", label, r->ns_per_iter, r->cpu_ns_per_iter,
                targeted
                    ? (r->cpu_ns_per_iter <= 20 ? "(target <= 20: ok)" : "(target <= 20: ABOVE)")
                    : "");
  }

  std::printf(
      "\nKeyed limiter, 1,000,000 keys in random order (default policy: free tier, token bucket,\n"
      "model deepseek-v3.2), against one std::mutex + std::unordered_map<std::string, "
      "{double,double}>:\n");
  std::printf("  %-10s %9s %9s %9s %9s %9s %9s\n", "threads", "ours wall", "ours CPU", "base wall",
              "base CPU", "wall x", "CPU x");
  print_ratio_row("1", find_result("BM_KeyedMillionKeys/real_time/threads:1"),
                  find_result("BM_BaselineMillionKeys/real_time/threads:1"));
  print_ratio_row("2", find_result("BM_KeyedMillionKeys/real_time/threads:2"),
                  find_result("BM_BaselineMillionKeys/real_time/threads:2"));
  print_ratio_row("1, batch", find_result("BM_KeyedMillionKeysBatch/real_time/threads:1"),
                  find_result("BM_BaselineMillionKeys/real_time/threads:1"), kBatch);
  print_ratio_row("2, batch", find_result("BM_KeyedMillionKeysBatch/real_time/threads:2"),
                  find_result("BM_BaselineMillionKeys/real_time/threads:2"), kBatch);
  std::printf(
      "  (ns per decision; wall = elapsed time / decisions of all threads, so with 2 threads it "
      "is\n"
      "   the aggregate rate; x = baseline / ours; batch = decide_batch, %zu requests a call;\n"
      "   medians when run with --benchmark_repetitions)\n",
      kBatch);

  // Free the timing fixture first so the measurements below start from a quiet heap.
  million_slot().reset();
  if (find_result("BM_KeyedMillionKeys/real_time/threads:1") == nullptr &&
      find_result("BM_KeyedMillionKeysBatch/real_time/threads:1") == nullptr) {
    // A run filtered to other areas (--benchmark_filter) skips the 3M-state build below.
    std::printf("\nMemory per key: not measured (the keyed benchmarks were filtered out)\n");
    return;
  }
  const std::vector<std::string> keys = make_keys();
  auto build_ours = [](KeyedLimiter& l, const std::vector<std::string>& ks) {
    for (const std::string& k : ks) l.decide(k, kModel, Nanos{0});
  };
  const MemoryFigure tb = measure(
      keys, [] { return KeyedLimiter::create(with_algorithm(Algorithm::token_bucket)).value(); },
      build_ours);
  const MemoryFigure gcra = measure(
      keys, [] { return KeyedLimiter::create(with_algorithm(Algorithm::gcra)).value(); },
      build_ours);
  const MemoryFigure base = measure(
      keys, [] { return std::make_unique<BaselineLimiter>(default_policy()); },
      [](BaselineLimiter& l, const std::vector<std::string>& ks) {
        for (const std::string& k : ks) l.decide(k, kModel, 0.0);
      });
  std::printf(
      "\nMemory per key, 1,000,000 keys (heap = growth of mallinfo2() uordblks+hblkhd plus the\n"
      "limiter's huge-page slot arrays while the states are created; RSS = /proc/self/statm\n"
      "growth, after malloc_trim; tables = KeyedLimiter::table_bytes()):\n");
  std::printf("  %-26s %10s %10s %10s\n", "", "heap B", "RSS B", "tables B");
  auto row = [](const char* label, const MemoryFigure& f, bool targeted) {
    std::printf("  %-26s %10.1f %10.1f ", label, f.heap_per_key, f.rss_per_key);
    if (f.tables_per_key >= 0) {
      std::printf("%10.1f", f.tables_per_key);
    } else {
      std::printf("%10s", "-");
    }
    if (targeted)
      std::printf("  %s", f.heap_per_key <= 64 ? "(target <= 64: ok)" : "(target <= 64: ABOVE)");
    std::printf("\n");
  };
  row("ours, token bucket", tb, true);
  row("ours, GCRA", gcra, true);
  row("baseline unordered_map", base, false);
  std::printf("  baseline/ours (heap): token bucket %.2fx, GCRA %.2fx\n",
              base.heap_per_key / tb.heap_per_key, base.heap_per_key / gcra.heap_per_key);
}

const SummarySection kLimiterSection("Limiter core", 10, print_limiter_summary);

}  // namespace
}  // namespace limitscope::bench
