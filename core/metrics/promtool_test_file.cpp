#include "core/metrics/promtool_test_file.h"

#include <glob.h>

#include <fstream>
#include <sstream>

#include "core/common/bounded_read.h"
#include "core/metrics/go_format.h"
#include "core/metrics/prom_duration.h"
#include "core/metrics/rule_file.h"
#include "core/metrics/series_store.h"
#include "core/metrics/yaml_fields.h"

namespace limitscope::metrics {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

Expected<double> series_number(std::string_view s) {
  if (s == "stale") return stale_marker();
  auto v = gofmt::parse_float(s);
  if (!v.ok()) return make_error("invalid value \"" + std::string(s) + "\"");
  return *v;
}

// YAML float as Go's yaml.v2 reads it: also .inf, -.inf, .nan.
Expected<double> yaml_float(std::string_view s) {
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf") return gofmt::parse_float("+Inf");
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return gofmt::parse_float("-Inf");
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return gofmt::parse_float("NaN");
  auto v = gofmt::parse_float(s);
  if (!v.ok() || s == "NaN" || s == "Inf" || s == "+Inf" || s == "-Inf") {
    return make_error("cannot unmarshal \"" + std::string(s) + "\" into float64");
  }
  return *v;
}

}  // namespace

Expected<std::vector<std::optional<double>>> expand_series_values(std::string_view text) {
  std::vector<std::optional<double>> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
    if (i >= text.size()) break;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n') ++j;
    const std::string_view item = text.substr(i, j - i);
    i = j;
    const auto bad = [&](std::string_view why) {
      return make_error("bad series value \"" + std::string(item) + "\": " + std::string(why));
    };
    if (item == "_") {
      out.emplace_back(std::nullopt);
      continue;
    }
    // "...xN": a repetition count at the end.
    const std::size_t x = item.rfind('x');
    std::optional<std::size_t> times;
    std::string_view head = item;
    if (x != std::string_view::npos && all_digits(item.substr(x + 1))) {
      if (item.size() - x - 1 > 7) return bad("repetition count too large");
      times = static_cast<std::size_t>(std::stoul(std::string(item.substr(x + 1))));
      head = item.substr(0, x);
    }
    if (head == "_") {
      if (!times) return bad("expected _xN");
      for (std::size_t k = 0; k < *times; ++k) out.emplace_back(std::nullopt);
      continue;
    }
    if (!times) {
      auto v = series_number(head);
      if (!v.ok()) return bad(v.error());
      out.emplace_back(*v);
      continue;
    }
    // "a+bxN" / "a-bxN": split at a sign that is not leading and not an exponent's.
    std::size_t split = std::string_view::npos;
    for (std::size_t k = 1; k < head.size(); ++k) {
      if ((head[k] == '+' || head[k] == '-') && head[k - 1] != 'e' && head[k - 1] != 'E') {
        split = k;
        break;
      }
    }
    if (split == std::string_view::npos) {
      auto v = series_number(head);
      if (!v.ok() || head == "stale") return bad(v.ok() ? "stale cannot repeat" : v.error());
      for (std::size_t k = 0; k <= *times; ++k) out.emplace_back(*v);
      continue;
    }
    auto a = series_number(head.substr(0, split));
    auto b = series_number(head.substr(split + 1));
    if (!a.ok() || !b.ok() || head.substr(0, split) == "stale" ||
        head.substr(split + 1) == "stale") {
      return bad("expected a+bxN or a-bxN");
    }
    double v = *a;
    const double step = head[split] == '-' ? -*b : *b;
    out.emplace_back(v);
    for (std::size_t k = 1; k <= *times; ++k) {
      v += step;  // accumulated, as promql's test loader does
      out.emplace_back(v);
    }
  }
  return out;
}

