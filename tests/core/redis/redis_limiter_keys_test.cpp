// Verifies what decide.lua does around a decision: state TTLs are the time until idle, a rule's
// keys share one cluster slot, a refused log write or a late call decides nothing, a changed
// config (kept, composite or on the lean path) is in force at the next decision, a call that
// fails stores nothing of its earlier decisions, old hash states
// are read until replaced, and the decision log is capped, sampled and carries tokens and model.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "core/limiter/algorithms.h"
#include "core/redis/limiter_scripts.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/script.h"
#include "core/redis/shadow_config.h"
#include "limiter_test_support.h"
#include "support/limit_params_builders.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

TEST(RedisLimiterKeys, StateTtlIsTheTimeUntilIdle) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  struct Row {
    LimitParams p;
    std::int64_t ttl_ms;  // after one decision of cost 4 at a window start
  } rows[] = {
      // 4 tokens at 5/s, in state format 1 (a rule not switched to format 2, whose TTL is a
      // second longer: token_bucket_state_test.cpp; docs/redis-state.md)
      {bucket(Algorithm::token_bucket, 10, 5, 1s), 800},
      {bucket(Algorithm::gcra, 10, 5, 1s), 800},           // tat = now + 4·200ms
      {window(Algorithm::sliding_log, 10, 2s), 2000},      // the entry leaves the window
      {window(Algorithm::sliding_counter, 10, 2s), 4000},  // curr weighs until the next window ends
      {window(Algorithm::fixed_window, 10, 2s), 2000},     // the window ends
  };
  const RedisLimiter limiter;
  DecideOptions o;
  o.now_us = kEpochUs;  // a multiple of 2 s: a window start
  for (const Row& row : rows) {
    const std::string rule(to_string(row.p.algorithm));
    put(c, KeySchema{}, rule, single_limit(row.p));
    auto d = limiter.decide(c, rule, "alice", 4, o);
    ASSERT_TRUE(d.ok()) << d.error().message;
    ASSERT_TRUE(d->decision.allowed);
    const Value ttl = must(c, {"PTTL", limiter.schema().state_key(rule, "alice")});
    EXPECT_LE(ttl.integer, row.ttl_ms) << rule;
    EXPECT_GT(ttl.integer, row.ttl_ms - 1000) << rule;  // the test may take a while
  }
}

TEST(RedisLimiterKeys, ClusterSlotMatchesRedisAndTheRuleSharesOne) {
  // Reference values from the Redis Cluster specification / CLUSTER KEYSLOT.
  EXPECT_EQ(cluster_slot("123456789"), 0x31C3 % 16384);
  EXPECT_EQ(cluster_slot("somekey"), 11058);
  EXPECT_EQ(cluster_slot("foo{hash_tag}"), 2515);
  EXPECT_EQ(cluster_slot("{}x"), cluster_slot("{}x"));
  const KeySchema schema("gw:");
  const int slot = cluster_slot(schema.config_key("pro"));
  for (const std::string& k :
       {schema.state_key("pro", "alice"), schema.state_key("pro", "bob:gpt-4.1") + ":tpm",
        schema.state_key("pro", "{evil}"), schema.audit_key("pro"), schema.decisions_key("pro")}) {
    EXPECT_EQ(cluster_slot(k), slot) << k;
  }
  EXPECT_NE(cluster_slot(schema.config_key("free")), slot);
}

// A log write the server refuses (here the stream key holds a string) fails that decision
// before its state is written; the call's unlogged decisions are made as usual.
TEST(RedisLimiterKeys, ARefusedLogWriteFailsItsDecisionAndWritesNothing) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const KeySchema schema;
  put(c, schema, "r", single_limit(bucket(Algorithm::token_bucket, 10, 1, 1s)));
  must(c, {"SET", schema.decisions_key("r"), "not a stream"});
  const RedisLimiter limiter(schema);
  std::vector<DecideRequest> batch(3);
  batch[0].key = "unlogged";
  batch[1].key = "logged";
  batch[1].log = true;
  batch[2].key = "unlogged";
  auto results = limiter.decide_batch(c, "r", batch, 16);
  ASSERT_TRUE(results.ok()) << results.error().message;
  ASSERT_EQ(results->size(), 3u);
  ASSERT_TRUE((*results)[0].ok());
  EXPECT_EQ((*results)[0]->decision.remaining, 9);
  ASSERT_FALSE((*results)[1].ok());
  EXPECT_EQ((*results)[1].error().message.rfind(
                "LSLOG decision log " + schema.decisions_key("r") + ": WRONGTYPE", 0),
            0u)
      << (*results)[1].error().message;
  EXPECT_EQ(must(c, {"EXISTS", schema.state_key("r", "logged")}).integer, 0);
  ASSERT_TRUE((*results)[2].ok());
  EXPECT_EQ((*results)[2]->decision.remaining, 8);
  auto one = limiter.decide(c, "r", batch[1]);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().kind, ErrorKind::reply);
  EXPECT_EQ(must(c, {"EXISTS", schema.state_key("r", "logged")}).integer, 0);
}

