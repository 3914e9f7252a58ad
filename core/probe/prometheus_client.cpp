#include "core/probe/prometheus_client.h"

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/common/number_format.h"

namespace limitscope::probe {

using nlohmann::json;

namespace {

struct ShapeError {
  std::string message;
};

[[noreturn]] void bad(const std::string& path, const std::string& reason) {
  throw ShapeError{path + ": " + reason};
}

const json& member(const json& obj, const char* name, const std::string& path) {
  if (!obj.is_object()) bad(path, "expected an object");
  const auto it = obj.find(name);
  if (it == obj.end()) bad(path + "." + name, "missing");
  return *it;
}

metrics::Labels labels_of(const json& obj, const std::string& path) {
  if (!obj.is_object()) bad(path, "expected an object of labels");
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& [k, v] : obj.items()) {
    if (!v.is_string()) bad(path + "." + k, "label values are strings");
    pairs.emplace_back(k, v.get<std::string>());
  }
  return metrics::Labels::from_pairs(std::move(pairs));
}

// [<unix time float>, "<value>"]: Prometheus sends values as strings ("NaN", "+Inf" too).
metrics::Sample sample_of(const json& pair, const std::string& path) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string()) {
    bad(path, "expected [time, \"value\"]");
  }
  const std::string v = pair[1].get<std::string>();
  double value = 0;
  if (v == "NaN") {
    value = std::nan("");
  } else if (v == "+Inf") {
    value = INFINITY;
  } else if (v == "-Inf") {
    value = -INFINITY;
  } else {
    char* end = nullptr;
    value = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size()) bad(path, "value '" + v + "' is not a number");
  }
  return metrics::Sample{static_cast<std::int64_t>(std::llround(pair[0].get<double>() * 1000)),
                         value};
}

// The envelope: success → data; error → the server's errorType and error.
const json& data_of(const json& doc, const std::string& where) {
  const std::string status = doc.is_object() ? doc.value("status", "") : "";
  if (status == "error") {
    throw ShapeError{where + ": Prometheus error " + doc.value("errorType", "?") + ": " +
                     doc.value("error", "(no message)")};
  }
  if (status != "success") bad("(document)", "status is neither success nor error");
  return member(doc, "data", "(document)");
}

json parse_json(const std::string& body, const std::string& where) {
  try {
    return json::parse(body);
  } catch (const json::parse_error& e) {
    throw ShapeError{where + ": not JSON: " + std::string(e.what()).substr(0, 120)};
  }
}

// One alert object, as /api/v1/alerts and /api/v1/rules give it.
PromAlert alert_of(const json& obj, const std::string& path) {
  PromAlert a;
  a.labels = labels_of(member(obj, "labels", path), path + ".labels");
  if (obj.contains("annotations"))
    a.annotations = labels_of(obj["annotations"], path + ".annotations");
  const json& state = member(obj, "state", path);
  if (!state.is_string()) bad(path + ".state", "expected a string");
  a.state = state.get<std::string>();
  if (obj.contains("activeAt") && obj["activeAt"].is_string())
    a.active_at = obj["activeAt"].get<std::string>();
  if (obj.contains("value") && obj["value"].is_string()) {
    a.value = std::strtod(obj["value"].get<std::string>().c_str(), nullptr);
  }
  return a;
}

