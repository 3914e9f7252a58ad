#include "core/metrics/alert_engine.h"

#include <algorithm>

namespace limitscope::metrics {

AlertEngine::AlertEngine(SeriesStore& store, std::vector<RuleGroup> groups,
                         AlertEngineOptions options)
    : store_(store), groups_(std::move(groups)), options_(std::move(options)) {
  states_.resize(groups_.size());
  for (std::size_t g = 0; g < groups_.size(); ++g) states_[g].resize(groups_[g].rules.size());
  last_slot_.resize(groups_.size());
  publish(std::nullopt);  // the rules (and what they read) are known before any evaluation
}

std::size_t AlertEngine::evaluate_group(std::size_t group, std::int64_t t_ms) {
  const std::size_t failed = run_group(group, t_ms);
  publish(t_ms);
  return failed;
}

std::size_t AlertEngine::run_group(std::size_t group, std::int64_t t_ms) {
  const RuleGroup& g = groups_.at(group);
  std::size_t failed = 0;
  for (std::size_t i = 0; i < g.rules.size(); ++i) {
    RuleState& s = states_[group][i];
    if (g.rules[i].kind == RuleKind::recording) {
      eval_recording(g, g.rules[i], s, t_ms);
    } else {
      eval_alerting(g, g.rules[i], s, t_ms);
    }
    s.last_eval_ms = t_ms;
    if (!s.last_error.empty()) ++failed;
  }
  return failed;
}

std::size_t AlertEngine::evaluate_all(std::int64_t t_ms) {
  std::size_t failed = 0;
  for (std::size_t g = 0; g < groups_.size(); ++g) failed += run_group(g, t_ms);
  publish(t_ms);
  return failed;
}

std::size_t AlertEngine::evaluate_due(std::int64_t t_ms) {
  std::size_t evaluated = 0;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const std::int64_t interval =
        groups_[g].interval_ms > 0 ? groups_[g].interval_ms : options_.default_interval_ms;
    if (interval <= 0) continue;
    std::int64_t slot = t_ms - t_ms % interval;
    if (t_ms < 0 && t_ms % interval != 0) slot -= interval;  // floor for times before 1970
    if (last_slot_[g] && *last_slot_[g] >= slot) continue;
    last_slot_[g] = slot;
    run_group(g, slot);
    ++evaluated;
  }
  if (evaluated > 0) publish(t_ms);
  return evaluated;
}

namespace {

// Prometheus's query function: a scalar result becomes one sample without labels.
Expected<std::vector<InstantSample>> query(const Expr& e, const SeriesStore& store, std::int64_t t,
                                           const EvalOptions& opts) {
  auto v = evaluate(e, store, t, opts);
  if (!v.ok()) return make_error(v.error());
  if (v->kind == QueryValue::Kind::scalar) return std::vector<InstantSample>{{Labels{}, v->scalar}};
  return std::move(v->vector);
}

// labels.Builder.Set: an empty value deletes the label.
void set_or_erase(Labels& l, const std::string& name, const std::string& value) {
  if (value.empty()) {
    l.erase(name);
  } else {
    l.set(name, value);
  }
}

}  // namespace

void AlertEngine::eval_recording(const RuleGroup& g, const Rule& r, RuleState& s, std::int64_t t) {
  auto res = query(*r.expr, store_, t, options_.eval);
  if (!res.ok()) {
    s.last_error = res.error();
    return;
  }
  std::vector<InstantSample> out;
  out.reserve(res->size());
  std::unordered_set<Labels, LabelsHash> seen;
  for (auto& smp : *res) {
    Labels l = std::move(smp.labels);
    l.set("__name__", r.name);
    for (const auto& p : r.labels) set_or_erase(l, p.name, p.text);
    if (!seen.insert(l).second) {
      s.last_error = "vector contains metrics with the same labelset after applying rule labels";
      return;
    }
    out.push_back({std::move(l), smp.value});
  }
  if (g.limit > 0 && out.size() > g.limit) {
    s.last_error = "exceeded limit of " + std::to_string(g.limit) + " with " +
                   std::to_string(out.size()) + " series";
    return;
  }
  s.last_error.clear();
  s.output_series = out.size();
  write_series(s, out, t);
}

