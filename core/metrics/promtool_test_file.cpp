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

class TestFileReader {
 public:
  explicit TestFileReader(std::string path) : path_(std::move(path)) {}

  Expected<RuleTestFile> read(const YAML::Node& root) {
    RuleTestFile f;
    f.path = path_;
    if (!check(root, {"rule_files", "evaluation_interval", "group_eval_order", "tests"},
               "main.unitTestFile")) {
      return fail();
    }
    if (!list_of_strings(root["rule_files"], "rule_files", f.rule_files)) return fail();
    if (!duration(root["evaluation_interval"], "evaluation_interval", f.evaluation_interval_ms,
                  nullptr)) {
      return fail();
    }
    if (f.evaluation_interval_ms == 0) f.evaluation_interval_ms = 60'000;
    if (!list_of_strings(root["group_eval_order"], "group_eval_order", f.group_eval_order))
      return fail();
    const YAML::Node tests = root["tests"];
    if (tests.IsDefined() && !tests.IsNull()) {
      if (!tests.IsSequence()) return fail(tests, "tests must be a list");
      for (const auto& t : tests) {
        RuleTestGroup g;
        if (!read_group(t, g)) return fail();
        f.tests.push_back(std::move(g));
      }
    }
    return f;
  }

 private:
  Expected<RuleTestFile> fail(const YAML::Node& n, const std::string& why) {
    error_ = yamlx::at(n) + why;
    return fail();
  }
  Expected<RuleTestFile> fail() {
    std::string e = error_;
    if (e.rfind("line ", 0) == 0) {
      const std::size_t colon = e.find(": ");
      return make_error(path_ + ":" + e.substr(5, colon - 5) + ": " + e.substr(colon + 2));
    }
    return make_error(path_ + ": " + e);
  }
  bool set_error(const YAML::Node& n, const std::string& why) {
    error_ = yamlx::at(n) + why;
    return false;
  }

  bool check(const YAML::Node& n, std::initializer_list<std::string_view> keys,
             std::string_view type) {
    if (Status st = yamlx::check_keys(n, keys, type); !st.ok()) {
      error_ = st.error();
      return false;
    }
    if (n.IsDefined() && !n.IsNull() && !n.IsMap()) return set_error(n, "expected a mapping");
    return true;
  }

  bool text(const YAML::Node& n, std::string_view field, std::string& out) {
    auto value = yamlx::scalar(n, field);
    if (!value) {
      out.clear();
      error_ = value.error();
      return false;
    }
    out = std::move(*value);
    return true;
  }

  bool duration(const YAML::Node& n, std::string_view field, std::int64_t& ms,
                std::string* spelled) {
    std::string s;
    if (!text(n, field, s)) return false;
    if (s.empty()) {
      ms = 0;
      if (spelled) *spelled = "0s";
      return true;
    }
    auto d = parse_prom_duration(s);
    if (!d.ok()) return set_error(n, std::string(field) + ": " + d.error());
    ms = *d;
    if (spelled) *spelled = format_prom_duration(ms);
    return true;
  }

  bool list_of_strings(const YAML::Node& n, std::string_view field, std::vector<std::string>& out) {
    if (!n.IsDefined() || n.IsNull()) return true;
    if (!n.IsSequence()) return set_error(n, std::string(field) + " must be a list");
    for (const auto& item : n) {
      std::string s;
      if (!text(item, field, s)) return false;
      out.push_back(s);
    }
    return true;
  }

  bool string_map(const YAML::Node& n, std::string_view field, Labels& out) {
    if (!n.IsDefined() || n.IsNull()) return true;
    if (!n.IsMap()) return set_error(n, std::string(field) + " must be a mapping");
    for (const auto& kv : n) {
      std::string k, v;
      if (!text(kv.first, field, k) || !text(kv.second, field, v)) return false;
      out.set(k, v);
    }
    return true;
  }

