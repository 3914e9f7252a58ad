// KeyedLimiter::decide_batch must answer exactly as decide() called on each request in order:
// random keys (listed, defaulted, unknown), models (known and not), times (also going back),
// multipliers (also invalid), batch sizes, a key cap that fills, and a policy change midway.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/limiter/keyed_limiter.h"
#include "support/must.h"

namespace limitscope {
namespace {

Policy must_parse(const std::string& text) {
  auto p = parse_policy(text, "batch-test-policy");
  if (!p) throw std::runtime_error(p.error());
  return std::move(p).value();
}

// One tier per algorithm; unlisted keys get the token bucket (or nothing without a default).
Policy mixed_policy(double tb_capacity = 5, bool with_default = true) {
  return must_parse(R"({
    "tiers": {
      "tb": { "requests": { "algorithm": "token-bucket", "capacity": )" +
                    std::to_string(tb_capacity) +
                    R"(, "refill": "3/s" } },
      "gc": { "requests": { "algorithm": "gcra", "capacity": 4, "refill": "2/s" } },
      "lb": { "requests": { "algorithm": "leaky-bucket", "capacity": 4, "refill": "2/s" } },
      "sl": { "requests": { "algorithm": "sliding-log", "limit": 6, "window": "2s" } },
      "sc": { "requests": { "algorithm": "sliding-counter", "limit": 6, "window": "2s" } },
      "fw": { "requests": { "algorithm": "fixed-window", "limit": 6, "window": "2s" } }
    },
    "models": { "mini": { "cost": 1 }, "large": { "cost": 2.5 } },
    "keys": { "k-gc": "gc", "k-lb": "lb", "k-sl": "sl", "k-sc": "sc", "k-fw": "fw", "k-tb": "tb" })" +
                    std::string(with_default ? R"(, "default_tier": "tb")" : "") + "}");
}

struct Stream {
  std::vector<std::string> keys;
  std::vector<std::string> models = {"mini", "large", "no-such-model"};
  std::vector<KeyedRequest> requests;
};

Stream random_stream(std::uint64_t seed, std::size_t n, std::size_t unlisted_keys) {
  Stream s;
  for (const char* k : {"k-gc", "k-lb", "k-sl", "k-sc", "k-fw", "k-tb"}) s.keys.emplace_back(k);
  for (std::size_t i = 0; i < unlisted_keys; ++i) s.keys.push_back("user-" + std::to_string(i));
  std::mt19937_64 rng(seed);
  std::int64_t t = 1'000'000'000;
  for (std::size_t i = 0; i < n; ++i) {
    KeyedRequest r;
    r.api_key = s.keys[rng() % s.keys.size()];
    r.model = s.models[rng() % 8 == 0 ? 2 : rng() % 2];
    // Mostly forward by up to 50 ms (a few ns at times), now and then back by up to 1 s.
    const std::uint64_t step = rng() % 20;
    t += step == 0 ? -static_cast<std::int64_t>(rng() % 1'000'000'000)
                   : static_cast<std::int64_t>(rng() % 50'000'000);
    r.now = Nanos{t};
    const std::uint64_t m = rng() % 40;
    r.cost_multiplier = m == 0 ? 0.0 : m == 1 ? -1.0 : 0.5 + static_cast<double>(rng() % 4);
    s.requests.push_back(r);
  }
  return s;
}

using Fields = std::tuple<bool, double, double, bool, std::int64_t, std::int64_t, std::int64_t,
                          DenyReason, std::string, std::string, double, std::uint64_t, bool>;

Fields fields(const KeyedDecision& d) {
  const Decision& x = d.decision;
  return {x.allowed,
          x.limit,
          x.remaining,
          x.retry_after.has_value(),
          x.retry_after ? x.retry_after->count() : -1,
          x.reset_after.count(),
          x.delay.count(),
          x.reason,
          d.tier != nullptr ? d.tier->name : "-",
          d.model != nullptr ? d.model->name : "-",
          d.cost,
          d.key_id,
          d.listed};
}

std::vector<std::tuple<std::uint64_t, double>> states(KeyedLimiter& lim, Nanos now) {
  std::vector<std::tuple<std::uint64_t, double>> out;
  lim.for_each_state(now, [&](const KeyStateView& v) { out.emplace_back(v.key_id, v.available); });
  std::sort(out.begin(), out.end());
  return out;
}

// Runs the stream one by one on `one` and in random-sized batches on `batched`, switching both
// to `next_policy` halfway, and compares every answer and the states left.
// @return the key-cap refusals seen
std::uint64_t expect_same(const Stream& s, KeyedLimiterOptions options, std::uint64_t seed,
                          const Policy& first, const Policy& next_policy) {
  const auto one_owned = test::must(KeyedLimiter::create(first, options));
  KeyedLimiter& one = *one_owned;
  const auto batched_owned = test::must(KeyedLimiter::create(first, options));
  KeyedLimiter& batched = *batched_owned;
  std::mt19937_64 rng(seed);
  const std::size_t half = s.requests.size() / 2;
  std::size_t i = 0;
  while (i < s.requests.size()) {
    if (i == half) {
      const Nanos t = s.requests[i].now;
      EXPECT_EQ(one.set_policy(next_policy, t), Status{});
      EXPECT_EQ(batched.set_policy(next_policy, t), Status{});
    }
    std::size_t n = std::min<std::size_t>(rng() % 70, s.requests.size() - i);  // 0 too
    if (i < half) n = std::min(n, half - i);
    std::vector<KeyedDecision> got(n);
    batched.decide_batch(std::span(s.requests).subspan(i, n), got);
    for (std::size_t k = 0; k < n; ++k) {
      const KeyedRequest& r = s.requests[i + k];
      const KeyedDecision want = one.decide(r.api_key, r.model, r.now, r.cost_multiplier);
      EXPECT_EQ(fields(got[k]), fields(want)) << "request " << i + k << " key " << r.api_key
                                              << " model " << r.model << " t " << r.now.count();
    }
    i += n;
  }
  EXPECT_EQ(batched.size(), one.size());
  EXPECT_EQ(batched.overflows(), one.overflows());
  const Nanos end = s.requests.back().now;
  EXPECT_EQ(states(batched, end), states(one, end));
  return one.overflows();
}

TEST(KeyedBatch, EqualsOneByOneOnRandomKeysAndTimes) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const Stream s = random_stream(seed, 20'000, 300);
    expect_same(s, KeyedLimiterOptions{}, seed + 100, mixed_policy(), mixed_policy(9));
  }
}

TEST(KeyedBatch, EqualsOneByOneAtTheKeyCapAndWithoutDefaultTier) {
  KeyedLimiterOptions capped;
  capped.shards = 4;
  capped.max_keys = 40;  // far fewer than the keys: refusals with key_limit, expiry under pressure
  capped.remember_names = 10;
  const Stream s = random_stream(9, 20'000, 500);
  EXPECT_GT(expect_same(s, capped, 11, mixed_policy(), mixed_policy(3, /*with_default=*/false)),
            100u);
}

TEST(KeyedBatch, ManyKeysOverSeveralTableGrowths) {
  // Keys enough to grow the tables a few times while batches prefetch into them.
  const Stream s = random_stream(5, 60'000, 20'000);
  expect_same(s, KeyedLimiterOptions{}, 6, mixed_policy(), mixed_policy());
}

TEST(KeyedBatch, RefusesAnOutputOfAnotherSize) {
  const auto lim_owned = test::must(KeyedLimiter::create(mixed_policy()));
  KeyedLimiter& lim = *lim_owned;
  std::vector<KeyedRequest> requests(3, KeyedRequest{"alice", "mini", Nanos{0}, 1});
  std::vector<KeyedDecision> out(2);
  EXPECT_THROW(lim.decide_batch(requests, out), std::invalid_argument);
  EXPECT_EQ(lim.size(), 0u);  // nothing decided
}

}  // namespace
}  // namespace limitscope