Expected<Labels> parse_metric(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return make_error("bad series \"" + std::string(text) + "\": " + std::string(why));
  };
  std::size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  const auto ident = [&](bool metric) {
    const std::size_t start = i;
    while (i < text.size()) {
      const char c = text[i];
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                      (metric && c == ':') || (i > start && c >= '0' && c <= '9');
      if (!ok) break;
      ++i;
    }
    return std::string(text.substr(start, i - start));
  };
  Labels out;
  skip();
  const std::string name = ident(true);
  if (!name.empty()) out.set("__name__", name);
  skip();
  if (i < text.size() && text[i] == '{') {
    ++i;
    for (;;) {
      skip();
      if (i < text.size() && text[i] == '}') {
        ++i;
        break;
      }
      const std::string label = ident(false);
      if (label.empty()) return bad("expected a label name");
      skip();
      if (i >= text.size() || text[i] != '=') return bad("expected '=' after " + label);
      ++i;
      skip();
      if (i >= text.size() || text[i] != '"') return bad("expected a quoted value for " + label);
      ++i;
      std::string value;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < text.size()) {
          const char e = text[i + 1];
          value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
          i += 2;
          continue;
        }
        value += text[i++];
      }
      if (i >= text.size()) return bad("unterminated label value");
      ++i;
      if (out.has(label)) return bad("duplicate label " + label);
      out.set(label, value);
      skip();
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      skip();
      if (i < text.size() && text[i] == '}') {
        ++i;
        break;
      }
      return bad("expected ',' or '}'");
    }
  } else if (name.empty()) {
    return bad("expected a metric name or '{'");
  }
  skip();
  if (i != text.size()) return bad("unexpected text after the series");
  return out;
}