  bool read_group(const YAML::Node& t, RuleTestGroup& g) {
    if (!check(t,
               {"interval", "input_series", "alert_rule_test", "promql_expr_test",
                "external_labels", "external_url", "name"},
               "main.testGroup")) {
      return false;
    }
    if (!text(t["name"], "name", g.name) ||
        !text(t["external_url"], "external_url", g.external_url) ||
        !duration(t["interval"], "interval", g.interval_ms, nullptr) ||
        !string_map(t["external_labels"], "external_labels", g.external_labels)) {
      return false;
    }
    std::vector<YAML::Node> items;
    if (!seq(t["input_series"], "input_series", items)) return false;
    for (const auto& s : items) {
      if (!check(s, {"series", "values"}, "main.series")) return false;
      std::string series, values;
      if (!text(s["series"], "series", series) || !text(s["values"], "values", values))
        return false;
      auto labels = parse_metric(series);
      if (!labels.ok()) return set_error(s, labels.error());
      if (labels->metric_name().empty())
        return set_error(s, "series \"" + series + "\" has no metric name");
      auto v = expand_series_values(values);
      if (!v.ok()) return set_error(s["values"], v.error());
      g.input_series.push_back({std::move(*labels), std::move(*v)});
    }
    if (!seq(t["alert_rule_test"], "alert_rule_test", items)) return false;
    for (const auto& a : std::vector<YAML::Node>(items)) {
      if (!check(a, {"eval_time", "alertname", "exp_alerts"}, "main.alertTestCase")) return false;
      AlertTestCase c;
      if (!duration(a["eval_time"], "eval_time", c.eval_time_ms, &c.eval_time_text) ||
          !text(a["alertname"], "alertname", c.alertname)) {
        return false;
      }
      if (c.alertname.empty()) {
        return set_error(a,
                         "an item under alert_rule_test misses required attribute alertname at "
                         "eval_time " +
                             c.eval_time_text);
      }
      std::vector<YAML::Node> exp;
      if (!seq(a["exp_alerts"], "exp_alerts", exp)) return false;
      for (const auto& e : exp) {
        if (!check(e, {"exp_labels", "exp_annotations"}, "main.alert")) return false;
        ExpectedAlert ea;
        if (!string_map(e["exp_labels"], "exp_labels", ea.labels) ||
            !string_map(e["exp_annotations"], "exp_annotations", ea.annotations)) {
          return false;
        }
        ea.labels.set("alertname", c.alertname);
        c.exp_alerts.push_back(std::move(ea));
      }
      g.alert_tests.push_back(std::move(c));
    }
    if (!seq(t["promql_expr_test"], "promql_expr_test", items)) return false;
    for (const auto& p : std::vector<YAML::Node>(items)) {
      if (!check(p, {"expr", "eval_time", "exp_samples"}, "main.promqlTestCase")) return false;
      PromqlTestCase c;
      if (!text(p["expr"], "expr", c.expr) ||
          !duration(p["eval_time"], "eval_time", c.eval_time_ms, &c.eval_time_text)) {
        return false;
      }
      std::vector<YAML::Node> samples;
      if (!seq(p["exp_samples"], "exp_samples", samples)) return false;
      for (const auto& s : samples) {
        if (!check(s, {"labels", "value"}, "main.sample")) return false;
        std::string labels, value;
        if (!text(s["labels"], "labels", labels) || !text(s["value"], "value", value)) return false;
        auto l = parse_metric(labels);
        if (!l.ok()) return set_error(s, "labels \"" + labels + "\": " + l.error());
        ExpectedSample es;
        es.labels = std::move(*l);
        if (!value.empty()) {
          auto v = yaml_float(value);
          if (!v.ok()) return set_error(s["value"], v.error());
          es.value = *v;
        }
        c.exp_samples.push_back(std::move(es));
      }
      g.promql_tests.push_back(std::move(c));
    }
    return true;
  }

  // The items of a list node (none when absent). @return false when n is not a list.
  bool seq(const YAML::Node& n, std::string_view field, std::vector<YAML::Node>& out) {
    out.clear();
    if (!n.IsDefined() || n.IsNull()) return true;
    if (!n.IsSequence()) return set_error(n, std::string(field) + " must be a list");
    for (const auto& item : n) out.push_back(item);
    return true;
  }

  std::string path_;
  std::string error_;
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
