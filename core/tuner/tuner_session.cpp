#include "core/tuner/tuner_session.h"

#include <algorithm>
#include <charconv>

#include "core/limiter/policy.h"
#include "core/redis/redis_url.h"
#include "core/trace/trace_file_load.h"
#include "core/tuner/number_text.h"

namespace limitscope::tuner {

namespace {

// The shortest text that reads back as `v` ("4", "1.5"), as the trace's largest cost shows.
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

constexpr const char* kWritesRefused =
    "Refused: writes to the live rule are not allowed. Tick \"Allow writes\" first.";

// "$12.40 admitted, worst key acme-prod $3.10/min, highest daily quota burn 64%" for one side
// of the comparison.
std::string spend_of(const trace::Trace* trace, const WhatIfSeries& s, const KeyNames& names) {
  double burn = 0;
  for (double b : s.max_quota_burn) burn = std::max(burn, b);
  std::string worst;
  if (trace != nullptr && s.spend_summary.worst_key < trace->keys.size())
    worst = names.display(trace->keys[s.spend_summary.worst_key]) + " ";
  return dollars_cents_text(s.total.admitted_spend) + " admitted, worst key " + worst +
         dollars_cents_text(s.spend_summary.worst_key_per_min) + "/min, highest daily quota burn " +
         fixed_text(burn * 100, 0) + "%";
}

}  // namespace

TraceFacts study_trace(const trace::Trace& trace, Algorithm algorithm, int x_steps) {
  return *study_trace(trace, algorithm, x_steps, nullptr);
}

std::optional<TraceFacts> study_trace(const trace::Trace& trace, Algorithm algorithm, int x_steps,
                                      const std::atomic<bool>* cancel) {
  const auto cancelled = [cancel] { return cancel != nullptr && cancel->load(); };
  TraceFacts f;
  f.algorithm = algorithm;
  if (cancelled()) return std::nullopt;
  f.largest_cost = largest_cost(trace);
  if (cancelled()) return std::nullopt;
  f.first_guess = first_guess(trace, algorithm);
  if (cancelled()) return std::nullopt;  // a Cancel during the last pass still counts
  f.axes = suggest_axes(f.first_guess, f.largest_cost, x_steps);  // no second first guess
  return f;
}

std::string trace_summary(const std::string& source, const trace::Trace& trace, double largest_cost,
                          std::size_t skipped) {
  std::string text =
      source + ": " + std::to_string(trace.events.size()) + " requests from " +
      std::to_string(trace.keys.size()) + " keys over " + fixed_text(trace.duration_s(), 1) +
      " s (" +
      fixed_text(static_cast<double>(trace::trace_event_bytes(trace.events.size())) / 1e6, 1) +
      " MB); largest cost " + shortest(largest_cost);
  if (skipped > 0) text += "; " + std::to_string(skipped) + " bad line(s) skipped";
  return text;
}

std::string bad_lines_text(const std::vector<trace::TraceError>& errors, std::size_t error_count,
                           std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < std::min(shown, errors.size()); ++i) {
    const trace::TraceError& e = errors[i];
    if (!text.empty()) text += '\n';
    text += e.line > 0 ? "line " + std::to_string(e.line) + ": " + e.message : e.message;
  }
  if (error_count > shown) {
    if (!text.empty()) text += '\n';
    text += "… and " + std::to_string(error_count - shown) + " more";
  }
  return text;
}

KeyNames key_names_of(const std::vector<KeyRow>& rows) {
  KeyNames names;
  for (const KeyRow& r : rows) {
    if (!r.name.empty() && r.name != r.api_key) names.set(r.api_key, r.name);  // hashes only
  }
  return names;
}

std::string key_shown(const KeyNames& names, const std::string& key) {
  const std::string* name = names.find(key);
  return name != nullptr ? *name + " (" + key + ")" : key;
}

std::string change_author(const char* user) {
  return user != nullptr && *user != '\0' ? std::string(user) : std::string("limitscope");
}

std::string setting_problem_text(bool current, const std::vector<FieldProblem>& problems) {
  if (problems.empty()) return {};
  return std::string(current ? "Current" : "Candidate") + " setting: " + problems.front().message;
}

Status check_scenario(const trace::Trace* trace,
                      const std::vector<FieldProblem>& current_problems) {
  if (trace == nullptr) return make_error("Load a trace first.");
  if (!current_problems.empty()) return make_error(setting_problem_text(true, current_problems));
  return {};
}

