#pragma once
// The Tuner's session without Qt: the state machine behind the Tuner tab's panels (load a trace
// → what-if of the current and the candidate setting → sweep → pick a cell → apply/undo on the
// live rule), the checks of what the operator entered, and what the tab says about each step.
// The widgets (ui/tuner/) only bind: they hand this the values of their fields, run the work it
// asks for on their worker threads, and show the text it returns.
//
// Everything that reads the whole trace (study_trace) runs on a worker; the session itself only
// keeps the results and counts requests, so its methods are cheap enough for the GUI thread.

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/expected.h"
#include "core/dashboard/dashboard_snapshot.h"
#include "core/dashboard/key_names.h"
#include "core/limiter/limit_params.h"
#include "core/redis/rule_config.h"
#include "core/trace/trace.h"
#include "core/tuner/advice.h"
#include "core/tuner/candidate.h"
#include "core/tuner/first_guess.h"
#include "core/tuner/pricing.h"
#include "core/tuner/setting_form.h"
#include "core/tuner/sweep.h"
#include "core/tuner/well_behaved.h"
#include "core/tuner/whatif.h"

namespace limitscope::tuner {

using SharedTrace = std::shared_ptr<const trace::Trace>;
using SharedSeries = std::shared_ptr<const WhatIfSeries>;

/// The sweep's state cap: a grid needing more is refused before it starts.
inline constexpr std::size_t kSweepMemoryCap = std::size_t{1} << 30;  // 1 GiB

/// What the Tuner learns from a whole trace, in passes over all its events: made on a worker
/// thread when a trace is loaded (or the candidate's algorithm changes), never on the GUI's.
struct TraceFacts {
  double largest_cost = 0;
  Algorithm algorithm = Algorithm::token_bucket;  ///< the first guess's and the axes'
  FirstGuess first_guess;
  std::pair<SweepAxis, SweepAxis> axes;  ///< suggest_axes(), x with `x_steps` steps
};

/// @param algorithm the candidate's algorithm (the first guess and the axes are for it)
/// @param x_steps the steps of the suggested x axis
TraceFacts study_trace(const trace::Trace& trace, Algorithm algorithm, int x_steps);
/// The same, stopping between its passes once `cancel` is set (the Tuner's Cancel button).
/// @return nullopt when cancelled
std::optional<TraceFacts> study_trace(const trace::Trace& trace, Algorithm algorithm, int x_steps,
                                      const std::atomic<bool>* cancel);

/// "file t.jsonl: 1000 requests from 6 keys over 12.5 s (0.1 MB); largest cost 4", and the
/// bad lines skipped, if any.
std::string trace_summary(const std::string& source, const trace::Trace& trace, double largest_cost,
                          std::size_t skipped);

/// The report of a load with bad lines: "line 3: why" (an error without a line number as it
/// is) for the first `shown` errors, one a line, then "… and N more" when there are more.
std::string bad_lines_text(const std::vector<trace::TraceError>& errors, std::size_t error_count,
                           std::size_t shown = 20);

/// The names the Tuner shows for keys, from the dashboard's key rows: a row's name when it
/// names a hash (a name equal to the key, or none, is left out).
KeyNames key_names_of(const std::vector<KeyRow>& rows);
/// "acme-prod (0123…:gpt-4.1)" for a key `names` names, else the key as it is.
std::string key_shown(const KeyNames& names, const std::string& key);
/// Who an audit entry of the Tuner names: `user` (the USER variable; null when unset), or
/// "limitscope" when it is unset or empty.
std::string change_author(const char* user);

/// "Current setting: <its first problem>" (or "Candidate setting: …"), what the chart and the
/// scenarios say instead of a result while a setting is invalid; "" when it has none.
std::string setting_problem_text(bool current, const std::vector<FieldProblem>& problems);
/// Whether an outage or routing what-if can run: it needs a trace (`trace` not null) and a valid
/// current setting. @return ok, or why not ("Load a trace first.")
Status check_scenario(const trace::Trace* trace, const std::vector<FieldProblem>& current_problems);
/// Whether a rule's decision stream can be read: it needs a connection and a rule named.
/// @param rule trimmed
Status check_stream(bool connected, const std::string& rule);

/// The sweep panel's fields as entered.
struct SweepInputs {
  LimitParams base;  ///< the candidate: the algorithm and the refill period
  SweepAxis x, y;
  int threads = 1;
  std::optional<double> max_429;  ///< ratios (0.01 = 1%); nullopt: constraint off
  std::optional<double> max_key_429;
  std::optional<double> max_well_behaved_429;
  std::optional<double> max_key_spend_per_min;  ///< dollars
  double well_behaved_factor = 5;
  std::optional<double> max_spend_increase;  ///< share over the current setting; nullopt: off
};

/// A sweep ready to run.
struct SweepRequest {
  SweepSpec spec;
  OperatorConstraints constraints;
  std::optional<double> max_spend_increase;
};

/// Checks the sweep's inputs on `trace` (nullptr: none loaded): each axis min ≤ max, an axis
/// with min = max has 1 step, the state fits kSweepMemoryCap.
/// @return the request, or why not ("Load a trace first.", "Sweep refused: …")
Expected<SweepRequest> check_sweep(const trace::Trace* trace, const SweepInputs& in);

/// The grid from a quarter to four times the candidate's values (its window or capacity, and its
/// limit or refill per second), or nullopt when a value is not above 0.
std::optional<std::pair<SweepAxis, SweepAxis>> axes_around(const LimitParams& candidate,
                                                           int x_steps, int y_steps);

/// The sweep's line under its panel once it is done ("144 settings; 9 on the Pareto frontier
/// …"), with what `constraints` (check_constraints of the sweep) says could not be judged.
std::string sweep_summary(const GuidedSweep& result, const Advice& advice,
                          const Status& constraints);

/// What the sweep line says when a sweep gave no result: "Sweep cancelled." or "Sweep failed:
/// <error>".
std::string sweep_failed_text(bool cancelled, const std::string& error);

/// The sweep's axis names for a candidate of `algorithm`: "Window (s)" and "Limit", or
/// "Capacity" and "Refill (/s)".
std::pair<std::string, std::string> sweep_axis_titles(Algorithm algorithm);

/// "First guess: token-bucket capacity 40, refill 2/s (<its basis>)." once it is the candidate.
std::string first_guess_text(const FirstGuess& guess);

/// The cell a demo (the screenshot) loads: the ★, else the cell the spend limit excluded, else
/// the frontier's first (0 when it is empty).
std::size_t demo_cell(const Advice& advice);

/// "Spend — current: …; candidate: …." under the what-if chart, the worst key named by `names`;
/// "" until both series are there.
std::string spend_text(const trace::Trace* trace, const WhatIfSeries* current,
                       const WhatIfSeries* candidate, const KeyNames& names);

/// "429s on this trace — current: …; candidate: …" and the spend line.
std::string whatif_summary(const trace::Trace* trace, const WhatIfSeries& current,
                           const WhatIfSeries& candidate, const KeyNames& names);

/// The Apply and Undo buttons' preconditions, as entered.
struct LiveInputs {
  bool connected = false;    ///< the app has a Redis URL
  bool armed = false;        ///< "Allow writes" is ticked
  std::string rule;          ///< trimmed
  bool key_scope = false;    ///< "One key's override" is chosen
  std::string override_key;  ///< trimmed; "" unless key_scope
};

/// Which of the live panel's buttons work.
struct LiveButtons {
  bool read = false;    ///< Read config: a connection and a rule
  bool arm = false;     ///< Allow writes: a connection
  bool stream = false;  ///< the decision stream: a connection
  bool apply = false;   ///< a connection, a rule, writes allowed, a valid candidate
  bool undo = false;    ///< ... and a change of this session to undo
  /// Put in shadow (issue 19): as apply, for the whole rule (a shadow has no per-key scope).
  bool shadow = false;
  bool clear_shadow = false;  ///< a connection, a rule, writes allowed
};
LiveButtons live_buttons(const LiveInputs& in, bool candidate_valid, bool can_undo);

/// Whether Read config can run: it needs a connection and a rule. @return ok, or why not
Status check_read(const LiveInputs& in);
/// Whether Apply can go ahead. @return ok, or why it is refused ("Refused: …")
/// @param candidate_problems check_candidate() of the candidate
Status check_apply(const LiveInputs& in, const std::vector<FieldProblem>& candidate_problems);
/// Whether Undo (or Clear shadow) can go ahead. @return ok, or why it is refused
Status check_undo(const LiveInputs& in);
/// Whether "Put in shadow" can go ahead: as Apply, and a shadow config is the whole rule's (no
/// key's override). @return ok, or why it is refused
Status check_shadow(const LiveInputs& in, const std::vector<FieldProblem>& candidate_problems);
/// What "Put in shadow" writes: the whole rule as Apply would make it of `candidate` (a
/// composite's limit `limit` replaced; a shadow has no key's override), or why not:
/// check_shadow's reason first, then what the preview refuses ("Refused: …").
/// @param in the live panel's fields (`in.rule` names the rule)
/// @param live the rule's config as last read (nullopt: none yet)
Expected<redis::RuleConfig> shadow_plan(const LiveInputs& in,
                                        const std::optional<redis::RuleConfig>& live,
                                        const LimitParams& candidate,
                                        const std::vector<FieldProblem>& candidate_problems,
                                        const std::string& limit);
/// "In shadow: rule gw-free's shadow is version 2: … (audited, by ops). …" after a shadow set.
std::string shadow_written_text(const std::string& rule, const redis::RuleConfig& shadow,
                                const std::string& by);
/// "Shadow cleared: …" after a clear, with the version the clear made.
std::string shadow_cleared_text(const std::string& rule, std::int64_t version,
                                const std::string& by);

/// A write to the live rule.
enum class LiveWrite { apply, undo, put_shadow, clear_shadow };
/// What the live status says when a write failed: "Apply failed: <error>", or, when the version
/// it compared and set had moved (`conflict`: someone else wrote meanwhile), that nothing was
/// changed and the config is being read again.
std::string write_failed_text(LiveWrite write, bool conflict, const std::string& error);
/// The live status after a read: none yet, a composite, or the live setting.
std::string config_read_text(const std::string& rule, const std::optional<redis::RuleConfig>& live);

/// "Applied: … is live as version 3 (audited, by ops)." (or "Undone: …").
std::string config_written_text(bool undo, const std::optional<redis::RuleConfig>& live,
                                const std::string& by);

/// The state of one Tuner: the connection, the two settings as entered, the trace, the prices
/// and the key names it is read with, the running job's Cancel flag, the two what-if series
/// and their requests in flight,
/// the live rule's config and shadow version, and the request counters that make late replies
/// stale. The tab owns one; each panel changes it only through these operations.
class TunerSession {
 public:
  enum Side { current = 0, candidate = 1 };
  /// A job's Cancel flag, which its worker polls.
  using CancelFlag = std::shared_ptr<std::atomic<bool>>;

