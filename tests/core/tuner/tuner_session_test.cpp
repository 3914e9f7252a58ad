// Verifies the Tuner's session without Qt: what-ifs of one side coalesce while one is in flight
// and replies made stale (a new trace, an invalid setting) are not taken; a sweep's inputs are
// refused with the reason (no trace, min > max, a single-valued axis with steps, the memory
// cap) and otherwise become the spec and constraints entered; Apply and Undo are refused in
// order (writes not allowed, an invalid candidate, no key for an override; a shadow of one key);
// the live setting follows the scope; the trace's facts are the core passes' own results (none once
// cancelled); and the texts say what happened in the operator's words (a load's bad lines,
// a key's name, the audit entry's author).
#include "core/tuner/tuner_session.h"

#include <gtest/gtest.h>

#include <atomic>

#include "support/limit_params_builders.h"

namespace limitscope::tuner {
namespace {

SharedTrace small_trace(int keys = 3, int per_key = 50) {
  auto t = std::make_shared<trace::Trace>();
  for (int i = 0; i < per_key; ++i) {
    for (int k = 0; k < keys; ++k)
      t->add(std::int64_t{i} * 100'000'000 + k, "k" + std::to_string(k), 1 + k);
  }
  return t;
}

// The Status of a check refused with `why`.
Status refused(const std::string& why) {
  return make_error(why);
}

SharedSeries series_of(std::uint64_t rejected) {
  auto s = std::make_shared<WhatIfSeries>();
  s->total.rejected = rejected;
  return s;
}

TEST(TunerSession, WhatIfsCoalesceAndStaleRepliesAreDropped) {
  TunerSession s;
  s.adopt(small_trace(), {});
  const auto first = s.request_whatif(TunerSession::candidate);
  ASSERT_TRUE(first.has_value());
  // Two more edits while the first is computed: neither is sent, the newest waits.
  EXPECT_FALSE(s.request_whatif(TunerSession::candidate).has_value());
  EXPECT_FALSE(s.request_whatif(TunerSession::candidate).has_value());
  EXPECT_FALSE(s.whatif_idle());
  const auto a = series_of(7);
  EXPECT_TRUE(s.finish_whatif(TunerSession::candidate, *first, a));  // ask for the newest
  EXPECT_EQ(s.series(TunerSession::candidate), a);
  const auto second = s.request_whatif(TunerSession::candidate);
  ASSERT_TRUE(second.has_value());
  EXPECT_GT(*second, *first);
  // A new trace while it is in flight: its reply belongs to the old trace.
  s.adopt(small_trace(2), {});
  EXPECT_FALSE(s.finish_whatif(TunerSession::candidate, *second, series_of(9)));
  EXPECT_EQ(s.series(TunerSession::candidate), a);
  EXPECT_TRUE(s.whatif_idle());
  // The sides are independent; an invalid setting drops its series and its reply in flight.
  const auto cur = s.request_whatif(TunerSession::current);
  ASSERT_TRUE(cur.has_value());
  EXPECT_TRUE(s.request_whatif(TunerSession::candidate).has_value());
  s.drop_whatif(TunerSession::current);
  EXPECT_EQ(s.series(TunerSession::current), nullptr);
  EXPECT_FALSE(s.finish_whatif(TunerSession::current, *cur, series_of(1)));
  EXPECT_EQ(s.series(TunerSession::current), nullptr);
}

TEST(TunerSession, ScenarioAndKeyCountRepliesOnlyCountWhenNewest) {
  TunerSession s;
  const int outage = s.next_scenario(0);
  const int routing = s.next_scenario(1);
  EXPECT_TRUE(s.scenario_current(0, outage));
  EXPECT_TRUE(s.scenario_current(1, routing));
  EXPECT_FALSE(s.scenario_current(0, s.next_scenario(0) - 1));
  s.adopt(small_trace(), {});
  EXPECT_FALSE(s.scenario_current(1, routing));
  const int k = s.next_key_counts();
  EXPECT_TRUE(s.key_counts_current(k));
  s.next_key_counts();
  EXPECT_FALSE(s.key_counts_current(k));
}

SweepInputs inputs(double x_min, double x_max, int x_steps, double y_min, double y_max,
                   int y_steps) {
  SweepInputs in;
  in.base = test::bucket(Algorithm::token_bucket, 10, 1);
  in.x = {x_min, x_max, x_steps, Spacing::log};
  in.y = {y_min, y_max, y_steps, Spacing::linear};
  in.threads = 3;
  return in;
}

TEST(TunerSession, SweepInputsAreCheckedWithTheReason) {
  const SharedTrace trace = small_trace();
  EXPECT_EQ(check_sweep(nullptr, inputs(1, 10, 3, 1, 10, 3)).error(), "Load a trace first.");
  EXPECT_EQ(check_sweep(trace.get(), inputs(10, 1, 3, 1, 10, 3)).error(),
            "Sweep refused: each axis needs min ≤ max.");
  EXPECT_EQ(check_sweep(trace.get(), inputs(1, 10, 3, 5, 5, 2)).error(),
            "Sweep refused: an axis with min = max needs 1 step.");
  EXPECT_TRUE(check_sweep(trace.get(), inputs(1, 10, 3, 5, 5, 1)).ok());
  // 20,000 keys × 64 × 64 settings of 24 bytes is about 2 GB: above the cap.
  auto many = std::make_shared<trace::Trace>();
  for (int k = 0; k < 20'000; ++k) many->add(k, "k" + std::to_string(k), 1);
  const auto big = check_sweep(many.get(), inputs(1, 10, 64, 1, 10, 64));
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().find("20000 keys × 4096 settings need"), std::string::npos) << big.error();
  EXPECT_NE(big.error().find("above the 1024 MB cap"), std::string::npos) << big.error();

  SweepInputs in = inputs(1, 10, 4, 0.5, 8, 5);
  in.max_429 = 0.01;
  in.max_well_behaved_429 = 0.001;
  in.max_key_spend_per_min = 2.5;
  in.well_behaved_factor = 7;
  in.max_spend_increase = 0.2;
  const auto r = check_sweep(trace.get(), in);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->spec.x.steps, 4);
  EXPECT_EQ(r->spec.y.spacing, Spacing::linear);
  EXPECT_EQ(r->spec.threads, 3);
  EXPECT_EQ(r->constraints.core.max_ratio_429, 0.01);
  EXPECT_FALSE(r->constraints.core.max_worst_key_429.has_value());
  EXPECT_EQ(r->constraints.core.max_worst_key_spend_per_min, 2.5);
  EXPECT_EQ(r->constraints.max_well_behaved_429, 0.001);
  EXPECT_EQ(r->constraints.well_behaved_factor, 7);
  EXPECT_EQ(r->max_spend_increase, 0.2);
}

TEST(TunerSession, AxesAroundTheCandidate) {
  const auto b = axes_around(test::bucket(Algorithm::token_bucket, 40, 2), 6, 7);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->first.min, 10);
  EXPECT_EQ(b->first.max, 160);
  EXPECT_EQ(b->first.steps, 6);
  EXPECT_EQ(b->second.min, 0.5);
  EXPECT_EQ(b->second.max, 8);
  EXPECT_EQ(b->second.steps, 7);
  const auto w =
      axes_around(test::window(Algorithm::sliding_log, 100, std::chrono::seconds(60)), 3, 3);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->first.min, 15);
  EXPECT_EQ(w->second.max, 400);
  EXPECT_FALSE(axes_around(test::bucket(Algorithm::token_bucket, 0, 2), 3, 3).has_value());
}

