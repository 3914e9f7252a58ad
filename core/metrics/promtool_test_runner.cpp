#include "core/metrics/promtool_test_runner.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/metrics/alert_engine.h"
#include "core/metrics/go_format.h"
#include "core/metrics/prom_duration.h"
#include "core/metrics/promql.h"
#include "core/metrics/promtool_test_file.h"
#include "core/metrics/rule_file.h"
#include "core/metrics/series_store.h"

namespace limitscope::metrics {

namespace {

std::string go_quote(std::string_view s) {
  return gofmt::sprintf("%q", {std::string(s)});
}

// promtool's indentLines: every line after the first gets the indent.
std::string indent_lines(const std::string& text, const std::string& indent) {
  std::string out;
  std::size_t start = 0;
  bool first = true;
  for (;;) {
    const std::size_t nl = text.find('\n', start);
    if (!first) out += indent;
    first = false;
    out += text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

using LabelsAndAnnotations = std::vector<std::pair<Labels, Labels>>;

std::string alerts_string(const LabelsAndAnnotations& la) {
  if (la.empty()) return "[]";
  std::string s = "[";
  for (std::size_t i = 0; i < la.size(); ++i) {
    s += i == 0 ? "\n" : ",\n";
    s += std::to_string(i) + ":" +
         indent_lines("\nLabels:" + go_labels_string(la[i].first) +
                          "\nAnnotations:" + go_labels_string(la[i].second),
                      "  ");
  }
  return s + "\n]";
}

std::string samples_string(const std::vector<InstantSample>& v) {
  if (v.empty()) return "nil";
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ", ";
    s += go_labels_string(v[i].labels) + " " + gofmt::format_float_upper_e(v[i].value);
  }
  return s;
}

struct GroupRun {
  const RuleTestFile& file;
  const RuleTestGroup& tg;
  std::vector<std::string>& failures;

  // @return ok (the tests' failures go to `failures`), or why the input cannot be used.
  Status run() {
    std::vector<RuleGroup> groups;
    for (const std::string& path : file.rule_files) {
      auto rf = load_rule_file(path);
      if (!rf.ok()) return make_error(rf.error());
      for (auto& g : rf->groups) groups.push_back(std::move(g));
    }
    std::map<std::string, std::size_t> order;
    for (std::size_t i = 0; i < file.group_eval_order.size(); ++i) {
      if (!order.emplace(file.group_eval_order[i], i).second) {
        return make_error(file.path +
                          ": group name repeated in evaluation order: " + file.group_eval_order[i]);
      }
    }
    // Groups not named in group_eval_order sort as position 0, as promtool's partial order.
    std::stable_sort(groups.begin(), groups.end(), [&](const RuleGroup& a, const RuleGroup& b) {
      const auto ia = order.find(a.name);
      const auto ib = order.find(b.name);
      return (ia == order.end() ? 0 : ia->second) < (ib == order.end() ? 0 : ib->second);
    });

    const std::int64_t eval_interval = file.evaluation_interval_ms;
    const std::int64_t step = tg.interval_ms > 0 ? tg.interval_ms : eval_interval;
    std::int64_t maxt = 0;
    for (const auto& a : tg.alert_tests) maxt = std::max(maxt, a.eval_time_ms);
    for (const auto& p : tg.promql_tests) maxt = std::max(maxt, p.eval_time_ms);
    if (maxt / eval_interval >= kMaxEvaluationSteps) {
      return make_error(file.path + ": eval_time " + format_prom_duration(maxt) + " needs " +
                        std::to_string(maxt / eval_interval + 1) +
                        " evaluation steps of evaluation_interval " +
                        format_prom_duration(eval_interval) + "; at most " +
                        std::to_string(kMaxEvaluationSteps) + " are run");
    }
    std::size_t longest = 0;
    for (const auto& s : tg.input_series) longest = std::max(longest, s.values.size());
    SeriesStoreOptions so;
    so.samples_per_series = longest + static_cast<std::size_t>(maxt / eval_interval) + 16;
    so.max_series = 10'000'000;
    SeriesStore store(so);
    for (const auto& s : tg.input_series) {
      for (std::size_t k = 0; k < s.values.size(); ++k) {
        if (!s.values[k]) continue;
        const std::int64_t t = static_cast<std::int64_t>(k) * step;
        store.append(s.labels, Sample{t, *s.values[k]});
      }
    }
    AlertEngineOptions eo;
    eo.default_interval_ms = eval_interval;
    eo.external_labels = tg.external_labels;
    eo.external_url = tg.external_url;
    AlertEngine engine(store, std::move(groups), eo);
    const std::string name_line = tg.name.empty() ? "" : "    name: " + tg.name + ",\n";

    std::vector<std::int64_t> alert_times;
    for (const auto& a : tg.alert_tests) alert_times.push_back(a.eval_time_ms);
    std::sort(alert_times.begin(), alert_times.end());
    alert_times.erase(std::unique(alert_times.begin(), alert_times.end()), alert_times.end());
    std::size_t curr = 0;

    for (std::int64_t ts = 0; ts <= maxt; ts += eval_interval) {
      engine.evaluate_all(ts);
      bool eval_failed = false;
      for (std::size_t g = 0; g < engine.groups().size(); ++g) {
        for (std::size_t r = 0; r < engine.groups()[g].rules.size(); ++r) {
          const std::string& err = engine.last_error(g, r);
          if (err.empty()) continue;
          failures.push_back("    rule: " + engine.groups()[g].rules[r].name +
                             ", time: " + go_duration_string(ts) + ", err: " + err);
          eval_failed = true;
        }
      }
      if (eval_failed) return {};
      while (curr < alert_times.size() && ts <= alert_times[curr] &&
             alert_times[curr] < ts + eval_interval) {
        check_alerts(engine, alert_times[curr], name_line);
        ++curr;
      }
    }
    for (const auto& p : tg.promql_tests) check_promql(store, p);
    return {};
  }

  void check_alerts(const AlertEngine& engine, std::int64_t t, const std::string& name_line) {
    for (const auto& tc : tg.alert_tests) {
      if (tc.eval_time_ms != t) continue;
      LabelsAndAnnotations got;
      for (std::size_t g = 0; g < engine.groups().size(); ++g) {
        const auto& rules = engine.groups()[g].rules;
        for (std::size_t r = 0; r < rules.size(); ++r) {
          if (rules[r].kind != RuleKind::alerting || rules[r].name != tc.alertname) continue;
          for (const Alert& a : engine.alerts_of(g, r)) {
            if (a.state == AlertState::firing && !a.resolved_at_ms)
              got.emplace_back(a.labels, a.annotations);
          }
        }
      }
      LabelsAndAnnotations exp;
      for (const auto& e : tc.exp_alerts) exp.emplace_back(e.labels, e.annotations);
      std::sort(got.begin(), got.end());
      std::sort(exp.begin(), exp.end());
      if (got == exp) continue;
      const std::string ind(12, ' ');
      failures.push_back(name_line + "    alertname: " + tc.alertname +
                         ", time: " + tc.eval_time_text +
                         ", \n        exp:" + indent_lines(alerts_string(exp), ind) +
                         ", \n        got:" + indent_lines(alerts_string(got), ind));
    }
  }

  void check_promql(const SeriesStore& store, const PromqlTestCase& p) {
    const std::string head = "    expr: " + go_quote(p.expr) + ", time: " + p.eval_time_text;
    auto expr = parse_promql(p.expr);
    if (!expr.ok()) {
      failures.push_back(head + ", err: " + expr.error());
      return;
    }
    auto v = evaluate(**expr, store, p.eval_time_ms);
    if (!v.ok()) {
      failures.push_back(head + ", err: " + v.error());
      return;
    }
    std::vector<InstantSample> got;
    if (v->kind == QueryValue::Kind::scalar) {
      got.push_back({Labels{}, v->scalar});
    } else {
      got = std::move(v->vector);
    }
    std::vector<InstantSample> exp;
    for (const auto& e : p.exp_samples) exp.push_back({e.labels, e.value});
    const auto by_labels = [](const InstantSample& a, const InstantSample& b) {
      return a.labels < b.labels;
    };
    std::sort(got.begin(), got.end(), by_labels);
    std::sort(exp.begin(), exp.end(), by_labels);
    bool same = got.size() == exp.size();
    // Exact comparison, NaN never equal: promtool compares with reflect.DeepEqual.
    for (std::size_t i = 0; same && i < got.size(); ++i) {
      same = got[i].labels == exp[i].labels && got[i].value == exp[i].value;
    }
    if (same) return;
    failures.push_back(head + ",\n        exp: " + samples_string(exp) +
                       "\n        got: " + samples_string(got));
  }
};

}  // namespace

std::string go_labels_string(const Labels& labels) {
  std::string s = "{";
  bool first = true;
  for (const auto& [k, v] : labels.pairs()) {
    if (!first) s += ", ";
    first = false;
    s += k + "=" + go_quote(v);
  }
  return s + "}";
}

RuleTestReport run_rule_test_file(const RuleTestFile& file) {
  RuleTestReport report;
  for (const RuleTestGroup& tg : file.tests) {
    GroupRun run{file, tg, report.failures};
    if (Status ran = run.run(); !ran.ok()) {
      report.input_error = ran.error();
      report.verdict = RuleTestReport::Verdict::bad_input;
      return report;
    }
  }
  report.verdict =
      report.failures.empty() ? RuleTestReport::Verdict::passed : RuleTestReport::Verdict::failed;
  return report;
}

}  // namespace limitscope::metrics