  TunerSession();

  // --- the connection: the app's --redis URL, or none
  /// @param url as given (it may hold a password: only ever handed to a worker); "" for none
  void set_connection(std::string url);
  bool connected() const { return !url_.empty(); }
  const std::string& url() const { return url_; }
  /// The URL for labels: redacted, or "(unusable URL)" when it does not parse; "" for none.
  const std::string& url_shown() const { return url_shown_; }
  // --- the two settings as the operator entered them (the setting editors bind to them)
  SettingForm& setting(Side side) { return settings_[side]; }
  const SettingForm& setting(Side side) const { return settings_[side]; }
  // --- prices and names
  /// The default policy's prices and quotas, with `tokens` assumed for a request whose trace
  /// line gives no count (0: none, such requests stay unpriced).
  void set_tokens_per_request(int tokens);
  const std::shared_ptr<const PricingOptions>& pricing() const { return pricing_; }
  /// The dashboard's names of keys (key_names_of its rows).
  void set_key_names(KeyNames names) { names_ = std::move(names); }
  const KeyNames& key_names() const { return names_; }
  // --- the job on the job worker (a load, a pass over the trace, a sweep): one at a time
  /// A job starts: its Cancel flag is a fresh one (an earlier job's stays as it was).
  const CancelFlag& start_job();
  /// Cancels the running job.
  void cancel_job() { cancel_->store(true); }
  const CancelFlag& job_cancel() const { return cancel_; }