TEST(TunerSession, ApplyAndUndoAreRefusedInOrder) {
  LiveInputs in;
  in.connected = true;
  in.rule = "chat";
  const std::vector<FieldProblem> none;
  const std::vector<FieldProblem> bad{{"capacity", "capacity must be greater than 0"}};
  const Status unarmed = check_apply(in, none);
  ASSERT_FALSE(unarmed.ok());
  EXPECT_NE(unarmed.error().find("Tick \"Allow writes\" first"), std::string::npos)
      << unarmed.error();
  EXPECT_EQ(check_undo(in), unarmed);
  EXPECT_EQ(check_shadow(in, none), unarmed);
  in.armed = true;
  EXPECT_EQ(check_apply(in, bad),
            refused("Refused: the candidate is not valid: capacity must be greater than 0"));
  in.key_scope = true;
  EXPECT_EQ(check_apply(in, none), refused("Refused: name the key whose override to set."));
  in.override_key = "vip";
  EXPECT_EQ(check_apply(in, none), Status{});
  EXPECT_EQ(check_undo(in), Status{});
  EXPECT_EQ(check_shadow(in, none),
            refused("Refused: a shadow config is the whole rule's; choose the scope Whole rule."));
  in.key_scope = false;
  EXPECT_EQ(check_shadow(in, none), Status{});
  in.connected = false;
  EXPECT_EQ(check_apply(in, none), unarmed);
}

