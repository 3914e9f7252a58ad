#pragma once
// The Tuner's work off the GUI thread: loading traces (file, recording, scenario, a rule's
// decision stream) and the passes over a whole trace, what-if series and scenarios (outage,
// routing), sweeps, and the live rule's config in Redis (read, apply with compare-and-set,
// undo). The tab runs one TunerWorker per QThread (jobs, what-if, Redis, scenarios)
// so a long sweep never delays a slider's redraw or an Apply. Results come back as queued
// signals carrying immutable data; long jobs take a shared cancel flag. A result carries its
// value or a JobError (the project's Expected, docs/architecture.md "Errors").

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "core/common/result_table.h"
#include "core/redis/rule_config.h"
#include "core/trace/trace.h"
#include "core/tuner/advice.h"
#include "core/tuner/sweep.h"
#include "core/tuner/tuner_session.h"
#include "core/tuner/well_behaved.h"
#include "core/tuner/whatif.h"

namespace limitscope::ui {

using TracePtr = std::shared_ptr<const trace::Trace>;
using CancelFlag = std::shared_ptr<std::atomic<bool>>;
/// Prices and quotas for what-ifs and sweeps (shared so a job keeps its own even when the
/// operator changes them meanwhile).
using PricingPtr = std::shared_ptr<const tuner::PricingOptions>;

/// Why a job on a worker gave no result (the E of JobResult, like redis::RedisError's kind:
/// the panel that asked tells a Cancel and a moved version from a failure).
struct JobError {
  enum class Kind {
    failed,     ///< the job could not be done: unreadable file, bad input, Redis refused, ...
    cancelled,  ///< the operator's Cancel stopped it (loads, sweeps): nothing is kept
    conflict,   ///< a write's compare-and-set found the version moved: nothing was written
  };
  Kind kind = Kind::failed;
  QString message;  ///< one line: what failed and why

  bool cancelled() const { return kind == Kind::cancelled; }
  bool conflict() const { return kind == Kind::conflict; }
};

/// A worker's result: its value, or why there is none (core/common/expected.h).
template <class T>
using JobResult = Expected<T, JobError>;

/// A trace as read: its good lines and, when some lines were bad, the first of them (a load is
/// partly good; the operator chooses whether to use the good lines).
struct LoadedTrace {
  TracePtr trace;
  std::vector<trace::TraceError> errors;
  std::size_t error_count = 0;  ///< bad lines in all (errors keeps the first ones)
};

struct TraceLoadResult {
  QString source;  ///< "file x.jsonl", "scenario mixed (300 s)", ...
  /// The trace, or why the load failed as a whole (unreadable, above the cap, cancelled).
  JobResult<LoadedTrace> load;
};

/// A trace and what the passes over all of it found (core/tuner/tuner_session.h: the largest
/// cost, the first guess, the sweep's axes), made on the job worker, never the GUI thread.
struct TraceStudy {
  /// adopt: a newly loaded trace; guess: the first guess for another algorithm.
  enum class Purpose { adopt, guess } purpose = Purpose::adopt;
  TracePtr trace;
  QString source;
  std::size_t skipped = 0;  ///< bad lines left out
  tuner::TraceFacts facts;
  bool cancelled = false;  ///< the Cancel button stopped the passes: facts are not made
};

struct WhatIfResult {
  int generation = 0;
  bool current = false;  ///< the current setting's series (else the candidate's)
  JobResult<std::shared_ptr<const tuner::WhatIfSeries>> series;
};

/// A sweep that ran to its end.
struct SweepDone {
  std::shared_ptr<const tuner::GuidedSweep> result;  ///< all keys and the well-behaved ones
  tuner::SweepSpec spec;
  tuner::Recommendation recommendation;
  /// The recommendation in words (spend limit, quota burn, the grid's edge), from core.
  tuner::Advice advice;
  /// Whether every constraint could be judged (tuner::check_constraints: not a spend limit on
  /// a trace without prices). A sweep is shown either way; this says what it could not judge.
  Status constraints;
};

struct SweepOutcome {
  JobResult<SweepDone> sweep;  ///< the sweep, or why not (failed, cancelled)
};

/// One key's replay counts with the current and the candidate setting (for a key's override).
struct KeyCounts {
  tuner::Counts current;
  tuner::Counts candidate;
};

struct KeyCountsResult {
  int request = 0;
  JobResult<std::optional<KeyCounts>> counts;  ///< nullopt when the key is not in the trace
};

/// A what-if scenario's result (core/tuner/scenario_tables.h).
struct ScenarioResult {
  enum class Kind { outage, routing } kind = Kind::outage;
  int generation = 0;
  JobResult<std::shared_ptr<const ResultTable>> table;
};

/// Where the live rule lives.
struct RuleTarget {
  QString url;
  QString prefix;
  QString rule;
};

/// The live rule's config as read or written.
struct LiveConfig {
  std::optional<redis::RuleConfig> config;  ///< read: nullopt when the rule has none
  /// read: the version of the rule's shadow config (0: never set), for its compare-and-set
  std::int64_t shadow_version = 0;
};

struct ConfigResult {
  enum class Op { read, apply, undo } op = Op::read;
  /// The config, or why not (apply/undo: a conflict when the version moved, nothing written).
  JobResult<LiveConfig> live;
};

/// A rule's shadow config put or cleared (core/redis/shadow_config.h: audited, compare-and-set).
/// A shadow as written.
struct ShadowWritten {
  std::optional<redis::RuleConfig> shadow;  ///< set: as stored
  std::int64_t version = 0;                 ///< the shadow's version after the change
};

struct ShadowResult {
  bool cleared = false;  ///< clear (else set)
  /// The shadow, or why not (a conflict when its version moved since it was read).
  JobResult<ShadowWritten> written;
};

class TunerWorker : public QObject {
  Q_OBJECT
 public:
  explicit TunerWorker(QObject* parent = nullptr);