std::string string_or_empty(const json& obj, const char* name) {
  const auto it = obj.find(name);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Expected<PromQueryResult> parse_query_response(const std::string& body, const std::string& where) {
  try {
    const json doc = parse_json(body, where);
    const json& data = data_of(doc, where);
    PromQueryResult out;
    if (doc.contains("warnings") && doc["warnings"].is_array()) {
      for (const auto& w : doc["warnings"]) {
        if (w.is_string()) out.warnings.push_back(w.get<std::string>());
      }
    }
    const json& type = member(data, "resultType", "data");
    if (!type.is_string()) bad("data.resultType", "expected a string");
    out.result_type = type.get<std::string>();
    const json& result = member(data, "result", "data");
    if (out.result_type == "vector" || out.result_type == "matrix") {
      if (!result.is_array()) bad("data.result", "expected an array");
      for (std::size_t i = 0; i < result.size(); ++i) {
        const std::string path = "data.result[" + std::to_string(i) + "]";
        PromSeries s;
        s.labels = labels_of(member(result[i], "metric", path), path + ".metric");
        if (out.result_type == "vector") {
          s.samples.push_back(sample_of(member(result[i], "value", path), path + ".value"));
        } else {
          const json& values = member(result[i], "values", path);
          if (!values.is_array()) bad(path + ".values", "expected an array");
          for (std::size_t j = 0; j < values.size(); ++j) {
            s.samples.push_back(sample_of(values[j], path + ".values[" + std::to_string(j) + "]"));
          }
        }
        out.series.push_back(std::move(s));
      }
    } else if (out.result_type == "scalar") {
      out.series.push_back(PromSeries{metrics::Labels{}, {sample_of(result, "data.result")}});
    } else if (out.result_type == "string") {
      if (!result.is_array() || result.size() != 2 || !result[1].is_string()) {
        bad("data.result", "expected [time, \"string\"]");
      }
      out.string_value = result[1].get<std::string>();
    } else {
      bad("data.resultType", "unknown result type '" + out.result_type + "'");
    }
    return out;
  } catch (const ShapeError& e) {
    return make_error(e.message.starts_with(where) ? e.message : where + ": " + e.message);
  }
}

Expected<std::vector<PromAlert>> parse_alerts_response(const std::string& body,
                                                       const std::string& where) {
  try {
    const json doc = parse_json(body, where);
    const json& alerts = member(data_of(doc, where), "alerts", "data");
    if (!alerts.is_array()) bad("data.alerts", "expected an array");
    std::vector<PromAlert> out;
    for (std::size_t i = 0; i < alerts.size(); ++i) {
      out.push_back(alert_of(alerts[i], "data.alerts[" + std::to_string(i) + "]"));
    }
    return out;
  } catch (const ShapeError& e) {
    return make_error(e.message.starts_with(where) ? e.message : where + ": " + e.message);
  }
}

Expected<std::vector<PromRule>> parse_rules_response(const std::string& body,
                                                     const std::string& where) {
  try {
    const json doc = parse_json(body, where);
    const json& groups = member(data_of(doc, where), "groups", "data");
    if (!groups.is_array()) bad("data.groups", "expected an array");
    std::vector<PromRule> out;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::string gpath = "data.groups[" + std::to_string(g) + "]";
      const json& rules = member(groups[g], "rules", gpath);
      if (!rules.is_array()) bad(gpath + ".rules", "expected an array");
      const std::string group = string_or_empty(groups[g], "name");
      for (std::size_t i = 0; i < rules.size(); ++i) {
        const std::string path = gpath + ".rules[" + std::to_string(i) + "]";
        PromRule r;
        r.group = group;
        const json& name = member(rules[i], "name", path);
        if (!name.is_string()) bad(path + ".name", "expected a string");
        r.name = name.get<std::string>();
        const json& type = member(rules[i], "type", path);
        if (!type.is_string()) bad(path + ".type", "expected a string");
        r.type = type.get<std::string>();
        r.query = string_or_empty(rules[i], "query");
        r.state = string_or_empty(rules[i], "state");
        r.health = string_or_empty(rules[i], "health");
        r.last_error = string_or_empty(rules[i], "lastError");
        if (rules[i].contains("duration") && rules[i]["duration"].is_number())
          r.for_s = rules[i]["duration"].get<double>();
        if (rules[i].contains("labels") && !rules[i]["labels"].is_null()) {
          r.labels = labels_of(rules[i]["labels"], path + ".labels");
        }
        if (rules[i].contains("annotations") && !rules[i]["annotations"].is_null()) {
          r.annotations = labels_of(rules[i]["annotations"], path + ".annotations");
        }
        if (rules[i].contains("alerts") && !rules[i]["alerts"].is_null()) {
          const json& alerts = rules[i]["alerts"];
          if (!alerts.is_array()) bad(path + ".alerts", "expected an array");
          for (std::size_t a = 0; a < alerts.size(); ++a) {
            r.alerts.push_back(alert_of(alerts[a], path + ".alerts[" + std::to_string(a) + "]"));
          }
        }
        out.push_back(std::move(r));
      }
    }
    return out;
  } catch (const ShapeError& e) {
    return make_error(e.message.starts_with(where) ? e.message : where + ": " + e.message);
  }
}

PrometheusClient::PrometheusClient(http::HttpUrl base, http::FetchOptions options)
    : base_(std::move(base)), options_(std::move(options)) {
  while (base_.path.size() > 1 && base_.path.back() == '/') base_.path.pop_back();
  if (base_.path == "/") base_.path.clear();
  if (options_.accept.empty()) options_.accept = "application/json";
}

Expected<std::string> PrometheusClient::get(const std::string& path_and_query) const {
  http::HttpUrl url = base_;
  url.path = base_.path + path_and_query;
  auto r = http::http_get(url, options_);
  if (!r) return make_error(r.error());
  // Prometheus answers errors with 400/422/503 and a JSON error document: let the parser
  // report the server's own message; other statuses without JSON are plain errors.
  if (r->status != 200 && r->body.find("\"status\"") == std::string::npos) {
    return make_error("GET " + url.to_string() + ": HTTP " + std::to_string(r->status));
  }
  return r->body;
}

namespace {
std::string seconds(double t) {
  return fixed_text(t, 3);
}
}  // namespace

Expected<PromQueryResult> PrometheusClient::query(const std::string& expr, double time_s) const {
  std::string q = "/api/v1/query?query=" + url_encode(expr);
  if (time_s > 0) q += "&time=" + seconds(time_s);
  auto body = get(q);
  if (!body) return make_error(body.error());
  return parse_query_response(*body, "query '" + expr + "'");
}

Expected<PromQueryResult> PrometheusClient::query_range(const std::string& expr, double start_s,
                                                        double end_s, double step_s) const {
  if (!(step_s > 0) || !(end_s >= start_s)) {
    return make_error("query_range '" + expr + "': needs start <= end and a step > 0");
  }
  auto body = get("/api/v1/query_range?query=" + url_encode(expr) + "&start=" + seconds(start_s) +
                  "&end=" + seconds(end_s) + "&step=" + seconds(step_s));
  if (!body) return make_error(body.error());
  return parse_query_response(*body, "query_range '" + expr + "'");
}

Expected<std::vector<PromAlert>> PrometheusClient::alerts() const {
  auto body = get("/api/v1/alerts");
  if (!body) return make_error(body.error());
  return parse_alerts_response(*body, "alerts");
}

Expected<std::vector<PromRule>> PrometheusClient::rules() const {
  auto body = get("/api/v1/rules");
  if (!body) return make_error(body.error());
  return parse_rules_response(*body, "rules");
}

}  // namespace limitscope::probe