// A call the server runs past the caller's deadline (on the server's clock) decides and
// writes nothing, and names the server's time; one within it decides as usual.
TEST(RedisLimiterKeys, ACallPastItsDeadlineDecidesNothing) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const KeySchema schema;
  put(c, schema, "r", single_limit(bucket(Algorithm::token_bucket, 10, 1, 1s)));
  const RedisLimiter limiter(schema);
  auto now = read_server_time_us(c);
  ASSERT_TRUE(now.ok()) << now.error().message;
  DecideOptions late;
  late.deadline_us = *now - 1;
  auto refused = limiter.decide(c, "r", "alice", 1, late);
  ASSERT_FALSE(refused.ok());
  const auto named = late_server_time_us(refused.error());
  ASSERT_TRUE(named.has_value()) << refused.error().message;
  EXPECT_GE(*named, *now);
  EXPECT_EQ(must(c, {"EXISTS", schema.state_key("r", "alice")}).integer, 0);
  DecideOptions in_time;
  in_time.deadline_us = *now + 3'600'000'000LL;
  auto decided = limiter.decide(c, "r", "alice", 1, in_time);
  ASSERT_TRUE(decided.ok()) << decided.error().message;
  EXPECT_EQ(decided->decision.remaining, 9);
  EXPECT_FALSE(late_server_time_us(make_redis_error(ErrorKind::reply, "LSCONFIG x")).has_value());
}

TEST(RedisLimiterKeys, ConfigChangeAppliesAtTheNextDecision) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const KeySchema schema;
  const RedisLimiter limiter(schema);
  DecideOptions o;
  o.now_us = kEpochUs;
  const auto v1 = put(c, schema, "r", single_limit(bucket(Algorithm::token_bucket, 1, 1, 1h)));
  auto first = limiter.decide(c, "r", "k", 1, o);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->decision.allowed);
  EXPECT_EQ(first->config_version, v1);
  auto second = limiter.decide(c, "r", "k", 1, o);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->decision.allowed);
  // Capacity 1 -> 5 and refill 1/h -> 3600/h: the stored level (0) refills at the new rate.
  const auto v2 = put(c, schema, "r", single_limit(bucket(Algorithm::token_bucket, 5, 3600, 1h)));
  o.now_us = kEpochUs + 1'000'000;  // 1 s later: 1 token at 3600/h
  auto third = limiter.decide(c, "r", "k", 1, o);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->decision.allowed);
  EXPECT_EQ(third->config_version, v2);
  EXPECT_EQ(third->decision.limit, 5);
  // A switch to a window algorithm: state keys of another shape start fresh.
  put(c, schema, "r", single_limit(window(Algorithm::fixed_window, 2, 1s)));
  auto fourth = limiter.decide(c, "r", "other", 2, o);
  ASSERT_TRUE(fourth.ok()) << fourth.error().message;
  EXPECT_TRUE(fourth->decision.allowed);
  EXPECT_EQ(fourth->decision.remaining, 0);
}

// A server, a connection and a limiter deciding at kEpochUs (test-mode instants).
struct Rig {
  std::unique_ptr<RedisServer> server = RedisServer::start();
  Connection c = connect(*server);
  KeySchema schema;
  RedisLimiter limiter{schema};
  DecideOptions o = [] {
    DecideOptions d;
    d.now_us = kEpochUs;
    return d;
  }();
};