Status check_stream(bool connected, const std::string& rule) {
  if (!connected) {
    return make_error(
        "No Redis connection: start limitscope with --redis URL to read a decision stream.");
  }
  if (rule.empty()) return make_error("Name the rule whose decision stream to read.");
  return {};
}

Expected<SweepRequest> check_sweep(const trace::Trace* trace, const SweepInputs& in) {
  if (trace == nullptr) return make_error("Load a trace first.");
  SweepRequest r;
  r.spec.base = in.base;
  r.spec.x = in.x;
  r.spec.y = in.y;
  r.spec.threads = std::max(1, in.threads);
  std::string why;
  if (in.x.min > in.x.max || in.y.min > in.y.max) {
    why = "each axis needs min ≤ max";
  } else if ((in.x.min == in.x.max && in.x.steps != 1) ||
             (in.y.min == in.y.max && in.y.steps != 1)) {
    why = "an axis with min = max needs 1 step";
  } else if (in.x.steps < 1 || in.y.steps < 1) {
    why = "each axis needs at least 1 step";
  } else if (const std::size_t bytes = sweep_state_bytes(*trace, r.spec); bytes > kSweepMemoryCap) {
    why = std::to_string(trace->keys.size()) + " keys × " +
          std::to_string(in.x.steps * in.y.steps) + " settings need " +
          fixed_text(static_cast<double>(bytes) / 1e6, 0) +
          " MB of state, above the 1024 MB cap: fewer steps, or a shorter trace";
  }
  if (!why.empty()) return make_error("Sweep refused: " + why + ".");
  r.constraints.core.max_ratio_429 = in.max_429;
  r.constraints.core.max_worst_key_429 = in.max_key_429;
  r.constraints.core.max_worst_key_spend_per_min = in.max_key_spend_per_min;
  r.constraints.max_well_behaved_429 = in.max_well_behaved_429;
  r.constraints.well_behaved_factor = in.well_behaved_factor;
  r.max_spend_increase = in.max_spend_increase;
  return r;
}

std::optional<std::pair<SweepAxis, SweepAxis>> axes_around(const LimitParams& candidate,
                                                           int x_steps, int y_steps) {
  const bool window = is_window_algorithm(candidate.algorithm);
  const double x =
      window ? static_cast<double>(candidate.window.count()) / 1e9 : candidate.capacity;
  const double y = window ? candidate.limit : candidate.refill.per_second();
  if (!(x > 0) || !(y > 0)) return std::nullopt;
  return std::pair{SweepAxis{x / 4, x * 4, x_steps, Spacing::log},
                   SweepAxis{y / 4, y * 4, y_steps, Spacing::log}};
}

std::string sweep_summary(const GuidedSweep& result, const Advice& advice,
                          const Status& constraints) {
  std::string text = std::to_string(result.all.cells.size()) + " settings; " +
                     std::to_string(advice.recommendation.frontier.size()) +
                     " on the Pareto frontier (fewer 429s vs " +
                     (result.all.priced ? "fewer dollars admitted" : "less admitted cost") + "); " +
                     std::to_string(result.well_behaved_keys) + " of " +
                     std::to_string(result.keys) + " keys well-behaved. ";
  if (!constraints.ok())
    text += "The worst key's spend limit cannot be judged: " + constraints.error() + ". ";
  return text + "The recommendation is beside the heatmap. Click a cell to make it the candidate.";
}

std::string sweep_failed_text(bool cancelled, const std::string& error) {
  return cancelled ? "Sweep cancelled." : "Sweep failed: " + error;
}

std::pair<std::string, std::string> sweep_axis_titles(Algorithm algorithm) {
  if (is_window_algorithm(algorithm)) return {"Window (s)", "Limit"};
  return {"Capacity", "Refill (/s)"};
}

std::string first_guess_text(const FirstGuess& guess) {
  return "First guess: " + setting_text(guess.params) + " (" + guess.basis + ").";
}

std::size_t demo_cell(const Advice& advice) {
  if (advice.recommendation.best) return *advice.recommendation.best;
  if (advice.excluded_by_spend) return *advice.excluded_by_spend;
  return advice.recommendation.frontier.empty() ? 0 : advice.recommendation.frontier.front();
}