TEST(TunerSession, LiveButtonsFollowTheConnectionRuleArmAndUndo) {
  LiveInputs in;
  auto b = live_buttons(in, true, true);
  EXPECT_FALSE(b.read || b.arm || b.stream || b.apply || b.undo);
  in.connected = true;
  b = live_buttons(in, true, true);
  EXPECT_TRUE(b.arm && b.stream);
  EXPECT_FALSE(b.read || b.apply || b.undo);
  in.rule = "chat";
  in.armed = true;
  b = live_buttons(in, true, false);
  EXPECT_TRUE(b.read && b.apply);
  EXPECT_FALSE(b.undo);
  EXPECT_FALSE(live_buttons(in, false, true).apply);
  EXPECT_TRUE(live_buttons(in, false, true).undo);
}

redis::RuleConfig composite() {
  redis::RuleConfig c;
  c.limits = {{"rpm", test::bucket(Algorithm::token_bucket, 60, 1)},
              {"tpm", test::bucket(Algorithm::token_bucket, 900, 15)}};
  c.version = 4;
  return c;
}

TEST(TunerSession, TheLiveSettingFollowsTheScope) {
  TunerSession s;
  EXPECT_FALSE(s.live_setting("", "").has_value());
  redis::RuleConfig single = redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 10));
  single.overrides["vip"] = test::bucket(Algorithm::token_bucket, 500, 50);
  s.set_live(single);
  EXPECT_EQ(s.live_setting("", "")->capacity, 100);
  EXPECT_EQ(s.live_setting("vip", "")->capacity, 500);
  EXPECT_EQ(s.live_setting("other", "")->capacity, 100);
  s.set_live(composite());
  EXPECT_EQ(s.live_setting("", "tpm")->capacity, 900);
  EXPECT_FALSE(s.live_setting("", "").has_value());  // the whole composite: typed
  s.written(true);
  EXPECT_TRUE(s.can_undo());
  s.forget_live();
  EXPECT_FALSE(s.live().has_value());
  EXPECT_FALSE(s.can_undo());
}

TEST(TunerSession, ConfigTexts) {
  EXPECT_EQ(
      config_read_text("chat", std::nullopt),
      "Rule chat has no config yet: Apply creates it (version 1). The current setting is entered.");
  const std::string c = config_read_text("chat", composite());
  EXPECT_NE(c.find("Rule chat is a composite (rpm: "), std::string::npos) << c;
  EXPECT_NE(c.find(", version 4): choose the limit to tune"), std::string::npos) << c;
  redis::RuleConfig single = redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 10));
  single.version = 2;
  single.updated_by = "ops";
  EXPECT_EQ(config_read_text("chat", single),
            "Live: " + single.describe() + " (version 2, by ops).");
  EXPECT_EQ(config_written_text(false, single, "ann"),
            "Applied: " + single.describe() + " is live as version 2 (audited, by ann).");
  EXPECT_EQ(config_written_text(true, single, "ann").rfind("Undone: ", 0), 0u);
}

TEST(TunerSession, TraceFactsAreTheCorePassesResults) {
  const SharedTrace trace = small_trace();
  const TraceFacts f = study_trace(*trace, Algorithm::gcra, 9);
  EXPECT_EQ(f.largest_cost, largest_cost(*trace));
  EXPECT_EQ(f.largest_cost, 3);
  EXPECT_EQ(f.algorithm, Algorithm::gcra);
  EXPECT_EQ(f.first_guess.params.describe(),
            first_guess(*trace, Algorithm::gcra).params.describe());
  EXPECT_EQ(f.axes.first.steps, 9);
  EXPECT_EQ(f.axes.first.min, suggest_axes(*trace, Algorithm::gcra, 9).first.min);
  TunerSession s;
  EXPECT_FALSE(s.first_guess_for(Algorithm::gcra).has_value());  // no trace
  s.adopt(trace, f);
  EXPECT_TRUE(s.first_guess_for(Algorithm::gcra).has_value());
  EXPECT_FALSE(s.first_guess_for(Algorithm::token_bucket).has_value());  // made for another
  EXPECT_EQ(
      trace_summary("test", *trace, 3, 2),
      "test: 150 requests from 3 keys over 4.9 s (0.0 MB); largest cost 3; 2 bad line(s) skipped");
  const std::string fractional = trace_summary("t", *trace, 1.5, 0);
  EXPECT_TRUE(fractional.ends_with("; largest cost 1.5")) << fractional;
}