  // --- the trace
  /// Takes a loaded trace and its facts; replies still in flight for the previous one go stale.
  /// Both settings are checked against its largest cost from now on.
  void adopt(SharedTrace trace, TraceFacts facts);
  const SharedTrace& trace() const { return trace_; }
  const TraceFacts& facts() const { return facts_; }
  /// Keeps facts made for another algorithm (the first guess is per algorithm), when they were
  /// made for the session's trace. @return false (nothing kept) when `trace` is no longer the
  /// session's: a newer trace came while they were made
  bool take_facts(const SharedTrace& trace, TraceFacts facts);
  /// The first guess when it is for `algorithm`, else nullopt (a worker makes a new one).
  std::optional<FirstGuess> first_guess_for(Algorithm algorithm) const;

  // --- what-ifs: one computation per side at a time, newer settings coalesced
  /// A setting of `side` changed. @return the generation to compute it under, or nullopt when a
  /// computation of that side is in flight (its reply then asks for the newest: see finish)
  std::optional<int> request_whatif(Side side);
  /// The side's setting is invalid: its series is dropped and any reply in flight goes stale.
  void drop_whatif(Side side);
  /// A what-if reply. @return true when a newer setting waits: request it again
  bool finish_whatif(Side side, int generation, SharedSeries series);
  const SharedSeries& series(Side side) const { return series_[side]; }
  bool whatif_idle() const;