TEST(RedisLimiterKeys, AKeptCompositeConfigGivesWayToTheNextChange) {
  Rig rig;
  auto& [server, c, schema, limiter, o] = rig;
  RuleConfig rc;
  rc.limits.push_back(NamedLimit{"rpm", bucket(Algorithm::token_bucket, 2, 1, 1h)});
  rc.limits.push_back(NamedLimit{"tpm", bucket(Algorithm::gcra, 100, 1, 1h)});
  put(c, schema, "r", rc);
  ASSERT_TRUE(limiter.decide(c, "r", "k", 1, o)->decision.allowed);
  ASSERT_TRUE(limiter.decide(c, "r", "k", 1, o)->decision.allowed);
  auto third = limiter.decide(c, "r", "k", 1, o);
  ASSERT_FALSE(third->decision.allowed);
  EXPECT_EQ(third->binding_limit, "rpm");
  // rpm capacity 2 -> 3: the stored level (0) now has room for nothing, then a third limit.
  rc.limits[0].params.capacity = 3;
  rc.limits[0].params.refill = Rate{3600, 1h};
  rc.limits.push_back(NamedLimit{"day", bucket(Algorithm::token_bucket, 1, 1, 24h)});
  put(c, schema, "r", rc);
  o.now_us = kEpochUs + 1'000'000;  // 1 token of rpm refilled at the new rate
  auto fourth = limiter.decide(c, "r", "k", 1, o);
  ASSERT_TRUE(fourth.ok()) << fourth.error().message;
  EXPECT_TRUE(fourth->decision.allowed);
  auto fifth = limiter.decide(c, "r", "k", 1, o);
  ASSERT_TRUE(fifth.ok());
  EXPECT_FALSE(fifth->decision.allowed);
  EXPECT_EQ(fifth->binding_limit, "day") << "the limit added by the change is in force";
}

// The lean path (a single token-bucket or GCRA config, plain costs) decides only while the
// config it was kept under (FCALL) or read with (EVALSHA, which keeps nothing) is current: an
// override, a shadow, a second limit and a settlement riding on a decision are each in force
// at the next decision after them, on both paths to the Lua.
void lean_path_gives_way(ScriptMode mode) {
  Rig rig;
  auto& [server, c, schema, limiter, o] = rig;
  c.set_script_mode(mode);
  RuleConfig rc = single_limit(bucket(Algorithm::token_bucket, 2, 1, 1h));
  put(c, schema, "r", rc);
  const auto decide = [&](const std::string& key) {
    auto d = limiter.decide(c, "r", key, 1, o);
    if (!d) throw std::runtime_error(d.error().message);
    return *d;
  };
  EXPECT_TRUE(decide("k").decision.allowed);  // parsed and kept (lean)
  EXPECT_TRUE(decide("k").decision.allowed);  // lean
  EXPECT_FALSE(decide("k").decision.allowed);
  EXPECT_EQ(decide("o").decision.limit, 2);
  // An override of o: its own capacity at the next decision.
  put(c, schema, "r", with_override(rc, "o", bucket(Algorithm::token_bucket, 5, 1, 1h)));
  EXPECT_EQ(decide("o").decision.limit, 5);
  EXPECT_EQ(decide("j").decision.limit, 2) << "other keys keep the rule's";
  // A shadow: evaluated from the next decision on, on lean-looking calls too.
  put(c, schema, "r", rc);
  EXPECT_FALSE(decide("j").shadow_allowed.has_value());
  ASSERT_TRUE(set_shadow(c, schema, "r", single_limit(bucket(Algorithm::token_bucket, 1, 1, 1h)),
                         ChangeInfo{"test", "shadow", std::nullopt}));
  auto shadowed = decide("fresh");
  ASSERT_TRUE(shadowed.shadow_allowed.has_value());
  EXPECT_TRUE(*shadowed.shadow_allowed);
  ASSERT_TRUE(clear_shadow(c, schema, "r", ChangeInfo{"test", "clear", std::nullopt}));
  EXPECT_FALSE(decide("fresh2").shadow_allowed.has_value());
  // A second limit: a composite from the next decision on.
  RuleConfig two;
  two.limits.push_back(NamedLimit{"rpm", bucket(Algorithm::token_bucket, 2, 1, 1h)});
  two.limits.push_back(NamedLimit{"day", bucket(Algorithm::gcra, 1, 1, 24h)});
  put(c, schema, "r", two);
  EXPECT_TRUE(decide("n").decision.allowed);
  auto second = decide("n");
  EXPECT_FALSE(second.decision.allowed);
  EXPECT_EQ(second.binding_limit, "day");
  // Back to one limit (lean again), then a settlement riding on a decision takes the general
  // path for that call and the lean path's state after it.
  put(c, schema, "r", rc);
  EXPECT_TRUE(decide("s").decision.allowed);  // 1 left
  DecideRequest settled{"s", {1.0}, false};
  settled.settle_delta = -1;  // refund 1: 2, then this decision takes 1
  auto with_settle = limiter.decide(c, "r", settled, o);
  ASSERT_TRUE(with_settle.ok()) << with_settle.error().message;
  EXPECT_EQ(with_settle->decision.remaining, 1);
  EXPECT_EQ(decide("s").decision.remaining, 0);
  EXPECT_FALSE(decide("s").decision.allowed);
  // The path asked for is the one that ran (unknown: the connection found Functions).
  EXPECT_EQ(c.script_mode(), mode == ScriptMode::scripts ? mode : ScriptMode::functions);
}

