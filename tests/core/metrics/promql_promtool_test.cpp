// Verifies that limitscope's PromQL evaluator agrees bit for bit with Prometheus: the same
// input series go into a SeriesStore and into a promtool unit-test file whose exp_samples are
// our results; `promtool test rules` (Debian's prometheus 2.42) must accept every one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include "core/metrics/promql.h"

namespace limitscope::metrics {
namespace {

constexpr const char* kPromtool = "/usr/bin/promtool";

struct InputRow {
  Labels labels;
  std::vector<std::optional<double>> values;  // nullopt: no sample; stale_marker(): stale
};

struct Group {
  std::int64_t interval_ms = 15000;
  std::deque<InputRow> series;  // deque: references to rows stay valid while adding more
  std::vector<std::string> exprs;
  std::vector<std::int64_t> eval_times_ms;
};

std::string yaml_number(double v) {
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string yaml_quote(const std::string& s) {  // single-quoted YAML scalar
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string labels_text(const Labels& l) {
  return l.empty() ? "{}" : l.to_string();
}

// Random but reproducible inputs: counters with resets and gaps, gauges with a stale period,
// two classic histograms, request counters by code.
Group make_group(unsigned seed, std::int64_t interval_ms, int steps) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Group g;
  g.interval_ms = interval_ms;
  auto series = [&](Labels l) -> std::vector<std::optional<double>>& {
    g.series.push_back({std::move(l), std::vector<std::optional<double>>(steps)});
    return g.series.back().values;
  };
  auto& ca = series({{"__name__", "c"}, {"job", "a"}});
  auto& cb = series({{"__name__", "c"}, {"job", "b"}});
  auto& cl = series({{"__name__", "c"}, {"job", "late"}});
  auto& cs = series({{"__name__", "c"}, {"job", "sparse"}});
  auto& ga = series({{"__name__", "g"}, {"job", "a"}});
  auto& gb = series({{"__name__", "g"}, {"job", "b"}});
  auto& fa = series({{"__name__", "f"}, {"job", "a"}});
  double b = 0;
  double s = 0;
  for (int i = 0; i < steps; ++i) {
    ca[i] = 10.0 * i;
    b = (i == steps / 4 || i == steps / 2) ? uniform(0, 3) : b + uniform(0, 20);
    cb[i] = b;
    if (i >= 5) cl[i] = 3 + 7.0 * (i - 5);
    s += uniform(1, 9);
    if (uniform(0, 3) == 0) cs[i] = s;
    // g holds dyadic values so that sums over series are exact whatever their order (promtool
    // loads series in random order); f has decimals for the per-series compensated sums.
    ga[i] = uniform(-100, 100) / 4.0;
    fa[i] = uniform(-1000, 1000) / 10.0;
    if (i == steps / 3) {
      gb[i] = stale_marker();
    } else if (i < steps / 3 || i > steps / 3 + 4) {
      gb[i] = uniform(0, 1000) / 8.0;
    }
  }
  const char* les[] = {"0.5", "1", "5", "10", "+Inf"};
  for (const char* tier : {"free", "pro"}) {
    std::vector<double> counts(5, 0);
    std::vector<std::vector<std::optional<double>>*> rows;
    for (const char* le : les)
      rows.push_back(&series({{"__name__", "h_bucket"}, {"tier", tier}, {"le", le}}));
    for (int i = 0; i < steps; ++i) {
      double running = 0;
      for (std::size_t k = 0; k < 5; ++k) {
        running += uniform(0, k == 4 ? 1 : 6);
        counts[k] += running;
        (*rows[k])[i] = counts[k];
      }
    }
  }
  for (const char* code : {"200", "429"}) {
    auto& r = series({{"__name__", "req"}, {"job", "a"}, {"code", code}});
    double v = 0;
    for (int i = 0; i < steps; ++i) r[i] = v += uniform(1, std::string(code) == "200" ? 50 : 10);
  }
  return g;
}

const std::vector<std::string>& expressions() {
  static const std::vector<std::string> exprs = {
      "c",
      "c offset 30s",
      "g",
      "g offset -1m",
      "rate(c[1m])",
      "rate(c[2m])",
      "increase(c[45s])",
      "increase(c[5m])",
      "rate(c[1m] offset 1m)",
      "irate(c[1m])",
      "delta(g[1m])",
      "idelta(g[2m])",
      "increase(c[1m30s])",
      "sum(c)",
      "sum by (job) (rate(c[1m]))",
      "sum(g)",
      "sum by (job) (g)",
      "avg(g)",
      "max(c)",
      "min without (job) (g)",
      "count(c)",
      "avg by (job) (c)",
      "count without (job) (c)",
      "histogram_quantile(0.9, rate(h_bucket[2m]))",
      "histogram_quantile(0.5, h_bucket)",
      "histogram_quantile(0.99, sum by (le) (h_bucket))",
      "histogram_quantile(0.25, h_bucket offset 1m)",
      "histogram_quantile(1, h_bucket)",
      "req{code=\"429\"} / ignoring(code) req{code=\"200\"}",
      "rate(req{code=\"429\"}[2m]) / on(job) rate(req{code=\"200\"}[2m])",
      "c > 30",
      "c > bool 30",
      "30 < c",
      "c == bool c",
      "g <= 0",
      "g > 0 and on(job) c > 20",
      "c unless g",
      "c or g",
      "c and g",
      "abs(g)",
      "clamp_min(g, 0)",
      "clamp_max(g, 3)",
      "clamp(g, -10, 10)",
      "round(g)",
      "round(g, 5)",
      "ceil(g)",
      "floor(g)",
      "avg_over_time(g[2m])",
      "avg_over_time(f[2m])",
      "sum_over_time(f[3m])",
      "f * 3",
      "max_over_time(g[1m])",
      "min_over_time(g[3m])",
      "sum_over_time(c[1m])",
      "count_over_time(g[5m])",
      "last_over_time(g[1m])",
      "absent(nonexistent{job=\"x\"})",
      "absent(c)",
      "time()",
      "vector(1) + 2",
      "scalar(c{job=\"a\"}) * 2",
      "-c",
      "c % 7",
      "c ^ 0.5",
      "2 ^ 3 ^ 2",
      "(1 + 2) * -3",
      "c - c offset 1m",
      "sum(c) / count(c)",
      "g / 0",
      "1 - g / 100",
  };
  return exprs;
}

std::string promtool_output(const std::string& path, int& status) {
  std::string cmd = std::string(kPromtool) + " test rules " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) {
    status = -1;
    return "popen failed";
  }
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  status = pclose(p);
  return out;
}

TEST(PromqlPromtoolTest, EvaluatorAgreesWithPromtoolBitForBit) {
  std::ifstream probe(kPromtool);
  ASSERT_TRUE(probe.good()) << kPromtool
                            << " is missing: install Debian package prometheus "
                               "(scripts/test does) to compare with Prometheus";
  std::vector<Group> groups = {make_group(1, 15000, 49), make_group(7, 10000, 61),
                               make_group(42, 60000, 16)};
  std::ostringstream yaml;
  yaml << "# Generated by promql_promtool_test.cpp: input series and our evaluator's results.\n"
       << "evaluation_interval: 1m\ntests:\n";
  int compared = 0;
  int skipped_nan = 0;
  for (Group& g : groups) {
    const std::int64_t last_ms =
        g.interval_ms * static_cast<std::int64_t>(g.series[0].values.size() - 1);
    g.eval_times_ms = {0,      15000,  37000,  60000,  67000,   120000,
                       150000, 300000, 315000, 433000, last_ms, last_ms + 200000};
    SeriesStore store;
    yaml << "  - interval: " << g.interval_ms << "ms\n    input_series:\n";
    for (const InputRow& row : g.series) {
      yaml << "      - series: " << yaml_quote(row.labels.to_string()) << "\n        values: '";
      for (std::size_t i = 0; i < row.values.size(); ++i) {
        if (i > 0) yaml << ' ';
        const auto& v = row.values[i];
        std::int64_t t = static_cast<std::int64_t>(i) * g.interval_ms;
        if (!v) {
          yaml << '_';
        } else if (is_stale_marker(*v)) {
          yaml << "stale";
          ASSERT_TRUE(store.append_stale(row.labels, t).ok());
        } else {
          yaml << yaml_number(*v);
          ASSERT_TRUE(store.append(row.labels, {t, *v}).ok());
        }
      }
      yaml << "'\n";
    }
    yaml << "    promql_expr_test:\n";
    for (const std::string& q : expressions()) {
      auto e = parse_promql(q);
      ASSERT_TRUE(e.ok()) << q << ": " << e.error();
      for (std::int64_t t : g.eval_times_ms) {
        auto v = evaluate(**e, store, t);
        ASSERT_TRUE(v.ok()) << q << " @" << t << ": " << v.error();
        std::vector<InstantSample> samples = v->vector;
        if (v->kind == QueryValue::Kind::scalar) samples = {{Labels{}, v->scalar}};
        bool has_nan = std::any_of(samples.begin(), samples.end(),
                                   [](const InstantSample& s) { return std::isnan(s.value); });
        if (has_nan) {  // promtool compares with reflect.DeepEqual: NaN never equals NaN
          ++skipped_nan;
          continue;
        }
        ++compared;
        yaml << "      - expr: " << yaml_quote(q) << "\n        eval_time: " << t << "ms\n";
        if (samples.empty()) {
          yaml << "        exp_samples: []\n";
          continue;
        }
        yaml << "        exp_samples:\n";
        for (const InstantSample& s : samples) {
          yaml << "          - labels: " << yaml_quote(labels_text(s.labels))
               << "\n            value: " << yaml_number(s.value) << "\n";
        }
      }
    }
  }
  const std::string path = std::string(LIMITSCOPE_BINARY_DIR) + "/promql_promtool_differential.yml";
  {
    std::ofstream out(path);
    out << yaml.str();
    ASSERT_TRUE(out.good()) << "cannot write " << path;
  }
  int status = 0;
  std::string output = promtool_output(path, status);
  EXPECT_EQ(status, 0) << "promtool disagrees (file " << path << "):\n" << output;
  std::printf("promtool agreed on %d results (%d NaN results not comparable)\n", compared,
              skipped_nan);
  // Most results must really be compared, not dropped as NaN.
  EXPECT_GT(compared, 10 * skipped_nan) << compared << " compared, " << skipped_nan << " NaN";
  EXPECT_GT(compared, 2000);
}

}  // namespace
}  // namespace limitscope::metrics
