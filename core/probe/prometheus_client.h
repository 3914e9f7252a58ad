#pragma once
// The Prometheus HTTP API, read side: instant and range queries, and the server's alerts (shown
// beside limitscope's own alert states). Responses are checked field by field: an error
// document ({"status": "error", "errorType", "error"}), a non-JSON body, or a shape other than
// the documented one gives an error naming the endpoint and the reason, never a crash.

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/http/http_fetch.h"
#include "core/metrics/labels.h"

namespace limitscope::probe {

struct PromSeries {
  metrics::Labels labels;                ///< including __name__ when the server gave one
  std::vector<metrics::Sample> samples;  ///< one for instant vectors, many for matrices
};

struct PromQueryResult {
  std::string result_type;         ///< vector, matrix, scalar or string
  std::vector<PromSeries> series;  ///< vector and matrix (scalar: one unlabelled series)
  std::string string_value;        ///< string results
  std::vector<std::string> warnings;
};

struct PromAlert {
  metrics::Labels labels;
  metrics::Labels annotations;
  std::string state;      ///< pending or firing
  std::string active_at;  ///< RFC 3339, as the server wrote it
  double value = 0;
};

/// One rule of GET /api/v1/rules.
struct PromRule {
  std::string group;
  std::string name;
  std::string type;  ///< alerting or recording
  std::string query;
  std::string state;   ///< alerting: inactive, pending or firing
  std::string health;  ///< ok, err or unknown
  std::string last_error;
  double for_s = 0;        ///< alerting: `for`, seconds
  metrics::Labels labels;  ///< the rule's own labels (severity, …)
  metrics::Labels annotations;
  std::vector<PromAlert> alerts;  ///< alerting: its pending and firing alerts
};

class PrometheusClient {
 public:
  /// @param base the server, e.g. http://127.0.0.1:9090 (a path prefix is kept)
  PrometheusClient(http::HttpUrl base, http::FetchOptions options);

  /// GET /api/v1/query?query=…&time=… (time in epoch seconds; 0 = the server's now).
  Expected<PromQueryResult> query(const std::string& expr, double time_s = 0) const;
  /// GET /api/v1/query_range?query=…&start=…&end=…&step=…
  Expected<PromQueryResult> query_range(const std::string& expr, double start_s, double end_s,
                                        double step_s) const;
  /// GET /api/v1/alerts
  Expected<std::vector<PromAlert>> alerts() const;
  /// GET /api/v1/rules: every rule group's rules, with their alerts.
  Expected<std::vector<PromRule>> rules() const;
  /// The server, e.g. "http://127.0.0.1:9090" (never credentials).
  std::string base_url() const { return base_.to_string(); }

 private:
  Expected<std::string> get(const std::string& path_and_query) const;

  http::HttpUrl base_;
  http::FetchOptions options_;
};

/// Parses a query response body (exposed for tests of malformed documents).
Expected<PromQueryResult> parse_query_response(const std::string& body, const std::string& where);
/// Parses an /api/v1/alerts body.
Expected<std::vector<PromAlert>> parse_alerts_response(const std::string& body,
                                                       const std::string& where);

/// Parses an /api/v1/rules body.
Expected<std::vector<PromRule>> parse_rules_response(const std::string& body,
                                                     const std::string& where);

/// Percent-encodes a query parameter value (RFC 3986 unreserved characters kept).
std::string url_encode(std::string_view text);

}  // namespace limitscope::probe