TEST(RedisLimiterKeys, TheLeanPathGivesWayToEveryChangeAtTheNextDecision) {
  lean_path_gives_way(ScriptMode::unknown);  // Functions: configs are kept
}

TEST(RedisLimiterKeys, TheEvalshaLeanPathGivesWayToEveryChangeAtTheNextDecision) {
  lean_path_gives_way(ScriptMode::scripts);
}

// A call that fails with an error reply (a bad argument, a bad override) decides and stores
// nothing, even when the error is its last decision's: the states of the decisions before it
// (one stored at once, one held for the same key's later decision) stay as they were, since
// the caller answers every request of the call by its failure policy and cannot know which
// would have been charged. The next good call decides both keys from full buckets. On both
// paths to the Lua.
void an_error_stores_nothing(ScriptMode mode) {
  Rig rig;
  auto& [server, c, schema, limiter, o] = rig;
  c.set_script_mode(mode);
  put(c, schema, "r",
      with_override(single_limit(bucket(Algorithm::token_bucket, 5, 1, 1h)), "v",
                    bucket(Algorithm::token_bucket, 9, 1, 1h)));
  const auto nothing_stored = [&](const std::string& what) {
    for (const char* key : {"a", "b"}) {
      EXPECT_EQ(must(c, {"EXISTS", schema.state_key("r", key)}).integer, 0) << what << ": " << key;
    }
  };
  // a once, b twice (its first write held), then the failing decision.
  const auto batch = [&](DecideRequest last) {
    std::vector<DecideRequest> rs{{"a"}, {"b"}, {"b"}, std::move(last)};
    auto r = limiter.decide_batch(c, "r", rs, 16, o);
    if (!r) throw std::runtime_error(r.error().message);
    return std::move(r).value();
  };
  // Two costs for a one-limit rule: LSARG.
  DecideRequest two{"c", {1, 2}};
  for (const auto& r : batch(two)) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("LSARG expected 1 or 1 costs"), std::string::npos)
        << r.error().message;
  }
  nothing_stored("costs");
  // A decision's own instant that is no number: LSARG.
  auto bad_now =
      eval(c, decide_script(),
           {schema.config_key("r"), schema.decisions_key("r"), schema.config_stamp_key("r"),
            schema.state_key("r", "a"), schema.state_key("r", "b"), schema.state_key("r", "b"),
            schema.state_key("r", "c")},
           {std::to_string(kEpochUs), "1", "1", "1", "1|soon||"});
  ASSERT_FALSE(bad_now.ok());
  EXPECT_NE(bad_now.error().message.find("LSARG now must be"), std::string::npos)
      << bad_now.error().message;
  nothing_stored("now");
  // An override of z written by hand with a bad capacity (the stamp rewritten, as the schema
  // asks of hand edits): LSCONFIG naming z.
  must(c, {"HSET", schema.config_key("r"), "o.capacity.z", "-1"});
  must(c, {"SET", schema.config_stamp_key("r"), "hand edit"});
  for (const auto& r : batch(DecideRequest{"z"})) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("override of z"), std::string::npos) << r.error().message;
  }
  nothing_stored("override");
  // Nothing was charged: full buckets.
  auto good = limiter.decide_batch(c, "r", {{"a"}, {"b"}, {"b"}}, 16, o);
  ASSERT_TRUE(good.ok()) << good.error().message;
  std::vector<double> left;
  for (const auto& r : *good) left.push_back(r.ok() ? r->decision.remaining : -1);
  EXPECT_EQ(left, (std::vector<double>{4, 4, 3}));
  EXPECT_EQ(c.script_mode(), mode == ScriptMode::scripts ? mode : ScriptMode::functions);
}