void AlertEngine::write_series(RuleState& s, const std::vector<InstantSample>& out,
                               std::int64_t t) {
  std::unordered_set<Labels, LabelsHash> now;
  now.reserve(out.size());
  for (const auto& smp : out) {
    // A duplicate timestamp (the same slot evaluated twice) is refused by the store and
    // harmless here: the first value of that instant stays.
    store_.append(smp.labels, Sample{t, smp.value});
    now.insert(smp.labels);
  }
  for (const auto& old : s.previous_series) {
    if (!now.count(old)) store_.append_stale(old, t);
  }
  s.previous_series = std::move(now);
}

void AlertEngine::open_interval(RuleState& s, const Labels& l, AlertState st, std::int64_t t) {
  s.open[l] = StateInterval{l, st, t, std::nullopt};
}

void AlertEngine::close_interval(RuleState& s, const Labels& l, std::int64_t t) {
  auto it = s.open.find(l);
  if (it == s.open.end()) return;
  StateInterval iv = std::move(it->second);
  s.open.erase(it);
  if (t <= iv.start_ms) return;  // zero-length (for: 0 fires at once): nothing to shade
  iv.end_ms = t;
  s.history.push_back(std::move(iv));
  while (s.history.size() > options_.history_per_rule) s.history.pop_front();
}

void AlertEngine::eval_alerting(const RuleGroup& g, const Rule& r, RuleState& s, std::int64_t t) {
  auto res = query(*r.expr, store_, t, options_.eval);
  if (!res.ok()) {
    s.last_error = res.error();
    return;
  }
  // Build this evaluation's alerts: labels and annotations expanded from templates.
  std::unordered_map<Labels, Alert, LabelsHash> fresh;
  fresh.reserve(res->size());
  for (auto& smp : *res) {
    TemplateData data;
    data.labels = &smp.labels;
    data.value = smp.value;
    data.external_labels = &options_.external_labels;
    data.external_url = options_.external_url;
    Labels l = smp.labels.without_name();
    for (const auto& p : r.labels) set_or_erase(l, p.name, p.tmpl.expand_or_error(data));
    l.set("alertname", r.name);
    Labels ann;
    for (const auto& p : r.annotations) ann.set(p.name, p.tmpl.expand_or_error(data));
    Alert a;
    a.rule = r.name;
    a.group = g.name;
    a.labels = l;
    a.annotations = std::move(ann);
    a.state = AlertState::pending;
    a.active_at_ms = t;
    a.last_eval_ms = t;
    a.value = smp.value;
    if (!fresh.emplace(std::move(l), std::move(a)).second) {
      s.last_error = "vector contains metrics with the same labelset after applying alert labels";
      return;
    }
  }
  for (auto& [key, a] : fresh) {
    auto it = s.active.find(key);
    if (it != s.active.end() && it->second.state != AlertState::inactive) {
      it->second.value = a.value;
      it->second.annotations = std::move(a.annotations);
      it->second.last_eval_ms = t;
      continue;
    }
    if (it != s.active.end()) close_interval(s, key, t);
    s.active[key] = std::move(a);
    open_interval(s, key, AlertState::pending, t);
  }
  std::size_t active_pending = 0;
  std::vector<InstantSample> series;
  for (auto it = s.active.begin(); it != s.active.end();) {
    Alert& a = it->second;
    if (!fresh.count(it->first)) {
      bool keep_firing = false;
      if (a.state == AlertState::firing && r.keep_firing_for_ms > 0) {
        if (!a.keep_firing_since_ms) a.keep_firing_since_ms = t;
        keep_firing = t - *a.keep_firing_since_ms < r.keep_firing_for_ms;
      }
      const bool drop =
          a.state == AlertState::pending ||
          (a.resolved_at_ms && t - *a.resolved_at_ms > options_.resolved_retention_ms);
      if (a.state != AlertState::inactive && !keep_firing) {
        close_interval(s, it->first, t);
        a.state = AlertState::inactive;
        a.resolved_at_ms = t;
      }
      if (drop) {
        it = s.active.erase(it);
        continue;
      }
      if (!keep_firing) {
        ++it;
        continue;
      }
    } else {
      a.keep_firing_since_ms.reset();
    }
    ++active_pending;
    if (a.state == AlertState::pending && t - a.active_at_ms >= r.for_ms) {
      close_interval(s, it->first, t);
      a.state = AlertState::firing;
      a.fired_at_ms = t;
      open_interval(s, it->first, AlertState::firing, t);
    }
    if (options_.write_alert_series) {
      Labels al = a.labels;
      al.set("__name__", "ALERTS");
      al.set("alertstate", alert_state_name(a.state));
      series.push_back({std::move(al), 1.0});
      Labels fs = a.labels;
      fs.set("__name__", "ALERTS_FOR_STATE");
      // Unix seconds, truncated as Go's Time.Unix() does.
      const std::int64_t secs =
          a.active_at_ms >= 0 ? a.active_at_ms / 1000 : -((-a.active_at_ms + 999) / 1000);
      series.push_back({std::move(fs), static_cast<double>(secs)});
    }
    ++it;
  }
  if (g.limit > 0 && active_pending > g.limit) {
    for (const auto& [key, a] : s.active) close_interval(s, key, t);
    s.active.clear();
    s.last_error = "exceeded limit of " + std::to_string(g.limit) + " with " +
                   std::to_string(active_pending) + " alerts";
    return;
  }
  s.last_error.clear();
  s.output_series = active_pending;
  if (options_.write_alert_series) write_series(s, series, t);
}