TEST(TunerSession, FactsForAnotherAlgorithmAreKeptOnlyForTheSessionsTrace) {
  const SharedTrace first = small_trace();
  TunerSession s;
  s.adopt(first, study_trace(*first, Algorithm::token_bucket, 9));
  const SharedTrace newer = small_trace(2);
  EXPECT_FALSE(s.take_facts(newer, study_trace(*newer, Algorithm::gcra, 9)));  // not its trace
  EXPECT_EQ(s.facts().algorithm, Algorithm::token_bucket);
  EXPECT_TRUE(s.take_facts(first, study_trace(*first, Algorithm::gcra, 9)));
  EXPECT_EQ(s.facts().algorithm, Algorithm::gcra);
  EXPECT_TRUE(s.first_guess_for(Algorithm::gcra).has_value());
}

TEST(TunerSession, TheFirstGuessIsRefusedWithoutATraceAndNeedsAPassForAnotherAlgorithm) {
  TunerSession s;
  const auto none = first_guess_step(s, Algorithm::gcra);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "Load a trace first.");
  const SharedTrace trace = small_trace();
  s.adopt(trace, study_trace(*trace, Algorithm::gcra, 9));
  const auto same = first_guess_step(s, Algorithm::gcra);
  ASSERT_TRUE(same.ok());
  ASSERT_TRUE(same->has_value());
  EXPECT_EQ((*same)->params.describe(), first_guess(*trace, Algorithm::gcra).params.describe());
  const auto other = first_guess_step(s, Algorithm::sliding_log);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());  // a pass over the trace makes it
}

TEST(TunerSession, SweepTextsSayWhatHappened) {
  EXPECT_EQ(sweep_failed_text(true, "cancelled"), "Sweep cancelled.");
  EXPECT_EQ(sweep_failed_text(false, "the grid needs 3 GiB"), "Sweep failed: the grid needs 3 GiB");
  using Titles = std::pair<std::string, std::string>;
  EXPECT_EQ(sweep_axis_titles(Algorithm::fixed_window), Titles("Window (s)", "Limit"));
  EXPECT_EQ(sweep_axis_titles(Algorithm::leaky_bucket), Titles("Capacity", "Refill (/s)"));
  FirstGuess guess;
  guess.params = test::bucket(Algorithm::token_bucket, 40, 2);
  guess.basis = "p99 of the keys' rates";
  EXPECT_EQ(first_guess_text(guess),
            "First guess: token-bucket capacity 40, refill 2/s (p99 of the keys' rates).");

  GuidedSweep sweep;
  sweep.all.cells.resize(144);
  sweep.keys = 6;
  sweep.well_behaved_keys = 5;
  Advice advice;
  advice.recommendation.frontier = {1, 2, 3};
  const std::string judged = sweep_summary(sweep, advice, Status{});
  EXPECT_EQ(judged,
            "144 settings; 3 on the Pareto frontier (fewer 429s vs less admitted cost); 5 of 6 "
            "keys well-behaved. The recommendation is beside the heatmap. Click a cell to make it "
            "the candidate.");
  const std::string unjudged = sweep_summary(sweep, advice, make_error("the trace has no prices"));
  EXPECT_NE(unjudged.find("The worst key's spend limit cannot be judged: the trace has no "
                          "prices. The recommendation"),
            std::string::npos)
      << unjudged;
}