TEST(RedisLimiterKeys, ACallThatFailsStoresNothingOfItsEarlierDecisions) {
  an_error_stores_nothing(ScriptMode::unknown);  // Functions
}

TEST(RedisLimiterKeys, AnEvalshaCallThatFailsStoresNothingOfItsEarlierDecisions) {
  an_error_stores_nothing(ScriptMode::scripts);
}

TEST(RedisLimiterKeys, AnOldHashStateIsReadUntilItHasExpiredAndReplacedByTheNextWrite) {
  Rig rig;
  auto& [server, c, schema, limiter, o] = rig;
  const auto p = bucket(Algorithm::token_bucket, 10, 1, 1s);
  put(c, schema, "r", single_limit(p));
  const std::string stamp = schema.config_stamp_key("r");
  const std::string empty_key = schema.state_key("r", "empty");
  // A rule configured before the stamp existed: no stamp, and a state in the old hash form.
  must(c, {"DEL", stamp});
  must(c, {"HSET", empty_key, "tokens", "0", "ts", std::to_string(kEpochUs)});
  auto d = limiter.decide(c, "r", "empty", 1, o);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(d->decision.allowed) << "the old hash holds no token";
  o.now_us = kEpochUs + 1'000'000;
  d = limiter.decide(c, "r", "empty", 1, o);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->decision.allowed) << "one token refilled";
  EXPECT_EQ(d->decision.remaining, 0);
  EXPECT_EQ(must(c, {"TYPE", empty_key}).str, "string") << "migrated by the write";
  // The first `config set` after the upgrade marks the stamp: the old hashes are still read
  // until the last of them has expired (10 s to refill from empty, plus an hour of debt).
  const std::string other = schema.state_key("r", "other");
  must(c, {"HSET", other, "tokens", "0", "ts", std::to_string(kEpochUs + 1'000'000)});
  // The mark is the server's time of the change plus 10 s and an hour (and 1 ms): between the
  // server's times read before and after it, however long the change took.
  auto before = read_server_time_us(c);
  ASSERT_TRUE(before.ok());
  put(c, schema, "r", single_limit(p));
  const std::string mark = must(c, {"GET", stamp}).str;
  ASSERT_NE(mark.find(" legacy "), std::string::npos) << mark;
  const std::int64_t until = std::stoll(mark.substr(mark.find(" legacy ") + 8));
  auto time = read_server_time_us(c);
  ASSERT_TRUE(time.ok());
  EXPECT_GE(until, *before + 3'610'000'000LL);
  EXPECT_LE(until, *time + 3'610'001'000LL);
  d = limiter.decide(c, "r", "other", 1, o);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->decision.allowed) << "read from the old hash while it may exist";
  // Past the mark a missing string is a fresh bucket (and no hash is looked for).
  o.now_us = until + 1;
  d = limiter.decide(c, "r", "other", 1, o);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->decision.allowed);
  EXPECT_EQ(d->decision.remaining, 9);
  // A later change keeps the mark; a rule created with a stamp never gets one.
  put(c, schema, "r", single_limit(bucket(Algorithm::token_bucket, 20, 1, 1s)));
  EXPECT_NE(must(c, {"GET", stamp}).str.find(" legacy " + std::to_string(until)),
            std::string::npos);
  put(c, schema, "fresh", single_limit(p));
  EXPECT_EQ(must(c, {"GET", schema.config_stamp_key("fresh")}).str.find("legacy"),
            std::string::npos);
}