std::vector<Alert> AlertEngine::alerts_of(std::size_t group, std::size_t rule) const {
  std::vector<Alert> out;
  for (const auto& [k, a] : states_.at(group).at(rule).active) out.push_back(a);
  std::sort(out.begin(), out.end(),
            [](const Alert& a, const Alert& b) { return a.labels < b.labels; });
  return out;
}

const std::string& AlertEngine::last_error(std::size_t group, std::size_t rule) const {
  return states_.at(group).at(rule).last_error;
}

void AlertEngine::publish(std::optional<std::int64_t> t) {
  auto snap = std::make_shared<AlertSnapshot>();
  snap->evaluated_at_ms = t;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    for (std::size_t i = 0; i < groups_[g].rules.size(); ++i) {
      const Rule& r = groups_[g].rules[i];
      const RuleState& s = states_[g][i];
      RuleStatus st;
      st.group = groups_[g].name;
      st.name = r.name;
      st.kind = r.kind;
      st.expr = r.expr;
      st.last_error = s.last_error;
      st.last_eval_ms = s.last_eval_ms;
      st.output_series = s.output_series;
      if (r.expr) st.reads = metric_names(*r.expr);
      st.for_ms = r.for_ms;
      if (r.expr) st.higher_is_worse = alerts_when_higher(*r.expr);
      if (r.kind == RuleKind::alerting) {
        std::vector<Alert> alerts = alerts_of(g, i);
        for (const Alert& a : alerts) st.state = std::max(st.state, a.state);
        st.history.assign(s.history.begin(), s.history.end());
        std::vector<StateInterval> open;
        for (const auto& [k, iv] : s.open) open.push_back(iv);
        std::sort(open.begin(), open.end(),
                  [](const auto& a, const auto& b) { return a.start_ms < b.start_ms; });
        st.history.insert(st.history.end(), open.begin(), open.end());
        snap->alerts.insert(snap->alerts.end(), std::make_move_iterator(alerts.begin()),
                            std::make_move_iterator(alerts.end()));
      }
      snap->rules.push_back(std::move(st));
    }
  }
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  snapshot_ = std::move(snap);
}

std::shared_ptr<const AlertSnapshot> AlertEngine::snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return snapshot_;
}

}  // namespace limitscope::metrics