TEST(TunerSession, StudyStopsWhenCancelledAndOtherwiseMakesTheSameFacts) {
  const SharedTrace trace = small_trace();
  std::atomic<bool> cancel{true};
  EXPECT_FALSE(study_trace(*trace, Algorithm::gcra, 9, &cancel).has_value());
  cancel = false;
  const auto f = study_trace(*trace, Algorithm::gcra, 9, &cancel);
  ASSERT_TRUE(f.has_value());
  const TraceFacts plain = study_trace(*trace, Algorithm::gcra, 9);
  EXPECT_EQ(f->largest_cost, plain.largest_cost);
  EXPECT_EQ(f->first_guess.params.describe(), plain.first_guess.params.describe());
  EXPECT_EQ(f->axes.second.max, plain.axes.second.max);
}

TEST(TunerSession, DemoCellPrefersTheStarThenTheExcludedThenTheFrontier) {
  Advice a;
  EXPECT_EQ(demo_cell(a), 0u);
  a.recommendation.frontier = {4, 2};
  EXPECT_EQ(demo_cell(a), 4u);
  a.excluded_by_spend = 7;
  EXPECT_EQ(demo_cell(a), 7u);
  a.recommendation.best = 3;
  EXPECT_EQ(demo_cell(a), 3u);
}

TEST(TunerSession, SpendTextNamesTheWorstKeyOrSaysWhyItIsUnknown) {
  const SharedTrace trace = small_trace();
  WhatIfSeries cur, cand;
  EXPECT_EQ(spend_text(trace.get(), &cur, nullptr, {}), "");
  cand.spend_summary.unpriced_reason = "2 requests carry no token count";
  EXPECT_EQ(spend_text(trace.get(), &cur, &cand, {}),
            "Spend: unknown — 2 requests carry no token count.");
  for (WhatIfSeries* s : {&cur, &cand}) {
    s->spend_summary.priced = true;
    s->spend_summary.worst_key = 1;
    s->max_quota_burn = {0.1, 0.64};
  }
  cur.total.admitted_spend = 12.4;
  cand.total.admitted_spend = 1234.4;
  cand.spend_summary.worst_key_per_min = 3.1;
  cand.spend_summary.unpriced_reason.clear();
  EXPECT_EQ(
      spend_text(trace.get(), &cur, &cand, {}),
      "Spend — current: $12.40 admitted, worst key k1 $0.00/min, highest daily quota burn 64%; "
      "candidate: $1,234 admitted, worst key k1 $3.10/min, highest daily quota burn 64%.");
  const std::string summary = whatif_summary(trace.get(), cur, cand, {});
  EXPECT_EQ(summary.rfind("429s on this trace — current: ", 0), 0u) << summary;
  EXPECT_NE(summary.find("\nSpend — current: $12.40"), std::string::npos) << summary;
}

TEST(TunerSession, BadLinesTextListsTheFirstErrorsAndCountsTheRest) {
  std::vector<trace::TraceError> errors;
  for (std::size_t i = 1; i <= 25; ++i) errors.push_back({i * 10, "bad " + std::to_string(i)});
  errors[1].line = 0;  // an error of the whole source has no line
  const std::string text = bad_lines_text(errors, 40);
  EXPECT_EQ(text.substr(0, 25), "line 10: bad 1\nbad 2\nline");
  EXPECT_NE(text.find("line 200: bad 20\n… and 20 more"), std::string::npos) << text;
  EXPECT_EQ(text.find("bad 21"), std::string::npos) << text;
  EXPECT_EQ(bad_lines_text({{3, "no t"}}, 1), "line 3: no t");
  EXPECT_EQ(bad_lines_text(errors, 25, 2), "line 10: bad 1\nbad 2\n… and 23 more");
}

TEST(TunerSession, KeysShowTheDashboardsNamesOfHashesOnly) {
  const std::string hash = "0123456789abcdef0123456789abcdef";
  std::vector<KeyRow> rows(3);
  rows[0].api_key = hash;
  rows[0].name = "acme-prod";
  rows[1].api_key = "demo-pro-1";  // not a hash: its name is itself
  rows[1].name = "demo-pro-1";
  rows[2].api_key = "fedcba9876543210fedcba9876543210";  // no name
  const KeyNames names = key_names_of(rows);
  EXPECT_EQ(names.size(), 1u);
  // A limited key starting with the hash is the key's (the gateway's "<hash>:<model>").
  EXPECT_EQ(key_shown(names, hash + ":gpt-4.1"), "acme-prod (" + hash + ":gpt-4.1)");
  EXPECT_EQ(key_shown(names, "demo-pro-1"), "demo-pro-1");
  EXPECT_EQ(key_shown(names, rows[2].api_key), rows[2].api_key);
}