  // --- scenarios (0: outage, 1: routing)
  int next_scenario(int kind) { return ++scenario_generation_[kind]; }
  bool scenario_current(int kind, int generation) const {
    return generation == scenario_generation_[kind];
  }

  // --- the live rule
  void set_live(std::optional<redis::RuleConfig> live) { live_ = std::move(live); }
  const std::optional<redis::RuleConfig>& live() const { return live_; }
  /// The rule's name changed: what was read belongs to another rule (its shadow version too).
  void forget_live();
  /// The rule's shadow version as last read or written (0: none), which a shadow write
  /// compares and sets.
  void set_shadow_version(std::int64_t version) { shadow_version_ = version; }
  std::int64_t shadow_version() const { return shadow_version_; }
  /// An Apply (true) or an Undo (false) was written.
  void written(bool applied) { can_undo_ = applied; }
  bool can_undo() const { return can_undo_; }
  int next_key_counts() { return ++key_counts_request_; }
  bool key_counts_current(int request) const { return request == key_counts_request_; }
  /// The setting the current editor shows for the scope: the composite's limit `limit`, the
  /// key's override (or the rule's limit it falls back to), or the rule's limit; nullopt when
  /// there is no live config, or the whole composite is being replaced (the setting is typed).
  std::optional<LimitParams> live_setting(const std::string& override_key,
                                          const std::string& limit) const;

 private:
  std::string url_, url_shown_;
  SettingForm settings_[2];
  std::shared_ptr<const PricingOptions> pricing_;
  KeyNames names_;
  CancelFlag cancel_;
  SharedTrace trace_;
  TraceFacts facts_;
  SharedSeries series_[2];
  int generation_[2] = {0, 0};
  bool in_flight_[2] = {false, false};
  bool pending_[2] = {false, false};
  int scenario_generation_[2] = {0, 0};
  std::optional<redis::RuleConfig> live_;
  bool can_undo_ = false;
  std::int64_t shadow_version_ = 0;
  int key_counts_request_ = 0;
};

/// What "First guess" does for a candidate of `algorithm`. @return why not ("Load a trace
/// first."), or the guess the session's facts hold for that algorithm, or nullopt: a pass over
/// the trace must make one (study_trace, on a worker) before it can be used
Expected<std::optional<FirstGuess>> first_guess_step(const TunerSession& session,
                                                     Algorithm algorithm);

}  // namespace limitscope::tuner
