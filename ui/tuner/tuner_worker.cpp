#include "ui/tuner/tuner_worker.h"

#include <QElapsedTimer>
#include <fstream>

#include "core/recording/recording_reader.h"
#include "core/redis/client_options.h"
#include "core/redis/connection.h"
#include "core/redis/endpoint.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"
#include "core/redis/shadow_config.h"
#include "core/trace/trace_file_load.h"
#include "core/tuner/scenario_tables.h"
#include "core/tuner/stream_trace.h"
#include "core/tuner/trace_sources.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

namespace {

// Runs `op` (a function of a Connection returning Result<T>) where the rule's keys are
// (redis::Endpoint: the server, or the rule's shard of a cluster). The Tuner's Redis work is
// a handful of commands per click.
template <class T, class Op>
redis::Result<T> on_target(const RuleTarget& target, redis::KeySchema& schema, Op&& op) {
  // The shared Redis options (core/redis/client_options.h): the URL as given (its password
  // already resolved by the connection), the prefix, the one default timeout.
  redis::ClientOptionText given;
  given.url = redis::GivenOption{"Redis URL", target.url.toStdString()};
  if (!target.prefix.isEmpty())
    given.prefix = redis::GivenOption{"prefix", target.prefix.toStdString()};
  auto options = redis::parse_client_options(given, nullptr, true);
  if (!options) return redis::RedisError{redis::ErrorKind::usage, options.error()};
  schema = options->schema;
  redis::Endpoint endpoint(options->url, redis::EndpointOptions::with(options->connect),
                           SteadyClock::instance());
  return endpoint.on_rule<T>(schema, target.rule.toStdString(), op);
}

JobError failed(std::string message) {
  return JobError{JobError::Kind::failed, qs(message)};
}

// A write's error: a conflict when the version it compared had moved.
JobError write_error(const redis::RedisError& e) {
  return JobError{redis::is_version_conflict(e) ? JobError::Kind::conflict : JobError::Kind::failed,
                  qs(e.message)};
}

}  // namespace

TunerWorker::TunerWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<TraceLoadResult>();
  qRegisterMetaType<TraceStudy>();
  qRegisterMetaType<WhatIfResult>();
  qRegisterMetaType<SweepOutcome>();
  qRegisterMetaType<ConfigResult>();
  qRegisterMetaType<KeyCountsResult>();
  qRegisterMetaType<ShadowResult>();
  qRegisterMetaType<ScenarioResult>();
}

std::function<void(double)> TunerWorker::reporter(const QString& what) {
  // At most about 20 progress signals a second: a 10-million-line file reads 64 KiB blocks.
  auto timer = std::make_shared<QElapsedTimer>();
  timer->start();
  return [this, what, timer, last = std::make_shared<qint64>(-1000)](double f) {
    if (f < 1.0 && timer->elapsed() - *last < 50) return;
    *last = timer->elapsed();
    emit progress(f, what);
  };
}

void TunerWorker::finishLoad(Expected<trace::TraceLoad> load, const QString& source) {
  if (!load) {
    const bool cancelled = load.error() == trace::kLoadCancelled;
    emit traceLoaded(
        {source, JobError{cancelled ? JobError::Kind::cancelled : JobError::Kind::failed,
                          qs(load.error())}});
    return;
  }
  LoadedTrace loaded;
  loaded.errors = std::move(load->errors);
  loaded.error_count = load->error_count;
  loaded.trace = std::make_shared<const trace::Trace>(std::move(load->trace));
  emit traceLoaded({source, std::move(loaded)});
}

void TunerWorker::loadFile(const QString& path, const CancelFlag& cancel) {
  finishLoad(trace::load_trace_file_bounded(path.toStdString(), {}, cancel.get(),
                                            reporter(tr("Reading %1").arg(path))),
             tr("file %1").arg(path));
}

void TunerWorker::loadRecording(const QString& path, const CancelFlag& cancel) {
  const QString source = tr("recording %1").arg(path);
  emit progress(0, tr("Reading %1").arg(path));
  std::ifstream in(path.toStdString(), std::ios::binary);
  if (!in)
    return finishLoad(make_error("recording " + path.toStdString() + ": cannot be read"), source);
  auto rec = read_recording(in, path.toStdString());
  if (cancel->load()) return finishLoad(make_error(trace::kLoadCancelled), source);
  if (!rec.has_header)
    return finishLoad(make_error(rec.error.empty() ? "not a recording" : rec.error), source);
  finishLoad(tuner::trace_from_recording(rec.recording, rec.error), source);
}