  // Called on the worker's thread (QMetaObject::invokeMethod with a lambda).
  void loadFile(const QString& path, const CancelFlag& cancel);
  void loadRecording(const QString& path, const CancelFlag& cancel);
  void loadScenario(const QString& name, double seconds, quint64 seed, const CancelFlag& cancel);
  void loadStream(const RuleTarget& target, const CancelFlag& cancel);
  /// Fills study.facts for `algorithm` (an x axis of `x_steps`), or study.cancelled, then
  /// traceStudied.
  void studyTrace(TraceStudy study, Algorithm algorithm, int x_steps, const CancelFlag& cancel);
  void computeWhatIf(const TracePtr& trace, const LimitParams& params, int columns, bool current,
                     int generation, const PricingPtr& pricing);
  /// Sweeps with `pricing` (spec.pricing is set from it for the run, and cleared in the
  /// outcome, which outlives it), then advises (core/tuner/advice.h) with the current setting
  /// and the spend limit (nullopt: off).
  void runSweep(const TracePtr& trace, tuner::SweepSpec spec,
                const tuner::OperatorConstraints& constraints, const PricingPtr& pricing,
                const CancelFlag& cancel, const LimitParams& current,
                std::optional<double> maxSpendIncrease);
  /// Replays the trace's requests of `key` with both settings (keys never share state, so
  /// these are exactly the key's counts in the full replays).
  void keyCounts(const TracePtr& trace, const std::string& key, const LimitParams& current,
                 const LimitParams& candidate, int request);
  /// The outage what-if (core/tuner/outage_whatif.h): `outage` as "10m@14:00" or "90s@+5m".
  void computeOutage(const TracePtr& trace, const LimitParams& params, const QString& outage,
                     int replicas, const PricingPtr& pricing, int generation);
  /// The routing what-if (core/tuner/routing_whatif.h); pricing->policy gives the models.
  void computeRouting(const TracePtr& trace, const LimitParams& params, int under_tokens,
                      const QString& to_model, const PricingPtr& pricing, int generation);
  void readConfig(const RuleTarget& target);
  void applyConfig(const RuleTarget& target, const redis::RuleConfig& config,
                   const redis::ChangeInfo& change);
  void undoConfig(const RuleTarget& target, const redis::ChangeInfo& change);
  /// Stores `config` as the rule's shadow (set_shadow: compare-and-set on change.expect_version,
  /// an audit entry), or clears it (clear_shadow).
  void setShadow(const RuleTarget& target, const redis::RuleConfig& config,
                 const redis::ChangeInfo& change);
  void clearShadow(const RuleTarget& target, const redis::ChangeInfo& change);

 signals:
  void progress(double fraction, const QString& what);
  void traceLoaded(const limitscope::ui::TraceLoadResult& result);
  void traceStudied(const limitscope::ui::TraceStudy& study);
  void whatIfReady(const limitscope::ui::WhatIfResult& result);
  void sweepDone(const limitscope::ui::SweepOutcome& outcome);
  void configDone(const limitscope::ui::ConfigResult& result);
  void keyCountsReady(const limitscope::ui::KeyCountsResult& result);
  void scenarioReady(const limitscope::ui::ScenarioResult& result);
  void shadowDone(const limitscope::ui::ShadowResult& result);

 private:
  void finishLoad(Expected<trace::TraceLoad> load, const QString& source);
  std::function<void(double)> reporter(const QString& what);
};

}  // namespace limitscope::ui

Q_DECLARE_METATYPE(limitscope::ui::TraceLoadResult)
Q_DECLARE_METATYPE(limitscope::ui::TraceStudy)
Q_DECLARE_METATYPE(limitscope::ui::WhatIfResult)
Q_DECLARE_METATYPE(limitscope::ui::SweepOutcome)
Q_DECLARE_METATYPE(limitscope::ui::ConfigResult)
Q_DECLARE_METATYPE(limitscope::ui::KeyCountsResult)
Q_DECLARE_METATYPE(limitscope::ui::ScenarioResult)
Q_DECLARE_METATYPE(limitscope::ui::ShadowResult)
