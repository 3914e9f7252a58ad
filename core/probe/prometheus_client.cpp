#include "core/probe/prometheus_client.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

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
  return metrics::Sample{static_cast<std::int64_t>(std::llround(pair[0].get<double>() * 1000)), value};
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
      const std::string path = "data.alerts[" + std::to_string(i) + "]";
      PromAlert a;
      a.labels = labels_of(member(alerts[i], "labels", path), path + ".labels");
      if (alerts[i].contains("annotations")) {
        a.annotations = labels_of(alerts[i]["annotations"], path + ".annotations");
      }
      const json& state = member(alerts[i], "state", path);
      if (!state.is_string()) bad(path + ".state", "expected a string");
      a.state = state.get<std::string>();
      a.active_at = alerts[i].value("activeAt", "");
      if (alerts[i].contains("value") && alerts[i]["value"].is_string()) {
        a.value = std::strtod(alerts[i]["value"].get<std::string>().c_str(), nullptr);
      }
      out.push_back(std::move(a));
    }
    return out;
  } catch (const ShapeError& e) {
    return make_error(e.message.starts_with(where) ? e.message : where + ": " + e.message);
  }
}

PrometheusClient::PrometheusClient(HttpUrl base, FetchOptions options)
    : base_(std::move(base)), options_(std::move(options)) {
  while (base_.path.size() > 1 && base_.path.back() == '/') base_.path.pop_back();
  if (base_.path == "/") base_.path.clear();
  if (options_.accept.empty()) options_.accept = "application/json";
}

Expected<std::string> PrometheusClient::get(const std::string& path_and_query) const {
  HttpUrl url = base_;
  url.path = base_.path + path_and_query;
  auto r = http_get(url, options_);
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
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", t);
  return buf;
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

}  // namespace limitscope::probe