void TunerWorker::loadScenario(const QString& name, double seconds, quint64 seed,
                               const CancelFlag& cancel) {
  tuner::ScenarioTraceOptions o;
  o.scenario = name.toStdString();
  o.seed = seed;
  o.duration = Nanos{static_cast<std::int64_t>(seconds * 1e9)};
  const QString source = tr("scenario %1 (%2 s, seed %3)").arg(name).arg(seconds).arg(seed);
  auto trace = tuner::trace_from_scenario(o, cancel.get(), reporter(tr("Simulating %1").arg(name)));
  if (!trace) {
    const std::string e = trace.error();
    return finishLoad(make_error(e == "cancelled" ? std::string(trace::kLoadCancelled) : e),
                      source);
  }
  trace::TraceLoad load;
  load.trace = std::move(*trace);
  finishLoad(std::move(load), source);
}

void TunerWorker::loadStream(const RuleTarget& target, const CancelFlag& cancel) {
  const QString source = tr("decision stream of rule %1").arg(target.rule);
  emit progress(0, tr("Reading the decision stream of %1").arg(target.rule));
  redis::KeySchema schema;
  auto load = on_target<trace::TraceLoad>(target, schema, [&](redis::Connection& c) {
    return tuner::trace_from_decision_stream(
        c, schema, target.rule.toStdString(), 16'000'000, {}, cancel.get(),
        reporter(tr("Reading the decision stream of %1").arg(target.rule)));
  });
  if (!load) return finishLoad(make_error(load.error().message), source);
  finishLoad(std::move(*load), source);
}

void TunerWorker::studyTrace(TraceStudy study, Algorithm algorithm, int x_steps,
                             const CancelFlag& cancel) {
  if (auto facts = tuner::study_trace(*study.trace, algorithm, x_steps, cancel.get()))
    study.facts = std::move(*facts);
  else
    study.cancelled = true;
  emit traceStudied(study);
}

void TunerWorker::computeWhatIf(const TracePtr& trace, const LimitParams& params, int columns,
                                bool current, int generation, const PricingPtr& pricing) {
  auto s = tuner::whatif_series(*trace, params, columns, pricing.get());
  if (!s) {
    emit whatIfReady({generation, current, failed(s.error())});
    return;
  }
  emit whatIfReady(
      {generation, current, std::make_shared<const tuner::WhatIfSeries>(std::move(*s))});
}

void TunerWorker::runSweep(const TracePtr& trace, tuner::SweepSpec spec,
                           const tuner::OperatorConstraints& constraints, const PricingPtr& pricing,
                           const CancelFlag& cancel, const LimitParams& current,
                           std::optional<double> maxSpendIncrease) {
  spec.pricing = pricing.get();
  auto r = tuner::sweep_with_well_behaved(*trace, spec, constraints.well_behaved_factor,
                                          cancel.get(), reporter(tr("Sweeping")));
  if (!r) {
    emit sweepDone({JobError{cancel->load() ? JobError::Kind::cancelled : JobError::Kind::failed,
                             qs(r.error())}});
    return;
  }
  SweepDone done;
  done.constraints = tuner::check_constraints(r->all, constraints.core);
  tuner::AdviceOptions advice;
  advice.current = current;
  advice.max_spend_increase = maxSpendIncrease;
  advice.pricing = pricing.get();
  done.advice = tuner::advise(*trace, spec, *r, constraints, advice);
  done.recommendation = done.advice.recommendation;
  done.result = std::make_shared<const tuner::GuidedSweep>(std::move(*r));
  spec.pricing = nullptr;  // the outcome outlives `pricing`
  done.spec = spec;
  emit sweepDone({std::move(done)});
}

void TunerWorker::keyCounts(const TracePtr& trace, const std::string& key,
                            const LimitParams& current, const LimitParams& candidate, int request) {
  std::vector<bool> keep(trace->keys.size(), false);
  for (std::size_t k = 0; k < trace->keys.size(); ++k) keep[k] = trace->keys[k] == key;
  const trace::Trace sub = tuner::restrict_to_keys(*trace, keep);
  if (sub.events.empty()) {
    emit keyCountsReady({request, std::optional<KeyCounts>()});
    return;
  }
  auto cur = tuner::replay(sub, current);
  auto cand = tuner::replay(sub, candidate);
  if (!cur || !cand) {
    emit keyCountsReady({request, failed(!cur ? cur.error() : cand.error())});
    return;
  }
  emit keyCountsReady({request, std::optional<KeyCounts>(KeyCounts{cur->total, cand->total})});
}