TEST(TunerSession, TheAuditEntryNamesTheUserElseLimitscope) {
  EXPECT_EQ(change_author("ops"), "ops");
  EXPECT_EQ(change_author(""), "limitscope");
  EXPECT_EQ(change_author(nullptr), "limitscope");
}

TEST(TunerSession, ReadsStreamsAndScenariosAreRefusedWithTheReason) {
  LiveInputs in;
  in.rule = "chat";
  const Status no_read = refused("Give a Redis connection (--redis URL) and a rule name.");
  EXPECT_EQ(check_read(in), no_read);
  in.connected = true;
  EXPECT_EQ(check_read(in), Status{});
  in.rule.clear();
  EXPECT_EQ(check_read(in), no_read);

  EXPECT_EQ(check_stream(false, "chat"),
            refused("No Redis connection: start limitscope with --redis URL to read a decision "
                    "stream."));
  EXPECT_EQ(check_stream(true, ""), refused("Name the rule whose decision stream to read."));
  EXPECT_EQ(check_stream(true, "chat"), Status{});

  const std::vector<FieldProblem> problems = {{"capacity", "capacity must be above 0"},
                                              {"refill", "refill must be above 0"}};
  EXPECT_EQ(setting_problem_text(true, problems), "Current setting: capacity must be above 0");
  EXPECT_EQ(setting_problem_text(false, problems), "Candidate setting: capacity must be above 0");
  EXPECT_EQ(setting_problem_text(true, {}), "");
  const SharedTrace trace = small_trace();
  EXPECT_EQ(check_scenario(nullptr, {}), refused("Load a trace first."));
  EXPECT_EQ(check_scenario(nullptr, problems), refused("Load a trace first."));
  EXPECT_EQ(check_scenario(trace.get(), problems),
            refused("Current setting: capacity must be above 0"));
  EXPECT_EQ(check_scenario(trace.get(), {}), Status{});
}

TEST(TunerSession, ConnectionIsShownRedactedAndNoneIsNotConnected) {
  TunerSession s;
  EXPECT_FALSE(s.connected());
  EXPECT_EQ(s.url_shown(), "");
  s.set_connection("redis://ops:hunter2@127.0.0.1:6379/0");
  EXPECT_TRUE(s.connected());
  EXPECT_EQ(s.url(), "redis://ops:hunter2@127.0.0.1:6379/0");  // for the worker, as given
  EXPECT_EQ(s.url_shown().find("hunter2"), std::string::npos) << s.url_shown();
  EXPECT_NE(s.url_shown().find("127.0.0.1:6379"), std::string::npos) << s.url_shown();
  s.set_connection("http://not-redis");
  EXPECT_TRUE(s.connected());
  EXPECT_EQ(s.url_shown(), "(unusable URL)");
  s.set_connection("");
  EXPECT_FALSE(s.connected());
  EXPECT_EQ(s.url_shown(), "");
}

TEST(TunerSession, PricesFollowTheTokensPerRequest) {
  TunerSession s;
  const auto unpriced = s.pricing();
  ASSERT_NE(unpriced, nullptr);
  EXPECT_NE(unpriced->policy, nullptr);  // the default policy's prices
  EXPECT_FALSE(unpriced->tokens_per_request.has_value());
  s.set_tokens_per_request(1200);
  ASSERT_TRUE(s.pricing()->tokens_per_request.has_value());
  EXPECT_EQ(*s.pricing()->tokens_per_request, 1200);
  EXPECT_FALSE(unpriced->tokens_per_request.has_value());  // a worker's copy stays as it was
  s.set_tokens_per_request(0);
  EXPECT_FALSE(s.pricing()->tokens_per_request.has_value());
}

TEST(TunerSession, EachJobHasItsOwnCancelFlag) {
  TunerSession s;
  const TunerSession::CancelFlag first = s.start_job();
  s.cancel_job();
  EXPECT_TRUE(first->load());
  const TunerSession::CancelFlag second = s.start_job();
  EXPECT_NE(first, second);
  EXPECT_FALSE(second->load());  // a new job is not cancelled by the old one's Cancel
  EXPECT_EQ(s.job_cancel(), second);
  s.cancel_job();
  EXPECT_TRUE(second->load());
}