std::string spend_text(const trace::Trace* trace, const WhatIfSeries* current,
                       const WhatIfSeries* candidate, const KeyNames& names) {
  if (current == nullptr || candidate == nullptr) return {};
  const SpendSummary& s = candidate->spend_summary;
  if (!s.priced)
    return "Spend: unknown — " +
           (s.unpriced_reason.empty() ? std::string("nothing to price") : s.unpriced_reason) + ".";
  std::string text = "Spend — current: " + spend_of(trace, *current, names) +
                     "; candidate: " + spend_of(trace, *candidate, names) + ".";
  if (s.unpriced_requests > 0) text += " " + s.unpriced_reason + ".";
  return text;
}

std::string whatif_summary(const trace::Trace* trace, const WhatIfSeries& current,
                           const WhatIfSeries& candidate, const KeyNames& names) {
  return "429s on this trace — current: " + describe_429s(current.total) +
         "; candidate: " + describe_429s(candidate.total) + "\n" +
         spend_text(trace, &current, &candidate, names);
}

Status check_read(const LiveInputs& in) {
  if (!in.connected || in.rule.empty())
    return make_error("Give a Redis connection (--redis URL) and a rule name.");
  return {};
}

LiveButtons live_buttons(const LiveInputs& in, bool candidate_valid, bool can_undo) {
  LiveButtons b;
  const bool named = !in.rule.empty();
  b.read = in.connected && named;
  b.arm = in.connected;
  b.stream = in.connected;
  b.apply = in.connected && named && in.armed && candidate_valid;
  b.undo = in.connected && named && in.armed && can_undo;
  b.shadow = b.apply && !in.key_scope;
  b.clear_shadow = in.connected && named && in.armed;
  return b;
}

Status check_apply(const LiveInputs& in, const std::vector<FieldProblem>& candidate_problems) {
  if (!in.connected || !in.armed) return make_error(kWritesRefused);
  if (!candidate_problems.empty())
    return make_error("Refused: the candidate is not valid: " + candidate_problems.front().message);
  if (in.key_scope && in.override_key.empty())
    return make_error("Refused: name the key whose override to set.");
  return {};
}

Status check_undo(const LiveInputs& in) {
  if (!in.connected || !in.armed) return make_error(kWritesRefused);
  return {};
}

Status check_shadow(const LiveInputs& in, const std::vector<FieldProblem>& candidate_problems) {
  if (in.key_scope)
    return make_error("Refused: a shadow config is the whole rule's; choose the scope Whole rule.");
  return check_apply(in, candidate_problems);
}

Expected<redis::RuleConfig> shadow_plan(const LiveInputs& in,
                                        const std::optional<redis::RuleConfig>& live,
                                        const LimitParams& candidate,
                                        const std::vector<FieldProblem>& candidate_problems,
                                        const std::string& limit) {
  if (Status check = check_shadow(in, candidate_problems); !check.ok())
    return make_error(check.error());
  ChangePreview plan =
      preview_change(in.rule, live, candidate, std::nullopt, std::nullopt, {}, limit);
  if (!plan.check.ok()) return make_error("Refused: " + plan.check.error());
  return std::move(plan.config);
}

std::string write_failed_text(LiveWrite write, bool conflict, const std::string& error) {
  const bool shadow = write == LiveWrite::put_shadow || write == LiveWrite::clear_shadow;
  if (conflict && shadow) {
    return "Not written: the rule's shadow changed since it was read (someone else set or "
           "cleared it). Nothing was changed; the config is being reloaded — check it and try "
           "again.";
  }
  if (conflict) {
    return "Not written: the rule changed since it was read (someone else applied a version). "
           "Nothing was changed; the live config is being reloaded — check it and apply again.";
  }
  static constexpr const char* kNames[] = {"Apply", "Undo", "Put in shadow", "Clear shadow"};
  return std::string(kNames[static_cast<int>(write)]) + " failed: " + error;
}

std::string shadow_written_text(const std::string& rule, const redis::RuleConfig& shadow,
                                const std::string& by) {
  return "In shadow: rule " + rule + "'s shadow config is version " +
         std::to_string(shadow.version) + ": " + shadow.describe() + " (audited, by " + by +
         "). Every decision of the rule evaluates it and none enforces it; the dashboard's 429 "
         "chart and "
         "key table show what it would refuse.";
}