std::string go_duration_string(std::int64_t ms) {
  if (ms == 0) return "0s";
  std::string sign = ms < 0 ? "-" : "";
  if (ms < 0) ms = -ms;
  if (ms < 1000) return sign + std::to_string(ms) + "ms";
  const std::int64_t h = ms / 3'600'000;
  const std::int64_t m = (ms / 60'000) % 60;
  const std::int64_t s = (ms / 1000) % 60;
  std::string frac = std::to_string(ms % 1000);
  frac = std::string(3 - frac.size(), '0') + frac;
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  std::string out = sign;
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  out += std::to_string(s) + (frac.empty() ? "" : "." + frac) + "s";
  return out;
}

namespace {

// Reads a parsed test file. Each step returns its value or the first error, located ("line 3,
// column 5: why"); read() puts the file's path in front.
class TestFileReader {
 public:
  explicit TestFileReader(std::string path) : path_(std::move(path)) {}

  Expected<RuleTestFile> read(const YAML::Node& root) const {
    auto f = read_file(root);
    if (!f.ok()) return make_error(in_file(f.error()));
    return f;
  }

 private:
  // A duration field: its milliseconds and how promtool prints it.
  struct Duration {
    std::int64_t ms = 0;
    std::string spelled = "0s";
  };

  // "path:3: why" for "line 3, ...: why", else "path: why".
  std::string in_file(const std::string& e) const {
    if (e.rfind("line ", 0) == 0) {
      const std::size_t colon = e.find(": ");
      return path_ + ":" + e.substr(5, colon - 5) + ": " + e.substr(colon + 2);
    }
    return path_ + ": " + e;
  }

  static Error at(const YAML::Node& n, const std::string& why) {
    return make_error(yamlx::at(n) + why);
  }

  Expected<RuleTestFile> read_file(const YAML::Node& root) const {
    RuleTestFile f;
    f.path = path_;
    if (Status st = check(root, {"rule_files", "evaluation_interval", "group_eval_order", "tests"},
                          "main.unitTestFile");
        !st.ok()) {
      return make_error(st.error());
    }
    auto rule_files = list_of_strings(root["rule_files"], "rule_files");
    if (!rule_files.ok()) return make_error(rule_files.error());
    f.rule_files = std::move(*rule_files);
    auto interval = duration(root["evaluation_interval"], "evaluation_interval");
    if (!interval.ok()) return make_error(interval.error());
    f.evaluation_interval_ms = interval->ms == 0 ? 60'000 : interval->ms;
    auto order = list_of_strings(root["group_eval_order"], "group_eval_order");
    if (!order.ok()) return make_error(order.error());
    f.group_eval_order = std::move(*order);
    const YAML::Node tests = root["tests"];
    if (tests.IsDefined() && !tests.IsNull()) {
      if (!tests.IsSequence()) return at(tests, "tests must be a list");
      for (const auto& t : tests) {
        auto g = read_group(t);
        if (!g.ok()) return make_error(g.error());
        f.tests.push_back(std::move(*g));
      }
    }
    return f;
  }

  // n has only `keys` (promtool's "field x not found in type <type>") and is a mapping.
  static Status check(const YAML::Node& n, std::initializer_list<std::string_view> keys,
                      std::string_view type) {
    if (Status st = yamlx::check_keys(n, keys, type); !st.ok()) return st;
    if (n.IsDefined() && !n.IsNull() && !n.IsMap()) return at(n, "expected a mapping");
    return {};
  }

  static Expected<Duration> duration(const YAML::Node& n, std::string_view field) {
    auto s = yamlx::scalar(n, field);
    if (!s.ok()) return make_error(s.error());
    if (s->empty()) return Duration{};
    auto d = parse_prom_duration(*s);
    if (!d.ok()) return at(n, std::string(field) + ": " + d.error());
    return Duration{*d, format_prom_duration(*d)};
  }

  static Expected<std::vector<std::string>> list_of_strings(const YAML::Node& n,
                                                            std::string_view field) {
    std::vector<std::string> out;
    if (!n.IsDefined() || n.IsNull()) return out;
    if (!n.IsSequence()) return at(n, std::string(field) + " must be a list");
    for (const auto& item : n) {
      auto s = yamlx::scalar(item, field);
      if (!s.ok()) return make_error(s.error());
      out.push_back(std::move(*s));
    }
    return out;
  }

  static Expected<Labels> string_map(const YAML::Node& n, std::string_view field) {
    Labels out;
    if (!n.IsDefined() || n.IsNull()) return out;
    if (!n.IsMap()) return at(n, std::string(field) + " must be a mapping");
    for (const auto& kv : n) {
      auto k = yamlx::scalar(kv.first, field);
      if (!k.ok()) return make_error(k.error());
      auto v = yamlx::scalar(kv.second, field);
      if (!v.ok()) return make_error(v.error());
      out.set(*k, *v);
    }
    return out;
  }

  // The items of a list node (none when absent); an error when n is not a list.
  static Expected<std::vector<YAML::Node>> seq(const YAML::Node& n, std::string_view field) {
    std::vector<YAML::Node> out;
    if (!n.IsDefined() || n.IsNull()) return out;
    if (!n.IsSequence()) return at(n, std::string(field) + " must be a list");
    for (const auto& item : n) out.push_back(item);
    return out;
  }

  static Expected<RuleTestGroup> read_group(const YAML::Node& t) {
    if (Status st = check(t,
                          {"interval", "input_series", "alert_rule_test", "promql_expr_test",
                           "external_labels", "external_url", "name"},
                          "main.testGroup");
        !st.ok()) {
      return make_error(st.error());
    }
    RuleTestGroup g;
    auto name = yamlx::scalar(t["name"], "name");
    if (!name.ok()) return make_error(name.error());
    g.name = std::move(*name);
    auto url = yamlx::scalar(t["external_url"], "external_url");
    if (!url.ok()) return make_error(url.error());
    g.external_url = std::move(*url);
    auto interval = duration(t["interval"], "interval");
    if (!interval.ok()) return make_error(interval.error());
    g.interval_ms = interval->ms;
    auto external = string_map(t["external_labels"], "external_labels");
    if (!external.ok()) return make_error(external.error());
    g.external_labels = std::move(*external);

    auto inputs = seq(t["input_series"], "input_series");
    if (!inputs.ok()) return make_error(inputs.error());
    for (const auto& s : *inputs) {
      auto input = read_input(s);
      if (!input.ok()) return make_error(input.error());
      g.input_series.push_back(std::move(*input));
    }
    auto alerts = seq(t["alert_rule_test"], "alert_rule_test");
    if (!alerts.ok()) return make_error(alerts.error());
    for (const auto& a : *alerts) {
      auto c = read_alert_test(a);
      if (!c.ok()) return make_error(c.error());
      g.alert_tests.push_back(std::move(*c));
    }
    auto exprs = seq(t["promql_expr_test"], "promql_expr_test");
    if (!exprs.ok()) return make_error(exprs.error());
    for (const auto& p : *exprs) {
      auto c = read_promql_test(p);
      if (!c.ok()) return make_error(c.error());
      g.promql_tests.push_back(std::move(*c));
    }
    return g;
  }

  static Expected<InputSeries> read_input(const YAML::Node& s) {
    if (Status st = check(s, {"series", "values"}, "main.series"); !st.ok())
      return make_error(st.error());
    auto series = yamlx::scalar(s["series"], "series");
    if (!series.ok()) return make_error(series.error());
    auto values = yamlx::scalar(s["values"], "values");
    if (!values.ok()) return make_error(values.error());
    auto labels = parse_metric(*series);
    if (!labels.ok()) return at(s, labels.error());
    if (labels->metric_name().empty())
      return at(s, "series \"" + *series + "\" has no metric name");
    auto v = expand_series_values(*values);
    if (!v.ok()) return at(s["values"], v.error());
    return InputSeries{std::move(*labels), std::move(*v)};
  }

  static Expected<AlertTestCase> read_alert_test(const YAML::Node& a) {
    if (Status st = check(a, {"eval_time", "alertname", "exp_alerts"}, "main.alertTestCase");
        !st.ok()) {
      return make_error(st.error());
    }
    AlertTestCase c;
    auto eval_time = duration(a["eval_time"], "eval_time");
    if (!eval_time.ok()) return make_error(eval_time.error());
    c.eval_time_ms = eval_time->ms;
    c.eval_time_text = eval_time->spelled;
    auto alertname = yamlx::scalar(a["alertname"], "alertname");
    if (!alertname.ok()) return make_error(alertname.error());
    c.alertname = std::move(*alertname);
    if (c.alertname.empty()) {
      return at(a,
                "an item under alert_rule_test misses required attribute alertname at "
                "eval_time " +
                    c.eval_time_text);
    }
    auto exp = seq(a["exp_alerts"], "exp_alerts");
    if (!exp.ok()) return make_error(exp.error());
    for (const auto& e : *exp) {
      if (Status st = check(e, {"exp_labels", "exp_annotations"}, "main.alert"); !st.ok())
        return make_error(st.error());
      ExpectedAlert ea;
      auto labels = string_map(e["exp_labels"], "exp_labels");
      if (!labels.ok()) return make_error(labels.error());
      auto annotations = string_map(e["exp_annotations"], "exp_annotations");
      if (!annotations.ok()) return make_error(annotations.error());
      ea.labels = std::move(*labels);
      ea.annotations = std::move(*annotations);
      ea.labels.set("alertname", c.alertname);
      c.exp_alerts.push_back(std::move(ea));
    }
    return c;
  }

  static Expected<PromqlTestCase> read_promql_test(const YAML::Node& p) {
    if (Status st = check(p, {"expr", "eval_time", "exp_samples"}, "main.promqlTestCase");
        !st.ok()) {
      return make_error(st.error());
    }
    PromqlTestCase c;
    auto expr = yamlx::scalar(p["expr"], "expr");
    if (!expr.ok()) return make_error(expr.error());
    c.expr = std::move(*expr);
    auto eval_time = duration(p["eval_time"], "eval_time");
    if (!eval_time.ok()) return make_error(eval_time.error());
    c.eval_time_ms = eval_time->ms;
    c.eval_time_text = eval_time->spelled;
    auto samples = seq(p["exp_samples"], "exp_samples");
    if (!samples.ok()) return make_error(samples.error());
    for (const auto& s : *samples) {
      if (Status st = check(s, {"labels", "value"}, "main.sample"); !st.ok())
        return make_error(st.error());
      auto labels = yamlx::scalar(s["labels"], "labels");
      if (!labels.ok()) return make_error(labels.error());
      auto value = yamlx::scalar(s["value"], "value");
      if (!value.ok()) return make_error(value.error());
      auto l = parse_metric(*labels);
      if (!l.ok()) return at(s, "labels \"" + *labels + "\": " + l.error());
      ExpectedSample es;
      es.labels = std::move(*l);
      if (!value->empty()) {
        auto v = yaml_float(*value);
        if (!v.ok()) return at(s["value"], v.error());
        es.value = *v;
      }
      c.exp_samples.push_back(std::move(es));
    }
    return c;
  }

  std::string path_;
};

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace

Expected<RuleTestFile> parse_rule_test_file(std::string_view text, const std::string& path) {
  auto root = yamlx::load(text, path, false);
  if (!root.ok()) return make_error(root.error());
  auto f = TestFileReader(path).read(*root);
  if (!f.ok()) return f;
  // rule_files: relative to the test file, then globbed (a pattern matching nothing is
  // dropped, as promtool does after a warning).
  std::vector<std::string> resolved;
  for (const std::string& rf : f->rule_files) {
    if (rf.empty()) continue;
    const std::string dir = directory_of(path);
    // filepath.Join(".", f) is f: keep messages as short as promtool's.
    const std::string full = rf.front() == '/' || dir == "." ? rf : dir + "/" + rf;
    glob_t g{};
    if (glob(full.c_str(), 0, nullptr, &g) == 0) {
      for (std::size_t k = 0; k < g.gl_pathc; ++k) resolved.emplace_back(g.gl_pathv[k]);
    }
    globfree(&g);
  }
  f->rule_files = std::move(resolved);
  return f;
}

Expected<RuleTestFile> load_rule_test_file(const std::string& path) {
  auto text = read_file_bounded(path, kMaxRuleTestFileBytes, "test file");
  if (!text) return make_error(text.error());
  return parse_rule_test_file(*text, path);
}

}  // namespace limitscope::metrics