TEST(TunerSession, ForgettingTheLiveRuleForgetsItsShadowVersion) {
  TunerSession s;
  s.set_live(redis::single_limit(test::bucket(Algorithm::token_bucket, 10, 1)));
  s.set_shadow_version(3);
  s.written(true);
  EXPECT_EQ(s.shadow_version(), 3);
  s.forget_live();
  EXPECT_EQ(s.shadow_version(), 0);
  EXPECT_FALSE(s.live().has_value());
  EXPECT_FALSE(s.can_undo());
}

TEST(TunerSession, KeyNamesAreKeptForTheTexts) {
  TunerSession s;
  KeyNames names;
  ASSERT_TRUE(names.set("0123456789ab", "acme-prod"));
  s.set_key_names(names);
  EXPECT_EQ(key_shown(s.key_names(), "0123456789abcdef:gpt-4.1"),
            "acme-prod (0123456789abcdef:gpt-4.1)");
}

TEST(TunerSession, AFailedWriteSaysWhatFailedAndAConflictThatTheConfigIsReadAgain) {
  EXPECT_EQ(write_failed_text(LiveWrite::apply, false, "NOPERM"), "Apply failed: NOPERM");
  EXPECT_EQ(write_failed_text(LiveWrite::undo, false, "no history"), "Undo failed: no history");
  EXPECT_EQ(write_failed_text(LiveWrite::put_shadow, false, "x"), "Put in shadow failed: x");
  EXPECT_EQ(write_failed_text(LiveWrite::clear_shadow, false, "x"), "Clear shadow failed: x");
  for (const LiveWrite w : {LiveWrite::apply, LiveWrite::undo}) {
    const std::string text = write_failed_text(w, true, "version moved");
    EXPECT_EQ(text.find("Not written: the rule changed since it was read"), 0u) << text;
    EXPECT_NE(text.find("apply again"), std::string::npos) << text;
    EXPECT_EQ(text.find("version moved"), std::string::npos) << text;
  }
  for (const LiveWrite w : {LiveWrite::put_shadow, LiveWrite::clear_shadow}) {
    const std::string text = write_failed_text(w, true, "version moved");
    EXPECT_EQ(text.find("Not written: the rule's shadow changed since it was read"), 0u) << text;
    EXPECT_NE(text.find("try again"), std::string::npos) << text;
  }
}

TEST(TunerSession, AShadowPlanIsTheWholeRuleApplyWouldWriteOrWhyNot) {
  LiveInputs in;
  in.connected = true;
  in.rule = "gw";
  const LimitParams candidate = test::bucket(Algorithm::token_bucket, 40, 10);
  const std::vector<FieldProblem> none;
  // Not armed: check_shadow's reason, before anything the preview would say.
  const auto unarmed = shadow_plan(in, std::nullopt, candidate, none, "");
  ASSERT_FALSE(unarmed.ok());
  EXPECT_EQ(unarmed.error(), check_shadow(in, none).error());
  in.armed = true;
  in.key_scope = true;
  in.override_key = "vip";
  const auto keyed = shadow_plan(in, std::nullopt, candidate, none, "");
  ASSERT_FALSE(keyed.ok());
  EXPECT_EQ(keyed.error(),
            "Refused: a shadow config is the whole rule's; choose the scope Whole rule.");
  in.key_scope = false;
  in.override_key.clear();
  // A composite's limit that is not there: the preview's refusal, said as a refusal.
  const auto missing = shadow_plan(in, composite(), candidate, none, "rph");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "Refused: " + preview_change("gw", composite(), candidate,
                                                          std::nullopt, std::nullopt, {}, "rph")
                                               .check.error());
  // Allowed: the composite with `tpm` replaced, exactly what Apply's preview writes.
  const auto plan = shadow_plan(in, composite(), candidate, none, "tpm");
  ASSERT_TRUE(plan.ok()) << plan.error();
  const auto preview =
      preview_change("gw", composite(), candidate, std::nullopt, std::nullopt, {}, "tpm");
  EXPECT_EQ(plan->describe(), preview.config.describe());
  ASSERT_EQ(plan->limits.size(), 2u);
  EXPECT_EQ(plan->limits[1].params.capacity, 40);
  EXPECT_EQ(plan->limits[0].params.capacity, 60);
}

}  // namespace
}  // namespace limitscope::tuner