std::string shadow_cleared_text(const std::string& rule, std::int64_t version,
                                const std::string& by) {
  return "Shadow cleared: rule " + rule + " has no shadow config (version " +
         std::to_string(version) + ", audited, by " + by + ").";
}

std::string config_read_text(const std::string& rule,
                             const std::optional<redis::RuleConfig>& live) {
  if (!live) {
    return "Rule " + rule +
           " has no config yet: Apply creates it (version 1). The current setting is entered.";
  }
  if (live->composite()) {
    return "Rule " + rule + " is a composite (" + live->describe() + ", version " +
           std::to_string(live->version) +
           "): choose the limit to tune; Apply replaces that limit and keeps the others.";
  }
  return "Live: " + live->describe() + " (version " + std::to_string(live->version) + ", by " +
         live->updated_by + ").";
}

std::string config_written_text(bool undo, const std::optional<redis::RuleConfig>& live,
                                const std::string& by) {
  return std::string(undo ? "Undone" : "Applied") + ": " +
         (live ? live->describe() : std::string()) + " is live as version " +
         std::to_string(live ? live->version : 0) + " (audited, by " + by + ").";
}

void TunerSession::adopt(SharedTrace trace, TraceFacts facts) {
  trace_ = std::move(trace);
  facts_ = std::move(facts);
  for (SettingForm& setting : settings_) setting.set_largest_cost(facts_.largest_cost);
  // Replies still in flight belong to the previous trace: make them stale.
  for (int side = 0; side < 2; ++side) {
    ++generation_[side];
    ++scenario_generation_[side];
  }
}

bool TunerSession::take_facts(const SharedTrace& trace, TraceFacts facts) {
  if (trace != trace_) return false;
  facts_ = std::move(facts);
  return true;
}

std::optional<FirstGuess> TunerSession::first_guess_for(Algorithm algorithm) const {
  if (!trace_ || facts_.algorithm != algorithm) return std::nullopt;
  return facts_.first_guess;
}

std::optional<int> TunerSession::request_whatif(Side side) {
  if (in_flight_[side]) {
    pending_[side] = true;  // coalesce: only the newest setting is computed next
    return std::nullopt;
  }
  in_flight_[side] = true;
  return ++generation_[side];
}

void TunerSession::drop_whatif(Side side) {
  series_[side].reset();
  pending_[side] = false;
  ++generation_[side];
}

bool TunerSession::finish_whatif(Side side, int generation, SharedSeries series) {
  in_flight_[side] = false;
  if (generation == generation_[side] && series) series_[side] = std::move(series);
  return std::exchange(pending_[side], false);
}

bool TunerSession::whatif_idle() const {
  return !in_flight_[0] && !in_flight_[1] && !pending_[0] && !pending_[1];
}

void TunerSession::forget_live() {
  live_.reset();
  can_undo_ = false;
  shadow_version_ = 0;
}

std::optional<LimitParams> TunerSession::live_setting(const std::string& override_key,
                                                      const std::string& limit) const {
  if (!live_) return std::nullopt;
  if (live_->composite()) {
    for (const auto& l : live_->limits) {
      if (l.name == limit) return l.params;
    }
    return std::nullopt;  // the whole composite is replaced: compare against an entry
  }
  return live_->params_for(override_key);
}

TunerSession::TunerSession() : cancel_(std::make_shared<std::atomic<bool>>(false)) {
  set_tokens_per_request(0);
}

void TunerSession::set_connection(std::string url) {
  url_ = std::move(url);
  url_shown_.clear();
  if (url_.empty()) return;
  const auto parsed = redis::parse_redis_url(url_);
  url_shown_ = parsed ? parsed->redacted() : "(unusable URL)";
}

void TunerSession::set_tokens_per_request(int tokens) {
  auto pricing = std::make_shared<PricingOptions>();
  pricing->policy = &default_policy();
  if (tokens > 0) pricing->tokens_per_request = tokens;
  pricing_ = std::move(pricing);
}

const TunerSession::CancelFlag& TunerSession::start_job() {
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  return cancel_;
}

Expected<std::optional<FirstGuess>> first_guess_step(const TunerSession& session,
                                                     Algorithm algorithm) {
  if (!session.trace()) return make_error("Load a trace first.");
  return session.first_guess_for(algorithm);
}

}  // namespace limitscope::tuner