void TunerWorker::computeOutage(const TracePtr& trace, const LimitParams& params,
                                const QString& outage, int replicas, const PricingPtr& pricing,
                                int generation) {
  constexpr auto kind = ScenarioResult::Kind::outage;
  auto window = tuner::parse_outage(outage.toStdString(), *trace);
  if (!window) {
    emit scenarioReady({kind, generation, failed("Outage: " + window.error())});
    return;
  }
  tuner::OutageOptions o;
  o.window = *window;
  o.replicas = replicas;
  o.pricing = pricing.get();
  auto w = tuner::whatif_outage(*trace, params, o);
  if (!w) {
    emit scenarioReady({kind, generation, failed(w.error())});
    return;
  }
  emit scenarioReady(
      {kind, generation, std::make_shared<const ResultTable>(tuner::outage_table(*w))});
}

void TunerWorker::computeRouting(const TracePtr& trace, const LimitParams& params, int under_tokens,
                                 const QString& to_model, const PricingPtr& pricing,
                                 int generation) {
  constexpr auto kind = ScenarioResult::Kind::routing;
  const tuner::RoutingRule rule{static_cast<std::uint32_t>(under_tokens), to_model.toStdString()};
  auto w = tuner::whatif_routing(*trace, params, rule, *pricing);
  if (!w) {
    emit scenarioReady({kind, generation, failed(w.error())});
    return;
  }
  emit scenarioReady(
      {kind, generation, std::make_shared<const ResultTable>(tuner::routing_table(*w))});
}

void TunerWorker::readConfig(const RuleTarget& target) {
  constexpr auto op = ConfigResult::Op::read;
  redis::KeySchema schema;
  auto cfg = on_target<std::optional<redis::RuleConfig>>(target, schema, [&](redis::Connection& c) {
    return redis::get_config(c, schema, target.rule.toStdString());
  });
  if (!cfg) {
    emit configDone({op, failed(cfg.error().message)});
    return;
  }
  // The shadow's version, for "Put in shadow"'s compare-and-set.
  auto shadow = on_target<redis::ShadowState>(target, schema, [&](redis::Connection& c) {
    return redis::get_shadow(c, schema, target.rule.toStdString());
  });
  if (!shadow) {
    emit configDone({op, failed("reading the shadow config: " + shadow.error().message)});
    return;
  }
  emit configDone({op, LiveConfig{std::move(*cfg), shadow->version}});
}

void TunerWorker::setShadow(const RuleTarget& target, const redis::RuleConfig& config,
                            const redis::ChangeInfo& change) {
  redis::KeySchema schema;
  auto set = on_target<redis::RuleConfig>(target, schema, [&](redis::Connection& c) {
    return redis::set_shadow(c, schema, target.rule.toStdString(), config, change);
  });
  if (!set) {
    emit shadowDone({false, write_error(set.error())});
    return;
  }
  const std::int64_t version = set->version;
  emit shadowDone({false, ShadowWritten{std::move(*set), version}});
}

void TunerWorker::clearShadow(const RuleTarget& target, const redis::ChangeInfo& change) {
  redis::KeySchema schema;
  auto cleared = on_target<redis::ShadowState>(target, schema, [&](redis::Connection& c) {
    return redis::clear_shadow(c, schema, target.rule.toStdString(), change);
  });
  if (!cleared) {
    emit shadowDone({true, write_error(cleared.error())});
    return;
  }
  emit shadowDone({true, ShadowWritten{std::nullopt, cleared->version}});
}

void TunerWorker::applyConfig(const RuleTarget& target, const redis::RuleConfig& config,
                              const redis::ChangeInfo& change) {
  constexpr auto op = ConfigResult::Op::apply;
  redis::KeySchema schema;
  auto set = on_target<redis::RuleConfig>(target, schema, [&](redis::Connection& c) {
    return redis::set_config(c, schema, target.rule.toStdString(), config, change);
  });
  if (!set) {
    emit configDone({op, write_error(set.error())});
    return;
  }
  emit configDone({op, LiveConfig{std::move(*set), 0}});
}

void TunerWorker::undoConfig(const RuleTarget& target, const redis::ChangeInfo& change) {
  constexpr auto op = ConfigResult::Op::undo;
  redis::KeySchema schema;
  auto undone = on_target<redis::RuleConfig>(target, schema, [&](redis::Connection& c) {
    return redis::undo_config(c, schema, target.rule.toStdString(), change);
  });
  if (!undone) {
    emit configDone({op, write_error(undone.error())});
    return;
  }
  emit configDone({op, LiveConfig{std::move(*undone), 0}});
}

}  // namespace limitscope::ui