TEST(RedisLimiterKeys, DecisionLogIsCappedAndSampledByTheCaller) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const KeySchema schema;
  put(c, schema, "r", single_limit(bucket(Algorithm::gcra, 100, 10, 1s)));
  std::vector<DecideRequest> reqs;
  for (int i = 0; i < 3000; ++i) {
    DecideRequest r;
    r.key = "k" + std::to_string(i % 7);
    r.log = i % 3 == 0;  // the caller's sampling: every third
    reqs.push_back(r);
  }
  DecideOptions o;
  o.log_max_len = 200;
  auto res = RedisLimiter(schema).decide_batch(c, "r", reqs, 16, o);
  ASSERT_TRUE(res.ok()) << res.error().message;
  const Value len = must(c, {"XLEN", schema.decisions_key("r")});
  EXPECT_GE(len.integer, 200);   // MAXLEN ~ trims whole stream nodes only
  EXPECT_LT(len.integer, 1000);  // ... but does trim (1000 were logged)
  const Value last = must(c, {"XREVRANGE", schema.decisions_key("r"), "+", "-", "COUNT", "1"});
  ASSERT_EQ(last.elements.size(), 1u);
  const auto& kv = last.elements[0].elements[1].elements;
  std::map<std::string, std::string> f;
  for (std::size_t i = 0; i + 1 < kv.size(); i += 2) f[kv[i].str] = kv[i + 1].str;
  EXPECT_EQ(f["key"], "k1");  // the last logged request is i = 2997 = 428·7 + 1
  EXPECT_EQ(f["cost"], "1");
  ASSERT_TRUE((*res)[2997].ok());
  EXPECT_EQ(f["allowed"], (*res)[2997]->decision.allowed ? "1" : "0");
  EXPECT_TRUE(f.count("t") && f.count("level"));
}

TEST(RedisLimiterKeys, ALoggedDecisionCarriesItsTokensAndModelWhenGiven) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const KeySchema schema;
  put(c, schema, "r", single_limit(bucket(Algorithm::token_bucket, 100, 10, 1s)));
  std::vector<DecideRequest> reqs(4);
  reqs[0].key = "plain";
  reqs[0].log = true;
  reqs[1].key = "priced";
  reqs[1].log = true;
  reqs[1].llm_tokens = 1500;
  reqs[1].model = "vendor:model:v2";  // colons in the model stay in the model
  reqs[2].key = "model-only";
  reqs[2].log = true;
  reqs[2].model = "m";
  reqs[3].key = "unlogged";
  reqs[3].llm_tokens = 7;  // ignored: not logged
  auto res = RedisLimiter(schema).decide_batch(c, "r", reqs, 16);
  ASSERT_TRUE(res.ok()) << res.error().message;
  const Value all = must(c, {"XRANGE", schema.decisions_key("r"), "-", "+"});
  ASSERT_EQ(all.elements.size(), 3u);
  std::vector<std::map<std::string, std::string>> f(3);
  for (std::size_t e = 0; e < 3; ++e) {
    const auto& kv = all.elements[e].elements[1].elements;
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) f[e][kv[i].str] = kv[i + 1].str;
  }
  EXPECT_EQ(f[0].count("tokens") + f[0].count("model"), 0u);
  EXPECT_EQ(f[1]["key"], "priced");
  EXPECT_EQ(f[1]["tokens"], "1500");
  EXPECT_EQ(f[1]["model"], "vendor:model:v2");
  EXPECT_EQ(f[2].count("tokens"), 0u);
  EXPECT_EQ(f[2]["model"], "m");
}

TEST(RedisLimiterKeys, ABadLogFlagIsRefusedBeforeAnyDecision) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const KeySchema schema;
  put(c, schema, "r", single_limit(bucket(Algorithm::token_bucket, 100, 10, 1s)));
  // Two decisions in one call; the second's log flag is malformed.
  for (const std::string flag : {"yes", "1:12x:m", "1:5"}) {
    auto reply =
        eval(c, decide_script(),
             {schema.config_key("r"), schema.decisions_key("r"), schema.config_stamp_key("r"),
              schema.state_key("r", "a"), schema.state_key("r", "b")},
             {",1000", "1|||1", "1|||" + flag});
    ASSERT_FALSE(reply.ok()) << flag;
    EXPECT_NE(reply.error().message.find("LSARG log flag"), std::string::npos)
        << reply.error().message;
    EXPECT_NE(reply.error().message.find(flag), std::string::npos) << reply.error().message;
  }
  EXPECT_EQ(must(c, {"EXISTS", schema.state_key("r", "a")}).integer, 0) << "nothing decided";
  EXPECT_EQ(must(c, {"EXISTS", schema.decisions_key("r")}).integer, 0) << "nothing logged";
}

}  // namespace
}  // namespace limitscope::redis
