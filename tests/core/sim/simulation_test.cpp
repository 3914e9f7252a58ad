// Verifies the simulation: determinism, each scenario's signature, retry behaviour, the bucket
// bound per key, spend arithmetic, and incidents injected into a running simulation.

#include "core/sim/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "support/refusals.h"

namespace limitscope {
namespace {

using std::chrono::seconds;

constexpr Nanos kRun{seconds(60)};

std::unique_ptr<Simulation> make(std::string_view scenario, std::uint64_t seed = 7,
                                 bool record = false, Nanos duration = kRun) {
  auto spec = make_scenario(scenario, duration);
  EXPECT_TRUE(spec.ok()) << spec.error();
  SimulationOptions o;
  o.seed = seed;
  o.record_requests = record;
  auto sim = Simulation::create(default_policy(), std::move(*spec), o);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return std::move(*sim);
}

std::vector<StepSample> run(Simulation& sim, Nanos duration = kRun) {
  std::vector<StepSample> out;
  while (sim.now() < duration) out.push_back(sim.step());
  return out;
}

SimTotals totals(const std::vector<StepSample>& steps) {
  SimTotals t;
  for (const StepSample& s : steps) t.add(s);
  return t;
}

// A flat rendering of everything a step holds, to compare runs exactly.
std::string fingerprint(const std::vector<StepSample>& steps) {
  std::string out;
  char buf[256];
  for (const StepSample& s : steps) {
    std::snprintf(buf, sizeof buf, "t=%lld a=%lld r=%lld d=%lld spend=%.17g\n",
                  static_cast<long long>(s.time.count()), static_cast<long long>(s.admitted),
                  static_cast<long long>(s.rejected), static_cast<long long>(s.degraded), s.spend);
    out += buf;
    for (const KeyStepSample& k : s.keys) {
      std::snprintf(buf, sizeof buf, " %s/%s a=%lld r=%lld lvl=%.17g burn=%.17g tok=%lld\n",
                    k.api_key.c_str(), k.model.c_str(), static_cast<long long>(k.admitted),
                    static_cast<long long>(k.rejected), k.level, k.quota_burn,
                    static_cast<long long>(k.llm_tokens));
      out += buf;
    }
  }
  return out;
}

TEST(SimulationDeterminism, SameSeedSameSamplesOtherSeedOtherSamples) {
  for (std::string_view name : scenario_names()) {
    auto a = make(name, 42);
    auto b = make(name, 42);
    auto c = make(name, 43);
    const std::string fa = fingerprint(run(*a));
    EXPECT_EQ(fa, fingerprint(run(*b))) << name;
    EXPECT_NE(fa, fingerprint(run(*c))) << name;
  }
}

// Per-key totals of the scenario clients that are not `except`.
std::map<std::string, std::pair<std::int64_t, std::int64_t>> bystanders(const SimTotals& t,
                                                                        std::string_view except) {
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& [key, r] : t.by_key) {
    if (key != except) out[key] = {r.admitted, r.rejected};
  }
  return out;
}

// Scenario signatures must not depend on a lucky seed.
class SimulationScenarios : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(SimulationScenarios, RunawayKeyTakesThe429sAndBystandersAreUntouched) {
  auto sim = make("runaway", GetParam());
  const SimTotals t = totals(run(*sim));
  const SimTotals& steady = totals(run(*make("steady", GetParam())));
  const SimTotals::Row& loop = t.by_key.at("loop-bot");
  EXPECT_EQ(loop.tier, "free");
  EXPECT_GT(loop.rejected, 50'000);  // ~2000/s for 45 s, nearly all refused
  EXPECT_GT(static_cast<double>(loop.rejected), 0.99 * static_cast<double>(t.all.rejected));
  EXPECT_GT(static_cast<double>(loop.rejected) / static_cast<double>(loop.admitted + loop.rejected),
            0.99);
  // Other keys, of every tier, see exactly the traffic and decisions they see without it.
  EXPECT_EQ(bystanders(t, "loop-bot"), bystanders(steady, ""));
  EXPECT_EQ(t.by_tier.at("pro").rejected, 0);
  EXPECT_EQ(t.by_tier.at("enterprise").rejected, 0);
}

TEST_P(SimulationScenarios, MisconfiguredHeavyTenantOnFreeIsMostlyRefused) {
  auto sim = make("misconfigured-tenant", GetParam());
  const SimTotals t = totals(run(*sim));
  const SimTotals::Row& heavy = t.by_key.at("newco-prod");
  EXPECT_EQ(heavy.tier, "free");
  EXPECT_GT(heavy.rejected, 10 * heavy.admitted);
  EXPECT_GT(heavy.quota_burn, 0.0);
  EXPECT_EQ(bystanders(t, "newco-prod"), bystanders(totals(run(*make("steady", GetParam()))), ""));
}

TEST_P(SimulationScenarios, BurstRejectionsFallInsideTheBurst) {
  auto sim = make("burst", GetParam());
  const std::vector<StepSample> steps = run(*sim);
  // The scenario bursts in [20 s, 26 s) of a 60 s run; retries of its 429s trail it.
  std::int64_t inside = 0, outside = 0, before = 0;
  for (const StepSample& s : steps) {
    for (const KeyStepSample& k : s.keys) {
      if (k.api_key != "pro-batch") continue;
      const auto t = std::chrono::duration_cast<seconds>(s.time).count();
      if (t <= 20) before += k.rejected;
      (t > 20 && t <= 30 ? inside : outside) += k.rejected;
    }
  }
  EXPECT_EQ(before, 0);
  EXPECT_GT(inside, 100);
  EXPECT_GT(static_cast<double>(inside), 0.95 * static_cast<double>(inside + outside));
  const SimTotals t = totals(steps);
  EXPECT_EQ(bystanders(t, "pro-batch"), bystanders(totals(run(*make("steady", GetParam()))), ""));
}

TEST_P(SimulationScenarios, DiurnalRefusalsComeAroundNoon) {
  auto sim = make("diurnal", GetParam());
  const std::vector<StepSample> steps = run(*sim);
  // The 60 s run is one day: midnight at 0 s and 60 s, noon at 30 s. The pro tenant
  // outgrows its bucket after the morning ramp; the drained bucket lags the peak a little.
  std::int64_t morning = 0, afternoon = 0, rest = 0, night_admitted = 0, day_admitted = 0;
  for (const StepSample& s : steps) {
    const auto t = std::chrono::duration_cast<seconds>(s.time).count();
    (t <= 20 ? morning : t <= 50 ? afternoon : rest) += s.rejected;
    (t > 15 && t <= 45 ? day_admitted : night_admitted) += s.admitted;
  }
  EXPECT_EQ(morning, 0);
  EXPECT_GT(afternoon, 50);
  EXPECT_GT(static_cast<double>(afternoon), 0.9 * static_cast<double>(afternoon + rest));
  EXPECT_GT(day_admitted, 2 * night_admitted);
}

TEST_P(SimulationScenarios, MixedSpansAllTiersAndModelsWithOneIncident) {
  auto sim = make("mixed", GetParam());
  const std::vector<StepSample> steps = run(*sim);
  const SimTotals t = totals(steps);
  for (const char* tier : {"free", "pro", "enterprise"}) {
    EXPECT_GT(t.by_tier.at(tier).admitted, 0) << tier;
  }
  for (const ModelPolicy& m : default_policy().models) {
    EXPECT_GT(t.by_model.at(m.name).admitted, 0) << m.name;
  }
  ASSERT_EQ(sim->scenario().incidents.size(), 1u);
  // The runaway student loop runs in [33 s, 45 s): steps there list it, others do not.
  for (const StepSample& s : steps) {
    const auto t_s = std::chrono::duration_cast<seconds>(s.time).count();
    EXPECT_EQ(s.incidents.size(), (t_s > 33 && t_s <= 45) ? 1u : 0u) << t_s;
  }
  EXPECT_GT(t.by_key.at("free-student").rejected, 10'000);
  EXPECT_EQ(t.by_tier.at("enterprise").rejected, 0);
}

// The tier's token limit refuses too, as the gateway's does: the runaway resends long
// conversations, so its 429s come from both limits, each naming the limit and what it asked of
// it; and the tokens admitted per (key, model) stay within the token bucket's C + r·t.
TEST_P(SimulationScenarios, ARunawayIsRefusedByBothLimitsAndTokensStayWithinTheirBucket) {
  auto sim = make("mixed", GetParam(), true);
  run(*sim);
  const Policy& policy = sim->policy();
  std::map<std::string_view, std::int64_t> runaway_429s;  // by limit
  std::map<std::pair<std::string_view, std::string_view>, std::vector<const RequestRecord*>>
      admitted;
  for (const RequestRecord& r : sim->requests()) {
    if (r.allowed) {
      EXPECT_TRUE(r.limit.empty());
      if (!r.degraded) admitted[{r.api_key, r.model}].push_back(&r);
      continue;
    }
    ASSERT_TRUE(r.limit == "requests" || r.limit == "llm_tokens") << r.limit;
    EXPECT_EQ(r.limit_cost, r.limit == "llm_tokens" ? static_cast<double>(r.llm_tokens) : r.cost);
    if (r.api_key == "free-student") ++runaway_429s[r.limit];
  }
  EXPECT_GT(runaway_429s["requests"], 0);
  EXPECT_GT(runaway_429s["llm_tokens"], 0) << "the token limit never refused the runaway";
  for (const auto& [key_model, reqs] : admitted) {
    const TierPolicy* tier = policy.tier_for_key(key_model.first);
    ASSERT_NE(tier, nullptr);
    ASSERT_TRUE(tier->llm_tokens.has_value());
    const double capacity = tier->llm_tokens->capacity;
    const double rate = tier->llm_tokens->refill.per_second();
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      double tokens = 0;
      for (std::size_t j = i; j < reqs.size(); ++j) {
        tokens += static_cast<double>(reqs[j]->llm_tokens);
        const double span = std::chrono::duration<double>(reqs[j]->time - reqs[i]->time).count();
        ASSERT_LE(tokens, capacity + rate * span + 1e-6)
            << key_model.first << "/" << key_model.second;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SimulationScenarios, ::testing::Values(1, 7, 2026));

TEST(SimulationRetries, HonouringClientsWaitForRetryAfterAndStopAfterMaxRetries) {
  for (std::string_view name : {"burst", "misconfigured-tenant", "diurnal"}) {
    auto sim = make(name, 7, true);
    run(*sim);
    const auto& clients = sim->scenario().clients;
    // Last attempt of each request: its time and Retry-After.
    std::map<std::uint64_t, const RequestRecord*> last;
    std::int64_t retries = 0;
    for (const RequestRecord& r : sim->requests()) {
      const RetryPolicy& policy = clients[r.client].retry;
      if (policy.behaviour != RetryBehaviour::honour_retry_after) continue;
      auto it = last.find(r.request_id);
      if (r.attempt == 0) {
        EXPECT_EQ(it, last.end());
      } else {
        ++retries;
        ASSERT_NE(it, last.end()) << name;
        const RequestRecord& prev = *it->second;
        EXPECT_EQ(r.attempt, prev.attempt + 1);
        EXPECT_FALSE(prev.allowed);
        ASSERT_TRUE(prev.retry_after.has_value());
        EXPECT_GE(r.time - prev.time, *prev.retry_after) << name << " request " << r.request_id;
        EXPECT_LE(r.attempt, policy.max_retries);
      }
      last[r.request_id] = &r;
    }
    EXPECT_GT(retries, 0) << name;
  }
}

TEST(SimulationRetries, IgnoringClientRetriesAtItsOwnIntervalBounded) {
  auto sim = make("mixed", 7, true);
  run(*sim);
  std::map<std::uint64_t, const RequestRecord*> last;
  std::int64_t retries = 0;
  for (const RequestRecord& r : sim->requests()) {
    if (r.api_key != "pro-legacy") continue;
    const RetryPolicy& policy = sim->scenario().clients[r.client].retry;
    ASSERT_EQ(policy.behaviour, RetryBehaviour::ignore_retry_after);
    if (r.attempt > 0) {
      ++retries;
      const RequestRecord& prev = *last.at(r.request_id);
      EXPECT_EQ(r.time - prev.time, policy.ignore_interval);
      EXPECT_LE(r.attempt, policy.max_retries);
    }
    last[r.request_id] = &r;
  }
  EXPECT_GT(retries, 0);
}

TEST(SimulationBounds, AdmittedCostPerStateNeverExceedsCapacityPlusRefill) {
  for (std::string_view name : {"runaway", "burst", "mixed", "misconfigured-tenant"}) {
    auto sim = make(name);
    const std::vector<StepSample> steps = run(*sim);
    const Policy& policy = sim->policy();
    const std::size_t rows = steps.front().keys.size();
    for (std::size_t k = 0; k < rows; ++k) {
      const TierPolicy* tier = policy.find_tier(steps.front().keys[k].tier);
      ASSERT_NE(tier, nullptr);
      const double capacity = tier->requests.capacity;
      const double rate = tier->requests.refill.per_second();
      // Every interval of whole steps [i, j]: admitted cost <= C + r * (its length).
      for (std::size_t i = 0; i < steps.size(); ++i) {
        double cost = 0;
        for (std::size_t j = i; j < steps.size(); ++j) {
          ASSERT_EQ(steps[j].keys.size(), rows);
          cost += steps[j].keys[k].cost;
          const double span =
              std::chrono::duration<double>(steps[j].time - steps[i].time + steps[i].step).count();
          EXPECT_LE(cost, capacity + rate * span + 1e-9)
              << name << " " << steps[j].keys[k].api_key << "/" << steps[j].keys[k].model;
        }
      }
    }
  }
}

TEST(SimulationSpend, EqualsTokensTimesPricePerMillion) {
  auto sim = make("mixed", 3, true);
  const std::vector<StepSample> steps = run(*sim);
  const SimTotals t = totals(steps);
  double expected = 0;
  std::int64_t tokens = 0;
  for (const RequestRecord& r : sim->requests()) {
    const auto price = sim->policy().model(r.model);
    ASSERT_TRUE(price.ok());
    if (!r.allowed) {
      EXPECT_EQ(r.spend, 0.0);
      continue;
    }
    EXPECT_DOUBLE_EQ(r.spend,
                     static_cast<double>(r.llm_tokens) * (*price)->price_per_million_tokens / 1e6);
    expected += r.spend;
    tokens += r.llm_tokens;
  }
  EXPECT_GT(expected, 0.0);
  EXPECT_NEAR(t.all.spend, expected, 1e-9 * expected);
  EXPECT_EQ(t.all.llm_tokens, tokens);
  for (const StepSample& s : steps) {
    double keys = 0, tiers = 0, models = 0;
    for (const KeyStepSample& k : s.keys) keys += k.spend;
    for (const GroupStepSample& g : s.by_tier) tiers += g.spend;
    for (const GroupStepSample& g : s.by_model) models += g.spend;
    EXPECT_NEAR(keys, s.spend, 1e-9);
    EXPECT_NEAR(tiers, s.spend, 1e-9);
    EXPECT_NEAR(models, s.spend, 1e-9);
  }
}

TEST(SimulationQuota, BurnIsCostAdmittedTodayOverDailyQuota) {
  auto sim = make("misconfigured-tenant", 5, true);
  const std::vector<StepSample> steps = run(*sim);
  double cost = 0;
  for (const RequestRecord& r : sim->requests()) {
    if (r.api_key == "newco-prod" && r.allowed && !r.degraded) cost += r.cost;
  }
  const KeyStepSample* last = nullptr;
  for (const KeyStepSample& k : steps.back().keys) {
    if (k.api_key == "newco-prod") last = &k;
  }
  ASSERT_NE(last, nullptr);
  EXPECT_DOUBLE_EQ(last->quota_burn, cost / 1000.0);  // free: 1,000 cost units a day
}

TEST(SimulationLevels, RunawayDrainsItsBucketWhileIdleStatesStayFull) {
  auto sim = make("runaway");
  const std::vector<StepSample> steps = run(*sim);
  for (const KeyStepSample& k : steps[30].keys) {
    EXPECT_GE(k.level, 0.0);
    EXPECT_LE(k.level, 1.0);
    EXPECT_FALSE(k.occupancy.has_value());  // token buckets in the default policy
    if (k.api_key == "loop-bot") {
      EXPECT_LT(k.level, 2.0 / 60);  // never more than one request's cost in the bucket
    }
  }
  for (const KeyStepSample& k : steps[5].keys) {
    if (k.api_key == "loop-bot") {
      EXPECT_EQ(k.level, 1.0);  // not started yet
    }
  }
}

TEST(SimulationInject, RunawayInjectedAtRuntimeStartsThen) {
  auto sim = make("steady", 7, true);
  std::vector<StepSample> steps;
  for (int i = 0; i < 10; ++i) steps.push_back(sim->step());
  Incident loop;
  loop.kind = IncidentKind::runaway_client;
  loop.api_key = "late-loop";
  loop.tier = "pro";
  loop.model = "deepseek-v3.2";
  loop.rate_per_s = 3000;
  loop.length = seconds(5);
  EXPECT_EQ(sim->inject(loop), Status{});
  for (int i = 0; i < 10; ++i) steps.push_back(sim->step());
  std::int64_t rejected_during = 0, admitted_after = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    for (const KeyStepSample& k : steps[i].keys) {
      if (k.api_key != "late-loop") continue;
      EXPECT_EQ(k.tier, "pro");
      EXPECT_GE(i, 10u);
      if (i < 15) rejected_during += k.rejected;
      if (i >= 15) admitted_after += k.admitted + k.rejected;
    }
    EXPECT_EQ(steps[i].incidents.size(), (i >= 10 && i < 15) ? 1u : 0u) << i;
  }
  EXPECT_GT(rejected_during, 5'000);  // 3000/s against 50/s of cost 1
  EXPECT_EQ(admitted_after, 0);
  EXPECT_EQ(sim->scenario().incidents.size(), 1u);
  // Records made before the injection still name their key and model (no dangling views).
  std::set<std::string> keys;
  for (const ClientSpec& c : sim->scenario().clients) keys.insert(c.api_key);
  for (const RequestRecord& r : sim->requests()) {
    ASSERT_TRUE(keys.contains(std::string(r.api_key))) << r.api_key;
    ASSERT_TRUE(sim->policy().model_index(r.model).has_value()) << r.model;
  }
}

TEST(SimulationInject, BackendOutageFailsOpenAndMarksDegraded) {
  auto sim = make("misconfigured-tenant");
  std::vector<StepSample> steps;
  for (int i = 0; i < 20; ++i) steps.push_back(sim->step());
  Incident outage;
  outage.kind = IncidentKind::backend_outage;
  outage.length = seconds(5);
  EXPECT_EQ(sim->inject(outage), Status{});
  for (int i = 0; i < 20; ++i) steps.push_back(sim->step());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StepSample& s = steps[i];
    if (i >= 20 && i < 25) {
      EXPECT_EQ(s.rejected, 0) << i;
      EXPECT_EQ(s.degraded, s.admitted) << i;
      EXPECT_GT(s.degraded, 0) << i;
    } else {
      EXPECT_EQ(s.degraded, 0) << i;
    }
  }
  EXPECT_GT(steps[27].rejected, 0);  // limiting is back after the outage
}

TEST(SimulationInject, BadIncidentsAreRefusedWithTheReason) {
  Policy strict = default_policy();
  strict.default_tier.reset();  // unknown keys are refused
  auto spec = make_scenario("steady", kRun);
  ASSERT_TRUE(spec.ok());
  auto created = Simulation::create(strict, std::move(*spec));
  ASSERT_TRUE(created.ok()) << created.error();
  Simulation& sim = **created;
  struct Row {
    const char* model;
    const char* tier;
    const char* key;
    double rate;
    const char* names;
  };
  for (const Row& r :
       {Row{"gpt-9", "pro", "k", 10, "gpt-9"}, Row{"gpt-4.1", "gold", "k", 10, "gold"},
        Row{"gpt-4.1", "pro", "", 10, "empty api key"}, Row{"gpt-4.1", "pro", "k", -1, "rate"}}) {
    Incident burst;
    burst.kind = IncidentKind::burst;
    burst.api_key = r.key;
    burst.tier = r.tier;
    burst.model = r.model;
    burst.rate_per_s = r.rate;
    test::expect_refused(sim.inject(burst), r.names);
  }
  sim.step();
  EXPECT_TRUE(sim.scenario().incidents.empty());
}

TEST(SimulationPolicy, PolicyKeysWinOverScenarioTiers) {
  Policy policy = default_policy();
  policy.keys["enterprise-bank"] = *policy.tier_index("free");
  auto spec = make_scenario("steady", kRun);
  ASSERT_TRUE(spec.ok());
  auto sim = Simulation::create(policy, std::move(*spec));
  ASSERT_TRUE(sim.ok()) << sim.error();
  const SimTotals t = totals(run(**sim));
  EXPECT_EQ(t.by_key.at("enterprise-bank").tier, "free");
  EXPECT_GT(t.by_key.at("enterprise-bank").rejected, 0);
}

TEST(SimulationPolicy, ScenarioModelMissingFromPolicyIsAnError) {
  auto spec = make_scenario("steady", kRun);
  ASSERT_TRUE(spec.ok());
  spec->clients[0].models.push_back(default_model_share("llama-5", 1));
  auto sim = Simulation::create(default_policy(), std::move(*spec));
  ASSERT_FALSE(sim.ok());
  EXPECT_NE(sim.error().find("llama-5"), std::string::npos) << sim.error();
}

}  // namespace
}  // namespace limitscope
