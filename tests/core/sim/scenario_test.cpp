// Verifies the named scenarios (all valid, unknown names listed) and incidents (names, the
// clients they add, describe()).

#include "core/sim/scenario.h"

#include <gtest/gtest.h>

#include <set>

namespace limitscope {
namespace {

using std::chrono::seconds;

TEST(Scenarios, EveryNameBuildsValidClientsWithUniqueKeys) {
  ASSERT_EQ(scenario_names().size(), 6u);
  for (std::string_view name : scenario_names()) {
    auto s = make_scenario(name, seconds(60));
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(s->name, name);
    EXPECT_FALSE(s->description.empty());
    EXPECT_FALSE(s->clients.empty());
    std::set<std::string> keys;
    for (const ClientSpec& c : s->clients) {
      EXPECT_EQ(validate(c), Status{}) << name;
      EXPECT_TRUE(keys.insert(c.api_key).second) << name << " repeats " << c.api_key;
      EXPECT_FALSE(c.description.empty());
    }
  }
}

TEST(Scenarios, UnknownNameListsTheKnownOnes) {
  auto s = make_scenario("stampede", seconds(60));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("stampede"), std::string::npos);
  EXPECT_NE(s.error().find("misconfigured-tenant"), std::string::npos);
}

TEST(Scenarios, TimesScaleWithTheDuration) {
  auto short_run = make_scenario("burst", seconds(60));
  auto long_run = make_scenario("burst", seconds(600));
  ASSERT_TRUE(short_run.ok() && long_run.ok());
  const Burst& a = short_run->clients.back().traffic.bursts.at(0);
  const Burst& b = long_run->clients.back().traffic.bursts.at(0);
  EXPECT_EQ(b.start, 10 * a.start);
  EXPECT_EQ(b.length, 10 * a.length);
  auto diurnal = make_scenario("diurnal", seconds(90));
  ASSERT_TRUE(diurnal.ok());
  for (const ClientSpec& c : diurnal->clients) EXPECT_EQ(c.traffic.day_length, Nanos{seconds(90)});
}

TEST(Scenarios, MixedCoversEveryTierAndRoleAndHasOneIncident) {
  auto s = make_scenario("mixed", seconds(60));
  ASSERT_TRUE(s.ok());
  std::set<std::string> tiers, models, roles;
  std::set<RetryBehaviour> behaviours;
  for (const ClientSpec& c : s->clients) {
    tiers.insert(c.tier);
    roles.insert(std::string(to_string(c.role)));
    behaviours.insert(c.retry.behaviour);
    for (const ModelShare& m : c.models) models.insert(m.model);
  }
  EXPECT_EQ(tiers, (std::set<std::string>{"free", "pro", "enterprise"}));
  EXPECT_EQ(models.size(), 4u);
  EXPECT_TRUE(roles.contains("bursty") && roles.contains("diurnal") && roles.contains("steady"));
  EXPECT_TRUE(behaviours.contains(RetryBehaviour::ignore_retry_after));
  EXPECT_EQ(s->incidents.size(), 1u);
}

TEST(Incidents, KindsRoundTripByName) {
  for (IncidentKind k : {IncidentKind::runaway_client, IncidentKind::burst,
                         IncidentKind::misconfigured_tenant, IncidentKind::backend_outage}) {
    EXPECT_EQ(parse_incident_kind(to_string(k)), k);
  }
  EXPECT_EQ(parse_incident_kind("backend_outage"), IncidentKind::backend_outage);
  EXPECT_EQ(parse_incident_kind("meteor"), std::nullopt);
}

TEST(Incidents, EachKindAddsTheClientItDescribes) {
  Incident i;
  i.api_key = "k";
  i.model = "gemini-2.5-flash";
  i.rate_per_s = 1000;
  i.at = seconds(5);
  i.length = seconds(10);

  i.kind = IncidentKind::runaway_client;
  auto c = incident_clients(i);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].role, ClientRole::runaway);
  EXPECT_EQ(c[0].retry.behaviour, RetryBehaviour::give_up);
  EXPECT_EQ(c[0].traffic.start, Nanos{seconds(5)});
  EXPECT_EQ(c[0].traffic.stop, Nanos{seconds(15)});
  EXPECT_EQ(c[0].traffic.rate_at(seconds(6)), 1000);
  EXPECT_EQ(i.describe(), "runaway-client key=k model=gemini-2.5-flash at=5s for 10s 1000/s");

  i.kind = IncidentKind::misconfigured_tenant;
  i.length = Nanos{0};
  c = incident_clients(i);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].role, ClientRole::misconfigured);
  EXPECT_EQ(c[0].retry.behaviour, RetryBehaviour::honour_retry_after);
  EXPECT_FALSE(c[0].traffic.stop.has_value());
  EXPECT_EQ(c[0].tier, "free");

  i.kind = IncidentKind::burst;
  EXPECT_EQ(incident_clients(i).at(0).role, ClientRole::bursty);

  i.kind = IncidentKind::backend_outage;
  EXPECT_TRUE(incident_clients(i).empty());
  EXPECT_EQ(i.describe(), "backend-outage at=5s until the end");
}

}  // namespace
}  // namespace limitscope
